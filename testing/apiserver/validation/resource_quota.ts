/**
 * ResourceQuota validation as kube-apiserver v1.37 applies it (pkg/apis/core/validation ValidateResourceQuota*):
 * each `hard` (and, on a status write, `used`) entry names a resource a quota may limit and holds a non-negative
 * amount, whole for counted resources (`must be an integer`); scopes are known, apply to every limited resource
 * and do not contradict each other (BestEffort/NotBestEffort, Terminating/NotTerminating); a scope selector's
 * expressions use a known scope and operator with the values it takes; an update may not change the scopes. kube
 * walks `hard` as a Go map, in no fixed order; here in the object's order.
 * @module
 */
import { isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { milliValue, quantity } from "../resource_quantity.ts";
import { fieldImmutable, fieldInvalid, fieldRequired } from "./field_errors.ts";
import { isIntegerResourceName, quotaResourceNameErrors } from "./resource_names.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const SCOPES = [
  "Terminating",
  "NotTerminating",
  "BestEffort",
  "NotBestEffort",
  "PriorityClass",
  "VolumeAttributesClass",
  "CrossNamespacePodAffinity",
];
/** Scopes that only select: `Exists` is their one operator. */
const EXISTS_ONLY = ["BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity"];
const CONFLICTS = [["BestEffort", "NotBestEffort"], ["Terminating", "NotTerminating"]];
const POD_COMPUTE = ["cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"];
const EXISTS_MESSAGE = "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, " +
  "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or " +
  "ResourceQuotaScopeCrossNamespacePodAffinity";

/** helper.IsResourceQuotaScopeValidForResource, for a standard quota resource. */
function scopeAppliesTo(scope: string, resource: string): boolean {
  switch (scope) {
    case "Terminating":
    case "NotTerminating":
    case "NotBestEffort":
    case "PriorityClass":
    case "CrossNamespacePodAffinity":
      return resource === "pods" || POD_COMPUTE.includes(resource);
    case "BestEffort":
      return resource === "pods";
    case "VolumeAttributesClass":
      return resource === "persistentvolumeclaims" || resource === "requests.storage";
    default:
      return true;
  }
}

/** Whether `resource` is one of the quota's standard names (scopes are checked against those only). */
const standardQuotaName = (resource: string) =>
  quotaResourceNameErrors(resource, "").length === 0 &&
  !resource.includes("/");

/** Causes for a resource list of a quota (`spec.hard`, `status.hard`, `status.used`). */
function quotaListErrors(list: unknown, path: string): StatusCause[] {
  if (!isPlainObject(list)) return [];
  return Object.entries(list).flatMap(([resource, text]) => {
    const at = `${path}[${resource}]`;
    const causes = quotaResourceNameErrors(resource, at);
    const q = quantity(text);
    if (!q) return causes;
    if (q.num < 0n) causes.push(fieldInvalid(at, String(text), "must be greater than or equal to 0"));
    // Quantity.MilliValue is an int64: beyond its range Go's big-decimal path keeps the low 64 bits.
    if (isIntegerResourceName(resource) && BigInt.asIntN(64, milliValue(q)) % 1000n !== 0n) {
      causes.push(fieldInvalid(at, String(text), "must be an integer"));
    }
    return causes;
  });
}

function scopeErrors(spec: Record<string, Any>, hard: string[]): StatusCause[] {
  const scopes: unknown[] = Array.isArray(spec.scopes) ? spec.scopes : [];
  const causes: StatusCause[] = [];
  for (const scope of scopes) {
    if (!SCOPES.includes(String(scope))) causes.push(fieldInvalid("spec.scopes", scopes, "unsupported scope"));
    for (const resource of hard) {
      if (standardQuotaName(resource) && !scopeAppliesTo(String(scope), resource)) {
        causes.push(fieldInvalid("spec.scopes", scopes, "unsupported scope applied to resource"));
      }
    }
  }
  for (const pair of CONFLICTS) {
    if (pair.every((s) => scopes.includes(s))) causes.push(fieldInvalid("spec.scopes", scopes, "conflicting scopes"));
  }
  return causes;
}

