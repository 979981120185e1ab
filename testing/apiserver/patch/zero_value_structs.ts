/**
 * Which struct fields a built-in kind's Go zero value already holds: the object kube's field manager compares a create
 * with is the zero value of the kind's Go struct, where value (non-pointer) structs are present — empty — and pointer
 * structs, maps and lists are absent. A write that fills a present struct does not add the node itself (no FieldsV1
 * "."), and an empty one is nobody's field; a struct under an absent pointer (a ReplicationController's
 * `*PodTemplateSpec`) is added with everything in it. A value (non-pointer) scalar in those structs holds its zero
 * there — written when it has no `omitempty` (a StorageVersionMigration's `spec.resource.group: ""`), dropped from
 * both objects when it has — so a write that sends the zero changes no field. Custom resources start from an empty
 * object and hold none.
 * @module
 */
import type { FieldPath } from "../../../runtime/apimachinery/managed_fields.ts";
import { type FieldDesc, hasMessage, messageFields, registeredMessage } from "../protobuf_fields.ts";

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

const ZEROS: Readonly<Record<string, unknown>> = {
  string: "",
  bool: false,
  int32: 0,
  int64: 0,
  uint32: 0,
  uint64: 0,
  double: 0,
  float: 0,
};

/** The JSON field `name` of `message`, looking into `json:",inline"` members. */
function jsonField(message: string, name: string): FieldDesc | undefined {
  for (const f of messageFields(message).ordered) {
    if (f.inline && hasMessage(f.type)) {
      const inner = jsonField(f.type, name);
      if (inner) return inner;
    } else if (f.name === name) return f;
  }
  return undefined;
}

/**
 * Whether `value` at `path` is the zero of a value (non-pointer) scalar reached through value structs only, in
 * built-in `apiVersion` `kind`: kube's field manager compares a create with the kind's Go zero value, which holds it
 * (`group: ""` without omitempty) or, as the typed object drops it, neither object has it (`count: 0` with
 * omitempty) — sending it changes no field. False for kinds kube's registry lacks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isGoZeroScalar } from "./zero_value_structs.ts";
 * const path = ["f:spec", "f:resource", "f:group"];
 * assert.equal(isGoZeroScalar(path, "", "storagemigration.k8s.io/v1", "StorageVersionMigration"), true);
 * assert.equal(isGoZeroScalar(path, "apps", "storagemigration.k8s.io/v1", "StorageVersionMigration"), false);
 * assert.equal(isGoZeroScalar(["f:spec", "f:replicas"], 0, "apps/v1", "Deployment"), false); // a pointer
 * assert.equal(isGoZeroScalar(["f:data", "f:a"], "", "v1", "ConfigMap"), false);
 * ```
 */
export function isGoZeroScalar(path: FieldPath, value: unknown, apiVersion: string, kind: string): boolean {
  if (value !== "" && value !== 0 && value !== false) return false;
  let message = registeredMessage(apiVersion, kind);
  if (!message || path.length === 0) return false;
  for (let i = 0; i < path.length; i++) {
    if (!path[i].startsWith("f:")) return false;
    const field = jsonField(message, path[i].slice(2));
    if (!field || field.pointer || field.repeated || field.map) return false;
    if (i === path.length - 1) return ZEROS[field.type] === value;
    if (!hasMessage(field.type)) return false;
    message = field.type;
  }
  return false;
}
