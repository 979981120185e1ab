/**
 * Which struct fields a built-in kind's Go zero value already holds: the object kube's field manager compares a create
 * with is the zero value of the kind's Go struct, where value (non-pointer) structs are present — empty — and pointer
 * structs, maps and lists are absent. A write that fills a present struct does not add the node itself (no FieldsV1
 * "."), and an empty one is nobody's field; a struct under an absent pointer (a ReplicationController's
 * `*PodTemplateSpec`) is added with everything in it. Custom resources start from an empty object and hold none.
 * @module
 */
import type { FieldPath } from "../../../runtime/apimachinery/managed_fields.ts";

/** Value-struct fields of k8s.io/api structs, by JSON name (a name here is a value struct wherever it occurs). */
const VALUE_STRUCT_FIELDS = new Set([
  "f:metadata",
  "f:spec",
  "f:status",
  "f:template",
  "f:jobTemplate",
  "f:strategy",
  "f:updateStrategy",
  "f:containers",
  "f:names",
  // PersistentVolumeClaimSpec.Resources, VolumeAttachmentSpec.Source / core Event.Source, ResourceSliceSpec.Pool,
  // DeviceTaintRuleSpec.Taint, HPA v2 ScaleTargetRef, StorageVersionMigrationSpec.Resource,
  // FlowSchemaSpec.PriorityLevelConfiguration, NetworkPolicySpec.PodSelector.
  "f:resources",
  "f:source",
  "f:pool",
  "f:taint",
  "f:scaleTargetRef",
  "f:resource",
  "f:priorityLevelConfiguration",
  "f:podSelector",
]);

/** Pointer structs whose JSON name is a value struct elsewhere, by kind: `Kind` → paths. */
const POINTER_STRUCTS: Record<string, string[]> = {
  ReplicationController: ["f:spec/f:template"],
};

/**
 * Whether `path` is a struct present in the Go zero value of built-in `kind` (see the module doc); always false for
 * custom resources.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inGoZeroValue } from "./zero_value_structs.ts";
 * assert.equal(inGoZeroValue(["f:spec", "f:template"], "Deployment", false), true);
 * assert.equal(inGoZeroValue(["f:spec", "f:template"], "ReplicationController", false), false);
 * assert.equal(inGoZeroValue(["f:spec", "f:template", "f:spec"], "ReplicationController", false), false);
 * ```
 */
export function inGoZeroValue(path: FieldPath, kind: string, custom: boolean): boolean {
  if (path.length === 1 && path[0] === "f:metadata") return true;
  if (custom || path.length === 0) return custom ? false : true;
  for (let i = 1; i <= path.length; i++) {
    const last = path[i - 1];
    if (!VALUE_STRUCT_FIELDS.has(last)) return false;
    if (POINTER_STRUCTS[kind]?.includes(path.slice(0, i).join("/"))) return false;
  }
  return true;
}
