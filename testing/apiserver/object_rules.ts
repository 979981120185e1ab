/**
 * kube-apiserver's generic per-object rules the fake applies on write: name formats, generateName, metav1.Time, JSON
 * equality and which part of an object counts for metadata.generation. Kind-specific rules live in the strategies
 * (testing/apiserver/strategies/).
 * @module
 */
import type { StatusCause } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { isIP } from "node:net";
import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import { dns1123LabelErrors, dns1123SubdomainErrors } from "../../runtime/apimachinery/names.ts";

/** Kubernetes metav1.Time: RFC 3339 in UTC with whole seconds (`2026-01-01T00:00:00Z`). */
export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Every write stamps the clock's current second (creationTimestamp, managedFields times): format it once.
  if (second !== lastSecond) {
    lastSecond = second;
    lastFormatted = new Date(second * 1000).toISOString().replace(".000Z", "Z");
  }
  return lastFormatted;
}

let lastSecond = NaN;
let lastFormatted = "";

function nameInvalid(name: string, detail: string): StatusCause[] {
  return [{
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(name)}: ${detail}`,
    field: "metadata.name",
  }];
}

/** The first problem apimachinery's name check reports, as a metadata.name cause (none when valid). */
function firstProblem(name: string, problems: string[]): StatusCause[] {
  return problems.length ? nameInvalid(name, problems[0]) : [];
}

/** Causes for a name that is not a DNS-1123 subdomain of at most 253 characters (most kinds). */
export function validateSubdomainName(name: string): StatusCause[] {
  return firstProblem(name, dns1123SubdomainErrors(name));
}

/** Causes for a name that is not a DNS-1123 label of at most 63 characters (Namespace, Service). */
export function validateLabelName(name: string): StatusCause[] {
  return firstProblem(name, dns1123LabelErrors(name));
}

/** Causes for a name that is not a valid path segment (rbac, apiregistration: `:` allowed, `/` and `%` not). */
export function validatePathSegmentName(name: string): StatusCause[] {
  return name && !name.includes("/") && !name.includes("%") && name !== "." && name !== ".."
    ? []
    : nameInvalid(name, "may not contain '/' or '%'");
}

/** Causes for a name that is not an IP address (IPAddress: kube's ValidateIPAddressName, netutils.ParseIPSloppy). */
export function validateIpAddressName(name: string): StatusCause[] {
  return isIP(name) ? [] : nameInvalid(name, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
}

const GENERATE_CHARS = "bcdfghjklmnpqrstvwxz2456789";

/** `generateName` + 5 random characters, as the real name generator does. */
export function generateName(prefix: string): string {
  let suffix = "";
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  for (const b of bytes) suffix += GENERATE_CHARS[b % GENERATE_CHARS.length];
  return `${prefix.slice(0, 58)}${suffix}`;
}

/** True for deep-equal JSON values (key order ignored): runtime/apimachinery's {@link deepEqual}. */
export const jsonEqual: (a: unknown, b: unknown) => boolean = deepEqual;

/**
 * Whether a change from `old` to `next` bumps metadata.generation: anything outside metadata and status (with
 * `statusIsSpec`, as for a custom resource without a status subresource, status too).
 */
export function specChanged(old: KubeObject, next: KubeObject, statusIsSpec = false): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status, apiVersion: _a, kind: _k, ...rest } = o;
    return statusIsSpec ? { ...rest, status } : rest;
  };
  return !jsonEqual(strip(old), strip(next));
}
