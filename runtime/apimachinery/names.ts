/**
 * Names in the Kubernetes API: the `plural.group` identity of a resource, and the name checks of apimachinery's
 * `util/validation` (DNS-1123 labels and subdomains, DNS-1035 labels, qualified names such as label keys, label
 * values), each returning kube's messages so a server can answer with them.
 * @module
 */
import type { ResourceType } from "../types.ts";

/**
 * Identity of a resource collection: `plural.group` (`plural` for the core group), as kubectl and metrics name it.
 *
 * @example
 * ```ts
 * import { resourceId } from "./names.ts";
 * resourceId({ group: "apps", plural: "deployments" }); // "deployments.apps"
 * resourceId({ group: "", plural: "pods" }); // "pods"
 * ```
 */
export function resourceId(rt: Pick<ResourceType, "group" | "plural">): string {
  return rt.group ? `${rt.plural}.${rt.group}` : rt.plural;
}

// ---- util/validation ----

const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or " +
  "'.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, " +
  "'-' or '.', and must start and end with an alphanumeric character";

/** validation.RegexError: the message with examples and the regular expression. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

/** validation.IsDNS1123Subdomain: the problems with `value` (none when valid). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push("must be no more than 253 characters");
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  }
  return errs;
}

/** content.IsLabelKey (validation.IsQualifiedName: label and annotation keys, v1.37's messages): the problems with `value` (none when valid). */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else {
      errs.push(
        ...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m.replace(/ characters$/, " bytes")}`),
      );
    }
  } else {
    return [
      `a valid label key ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}` +
      " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 bytes");
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  }
  return errs;
}

/** content.IsLabelValue (validation.IsValidLabelValue, v1.37's messages: lengths in bytes): the problems with `value` (none when valid). */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 bytes");
  if (!LABEL_VALUE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and " +
  "must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an " +
  "alphabetic character, and end with an alphanumeric character";

/**
 * content.IsPathSegmentName (references by name: an HPA's scaleTargetRef, metric names): the problems with `value`
 * (none when valid; empty is not checked here).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathSegmentNameErrors } from "./names.ts";
 * assert.deepEqual(pathSegmentNameErrors("a/b%c"), ["may not contain '/'", "may not contain '%'"]);
 * assert.deepEqual(pathSegmentNameErrors(".."), ["may not be '..'"]);
 * ```
 */
export function pathSegmentNameErrors(value: string): string[] {
  if (value === "." || value === "..") return [`may not be '${value}'`];
  return ["/", "%"].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

/**
 * validation.IsValidPortName (IANA_SVC_NAME: container port names, a Service's named targetPort): the problems with
 * `value` (none when valid).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { portNameErrors } from "./names.ts";
 * assert.deepEqual(portNameErrors("http"), []);
 * assert.deepEqual(portNameErrors("Not_Valid"), ["must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"]);
 * ```
 */
export function portNameErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(value)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(value)) errs.push("must contain at least one letter (a-z)");
  if (value.includes("--")) errs.push("must not contain consecutive hyphens");
  if (value.startsWith("-") || value.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** validation.IsValidPortNum's message: a port outside 1–65535. */
export const PORT_NUMBER_RANGE = "must be between 1 and 65535, inclusive";

/** validation.IsDNS1123Label (namespace names): the problems with `value` (none when valid). */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!DNS1123_LABEL.test(value)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  return errs;
}

/** validation.IsDNS1035Label (service names): the problems with `value` (none when valid). */
export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!DNS1035_LABEL.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

// ---- derived names (children's names and label values built from a parent's name) ----

/** The longest object name most resources accept (a DNS-1123 subdomain). */
export const MAX_NAME_LENGTH = 253;
/** The longest label value (and DNS-1123 label). */
export const MAX_LABEL_VALUE_LENGTH = 63;

/** apimachinery's rand.SafeEncodeString alphabet: no vowels (no words), no look-alikes (0/o, 1/l, 3/e). */
const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/**
 * A short stable hash of `text`, as kube's controllers render one (the Deployment controller's pod-template-hash):
 * FNV-1a 32-bit over the UTF-8 bytes, printed in decimal, each digit mapped through rand.SafeEncodeString's
 * alphabet. At most 10 characters of `[b-z2-9]` without vowels.
 *
 * @example
 * ```ts
 * import { shortHash } from "./names.ts";
 * shortHash("my-machine"); // the same 10 characters or fewer on every run
 * ```
 */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(text)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return [...String(h)].map((d) => SAFE_ALPHABET[Number(d) % SAFE_ALPHABET.length]).join("");
}

/** `text` cut to `length` characters, then without trailing characters that may not end a name or label. */
function cutTo(text: string, length: number): string {
  return text.slice(0, Math.max(0, length)).replace(/[^A-Za-z0-9]+$/, "");
}

/** Options of {@link childName}. */
export interface ChildNameOptions {
  /** Longest name the child's resource accepts. Default {@link MAX_NAME_LENGTH} (253, a DNS-1123 subdomain). */
  maxLength?: number;
}

/**
 * The name of a child derived from its parent's name: `<parent>-<suffix>` when that fits in `maxLength`, else the
 * parent's name cut to fit, a `-`, a {@link shortHash} of the full parent name, then `-<suffix>` — the way kube's
 * controllers and names.SimpleNameGenerator keep derived names valid (cut, plus a hash so two long parents that share
 * a prefix still get different children). Deterministic: a controller finds its child again by recomputing it, and a
 * parent whose derived name fits keeps the name it always had. `parent` is a valid object name; the cut drops
 * trailing `-`/`.` so the result stays a DNS-1123 subdomain.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { childName } from "./names.ts";
 * assert.equal(childName("backup", "pod"), "backup-pod");
 * const long = childName("a".repeat(253), "pod");
 * assert.equal(long.length, 253);
 * assert.ok(long.endsWith("-pod"));
 * ```
 */
export function childName(parent: string, suffix: string, options: ChildNameOptions = {}): string {
  const maxLength = options.maxLength ?? MAX_NAME_LENGTH;
  const tail = suffix ? `-${suffix}` : "";
  const plain = `${parent}${tail}`;
  if (plain.length <= maxLength) return plain;
  const hashed = `-${shortHash(parent)}${tail}`;
  if (hashed.length >= maxLength) {
    throw new RangeError(`childName: suffix ${JSON.stringify(suffix)} leaves no room in ${maxLength} characters`);
  }
  return `${cutTo(parent, maxLength - hashed.length)}${hashed}`;
}

/**
 * A label value that stands for `name`: `name` itself when it is a valid label value (at most 63 characters, starts
 * and ends alphanumeric), else `name` cut to fit, a `-` and a {@link shortHash} of the full `name`. Deterministic, so
 * a selector built from it finds what was labelled with it; unchanged for every name that was already a valid value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { labelValueErrors, labelValueFor } from "./names.ts";
 * assert.equal(labelValueFor("web"), "web");
 * const long = labelValueFor("m".repeat(253));
 * assert.ok(long.length <= 63);
 * assert.deepEqual(labelValueErrors(long), []);
 * ```
 */
export function labelValueFor(name: string): string {
  if (labelValueErrors(name).length === 0) return name;
  const hash = shortHash(name);
  const head = cutTo(name.replace(/^[^A-Za-z0-9]+/, "").replace(/[^-A-Za-z0-9_.]/g, "-"), 62 - hash.length);
  return head ? `${head}-${hash}` : hash;
}
