/**
 * Resource names as kube-apiserver v1.37's core validation judges them (pkg/apis/core/validation's
 * validateResourceName and its container and quota forms, pkg/apis/core/helper's name sets): a qualified name; a
 * name without a domain must be a standard one; a container may request cpu, memory, ephemeral-storage and
 * hugepages-*; a quota may limit its standard set; names with a domain outside kubernetes.io are extended resources,
 * counted in integers.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { qualifiedNameErrors } from "../../../runtime/apimachinery/names.ts";
import { fieldInvalid } from "./field_errors.ts";

/** Resources counted in whole units (helper's integerResources). */
const INTEGER_RESOURCES = new Set([
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);

/** The computable and countable resources a name without a domain may be (helper's standardResources). */
const STANDARD_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "storage",
  "requests.storage",
  ...INTEGER_RESOURCES,
]);

/** What a ResourceQuota may limit by a name without a domain (helper's standardQuotaResources). */
const QUOTA_RESOURCES = new Set([...STANDARD_RESOURCES].filter((name) => name !== "storage"));

const hugePages = (name: string) => /^(requests\.)?hugepages-/.test(name);

/** helper.IsOvercommitAllowed: a native resource other than huge pages (a request may stay below its limit). */
export function isOvercommitAllowed(name: string): boolean {
  return isNative(name) && !name.startsWith("hugepages-");
}

/** helper.IsNativeResource: no domain, or kubernetes.io's. */
function isNative(name: string): boolean {
  return !name.includes("/") || name.includes("kubernetes.io/");
}

/** helper.IsExtendedResourceName: a domain outside kubernetes.io, usable as a quota's `requests.<name>`. */
export function isExtendedResourceName(name: string): boolean {
  return !isNative(name) && !name.startsWith("requests.") && qualifiedNameErrors(`requests.${name}`).length === 0;
}

/**
 * helper.IsIntegerResourceName: counted in whole units (object counts and extended resources).
 *
 * @example
 * ```ts
 * import { isIntegerResourceName } from "./resource_names.ts";
 * console.assert(isIntegerResourceName("pods") && isIntegerResourceName("example.com/gpu"));
 * console.assert(!isIntegerResourceName("requests.cpu"));
 * ```
 */
export function isIntegerResourceName(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
}

/** validateResourceName: causes for a name that is not qualified, or has no domain and is not a standard one. */
export function resourceNameErrors(name: string, path: string): StatusCause[] {
  const qualified = qualifiedNameErrors(name).map((msg) => fieldInvalid(path, name, msg));
  if (qualified.length > 0) return qualified;
  if (!name.includes("/") && !STANDARD_RESOURCES.has(name) && !hugePages(name)) {
    return [fieldInvalid(path, name, "must be a standard resource type or fully qualified")];
  }
  return [];
}

/** ValidateContainerResourceName: a resource name a container may request or limit. */
export function containerResourceNameErrors(name: string, path: string): StatusCause[] {
  const causes = resourceNameErrors(name, path);
  if (!name.includes("/")) {
    if (!["cpu", "memory", "ephemeral-storage"].includes(name) && !name.startsWith("hugepages-")) {
      causes.push(fieldInvalid(path, name, "must be a standard resource for containers"));
    }
  } else if (!isNative(name) && !isExtendedResourceName(name)) {
    causes.push(fieldInvalid(path, name, "doesn't follow extended resource name standard"));
  }
  return causes;
}

/**
 * ValidateResourceQuotaResourceName: a resource name a ResourceQuota may limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quotaResourceNameErrors } from "./resource_names.ts";
 * assert.deepEqual(quotaResourceNameErrors("count/deployments.apps", "spec.hard[count/deployments.apps]"), []);
 * assert.equal(quotaResourceNameErrors("storage", "spec.hard[storage]")[0].message,
 *   'Invalid value: "storage": must be a standard resource for quota');
 * ```
 */
export function quotaResourceNameErrors(name: string, path: string): StatusCause[] {
  const causes = resourceNameErrors(name, path);
  if (!name.includes("/") && !QUOTA_RESOURCES.has(name) && !/^requests\.hugepages-|^hugepages-/.test(name)) {
    causes.push(fieldInvalid(path, name, "must be a standard resource for quota"));
  }
  return causes;
}