/** The scope selector as kube prints it in a cause: its internal struct, Go field names and no JSON tags. */
function internalSelector(expressions: Any[]): unknown {
  return {
    MatchExpressions: expressions.map((e) => ({
      ScopeName: e?.scopeName ?? "",
      Operator: e?.operator ?? "",
      Values: Array.isArray(e?.values) ? e.values : null,
    })),
  };
}

function scopeSelectorErrors(spec: Record<string, Any>, hard: string[]): StatusCause[] {
  if (!isPlainObject(spec.scopeSelector)) return [];
  const path = "spec.scopeSelector.matchExpressions";
  const expressions: Any[] = Array.isArray(spec.scopeSelector.matchExpressions)
    ? spec.scopeSelector.matchExpressions
    : [];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  for (const req of expressions) {
    const scope = String(req?.scopeName ?? "");
    const operator = String(req?.operator ?? "");
    const values: unknown[] = Array.isArray(req?.values) ? req.values : [];
    if (!SCOPES.includes(scope)) causes.push(fieldInvalid(`${path}.scopeName`, scope, "unsupported scope"));
    for (const resource of hard) {
      if (standardQuotaName(resource) && !scopeAppliesTo(scope, resource)) {
        causes.push(fieldInvalid(path, internalSelector(expressions), "unsupported scope applied to resource"));
      }
    }
    if (EXISTS_ONLY.includes(scope) && operator !== "Exists") {
      causes.push(fieldInvalid(`${path}.operator`, operator, EXISTS_MESSAGE));
    }
    if (operator === "In" || operator === "NotIn") {
      if (values.length === 0) {
        causes.push(
          fieldRequired(
            `${path}.values`,
            "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
          ),
        );
      }
    } else if (operator === "Exists" || operator === "DoesNotExist") {
      if (values.length > 0) {
        causes.push(
          fieldInvalid(
            `${path}.values`,
            values,
            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
          ),
        );
      }
    } else {
      causes.push(fieldInvalid(`${path}.operator`, operator, "not a valid selector operator"));
    }
    seen.add(scope);
  }
  for (const pair of CONFLICTS) {
    if (pair.every((s) => seen.has(s))) causes.push(fieldInvalid(path, spec.scopes ?? null, "conflicting scopes"));
  }
  return causes;
}

/** `causes` without repeats: kube answers one cause for the same error found for several resources. */
function distinct(causes: StatusCause[]): StatusCause[] {
  const seen = new Set<string>();
  return causes.filter((c) => {
    const key = `${c.reason}\0${c.field}\0${c.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Causes for a ResourceQuota's spec (create and update). */
export function validateResourceQuotaSpec(quota: KubeObject): StatusCause[] {
  const spec: Record<string, Any> = isPlainObject(quota.spec) ? quota.spec : {};
  const hard = isPlainObject(spec.hard) ? Object.keys(spec.hard).sort() : [];
  return distinct([
    ...quotaListErrors(spec.hard, "spec.hard"),
    ...scopeErrors(spec, hard),
    ...scopeSelectorErrors(spec, hard),
  ]);
}

/** Causes for an update: the spec's, and scopes that changed. */
export function validateResourceQuotaUpdate(next: KubeObject, old: KubeObject): StatusCause[] {
  const causes = validateResourceQuotaSpec(next);
  const scopes = (q: KubeObject) => new Set<unknown>(Array.isArray(q.spec?.scopes) ? q.spec.scopes : []);
  const [a, b] = [scopes(next), scopes(old)];
  if (a.size !== b.size || [...a].some((s) => !b.has(s))) {
    causes.push(fieldImmutable("spec.scopes", next.spec?.scopes ?? null));
  }
  return causes;
}

/** Causes for a status write: `status.hard` and `status.used` as the spec's `hard`. */
export function validateResourceQuotaStatus(quota: KubeObject): StatusCause[] {
  const status: Record<string, Any> = isPlainObject(quota.status) ? quota.status : {};
  return [...quotaListErrors(status.hard, "status.hard"), ...quotaListErrors(status.used, "status.used")];
}
