/**
 * An admission webhook's rules as kube-apiserver v1.37 validates them (pkg/apis/admissionregistration/validation
 * validateRuleWithOperations and validateRule): operations present and known, `*` alone; API groups and versions
 * present, `*` alone, no empty version; resources present, no empty one, and the wildcard combinations kube refuses
 * (`x/*` beside `x/y`, `*\/y` beside `x/y`, `*\/*` beside anything, `*` beside a plain resource); a known scope.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "./field_errors.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES = ["*", "Cluster", "Namespaced"];

const list = (v: unknown): unknown[] => Array.isArray(v) ? v : [];

/** validateResources: the resources of a rule that may name subresources. */
function resourceCauses(resources: unknown[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (resources.length === 0) causes.push(fieldRequired(path));
  const wildSubresourceOf = new Set<string>();
  const wildResourceFor = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plain = false;
  resources.forEach((value, i) => {
    const resSub = String(value ?? "");
    if (!resSub) {
      causes.push(fieldRequired(`${path}[${i}]`));
      return;
    }
    if (resSub === "*/*") doubleWildcard = true;
    if (resSub === "*") singleWildcard = true;
    const slash = resSub.indexOf("/");
    if (slash < 0) {
      plain = resSub !== "*";
      return;
    }
    const [res, sub] = [resSub.slice(0, slash), resSub.slice(slash + 1)];
    if (wildSubresourceOf.has(res)) {
      causes.push(fieldInvalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    }
    if (wildResourceFor.has(sub)) {
      causes.push(fieldInvalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    }
    if (sub === "*") wildSubresourceOf.add(res);
    if (res === "*") wildResourceFor.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    causes.push(fieldInvalid(path, resources, "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && plain) {
    causes.push(
      fieldInvalid(path, resources, "if '*' is present, must not specify other resources without subresources"),
    );
  }
  return causes;
}

/**
 * Causes for one webhook rule at `path` (`webhooks[0].rules[1]`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webhookRuleCauses } from "./webhook_rules.ts";
 * const rule = { operations: ["EXPLODE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
 * assert.equal(webhookRuleCauses(rule, "webhooks[0].rules[0]")[0].field, "webhooks[0].rules[0].operations[0]");
 * ```
 */
export function webhookRuleCauses(rule: Json, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const operations = list(rule?.operations);
  if (operations.length === 0) causes.push(fieldRequired(`${path}.operations`));
  if (operations.length > 1 && operations.includes("*")) {
    causes.push(fieldInvalid(`${path}.operations`, operations, "if '*' is present, must not specify other operations"));
  }
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(String(op))) causes.push(fieldNotSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = list(rule?.apiGroups);
  if (groups.length === 0) causes.push(fieldRequired(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes("*")) {
    causes.push(fieldInvalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  }
  const versions = list(rule?.apiVersions);
  if (versions.length === 0) causes.push(fieldRequired(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes("*")) {
    causes.push(
      fieldInvalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"),
    );
  }
  versions.forEach((v, i) => {
    if (v === "") causes.push(fieldRequired(`${path}.apiVersions[${i}]`));
  });
  causes.push(...resourceCauses(list(rule?.resources), `${path}.resources`));
  if (rule?.scope != null && !SCOPES.includes(rule.scope)) {
    causes.push(fieldNotSupported(`${path}.scope`, rule.scope, SCOPES));
  }
  return causes;
}
