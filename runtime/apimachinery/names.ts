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

/** validation.IsQualifiedName (label and annotation keys): the problems with `value` (none when valid). */
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
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}` +
      " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 characters");
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  }
  return errs;
}

/** validation.IsValidLabelValue: the problems with `value` (none when valid). */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
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
