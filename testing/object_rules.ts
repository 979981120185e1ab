/**
 * kube-apiserver's generic per-object rules the fake applies on write: name formats, generateName, metav1.Time, JSON
 * equality and which part of an object counts for metadata.generation. Kind-specific rules live in the strategies
 * (testing/strategies/).
 * @module
 */
import type { StatusCause } from "../runtime/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** Kubernetes metav1.Time: RFC 3339 in UTC with whole seconds (`2026-01-01T00:00:00Z`). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function nameInvalid(name: string, detail: string): StatusCause[] {
  return [{
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(name)}: ${detail}`,
    field: "metadata.name",
  }];
}

/** Causes for a name that is not a DNS-1123 subdomain of at most 253 characters (most kinds). */
export function validateSubdomainName(name: string): StatusCause[] {
  if (name.length > 253) return nameInvalid(name, "must be no more than 253 characters");
  return DNS1123_SUBDOMAIN.test(name) ? [] : nameInvalid(name, SUBDOMAIN_MSG);
}

/** Causes for a name that is not a DNS-1123 label of at most 63 characters (Namespace). */
export function validateLabelName(name: string): StatusCause[] {
  if (name.length > 63) return nameInvalid(name, "must be no more than 63 characters");
  return DNS1123_LABEL.test(name) ? [] : nameInvalid(name, LABEL_MSG);
}

/** Causes for a name that is not a DNS-1035 label of at most 63 characters (Service). */
export function validateDns1035Name(name: string): StatusCause[] {
  if (name.length > 63) return nameInvalid(name, "must be no more than 63 characters");
  return DNS1035_LABEL.test(name) ? [] : nameInvalid(name, DNS1035_MSG);
}

/** Causes for a name that is not a valid path segment (rbac, apiregistration: `:` allowed, `/` and `%` not). */
export function validatePathSegmentName(name: string): StatusCause[] {
  return name && !name.includes("/") && !name.includes("%") && name !== "." && name !== ".."
    ? []
    : nameInvalid(name, "may not contain '/' or '%'");
}

const GENERATE_CHARS = "bcdfghjklmnpqrstvwxz2456789";

/** `generateName` + 5 random characters, as the real name generator does. */
export function generateName(prefix: string): string {
  let suffix = "";
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  for (const b of bytes) suffix += GENERATE_CHARS[b % GENERATE_CHARS.length];
  return `${prefix.slice(0, 58)}${suffix}`;
}

/** True for deep-equal JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ak = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Whether a change from `old` to `next` bumps metadata.generation (anything outside metadata and status). */
export function specChanged(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !jsonEqual(strip(old), strip(next));
}
