/**
 * managedFields of writes other than a client's own create, update or patch of the main resource: the `scale`
 * subresource's (kube's ScaleHandler), which updates leave an object's entries alone or reset them, and status writes of
 * the fake's controllers that store without the commit path.
 * @module
 */
import { type FieldPath, FieldSet, type ManagedFieldsEntry } from "../../../runtime/apimachinery/managed_fields.ts";
import type { ResourceDef } from "../resource_def.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { managedFieldsAfterUpdate, readEntries, sameEntry, writeEntries } from "./apply.ts";

/**
 * The managedFields after a write of the `scale` subresource changed the replicas at `replicasPath` (kube's
 * ScaleHandler): every entry loses the path (entries left empty go), and `manager`'s Update entry with subresource
 * `scale` owns it — without a time, as kube records scale entries. An object without entries stays untracked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { managedFieldsAfterScale } from "./managed_fields_writes.ts";
 * const entries = managedFieldsAfterScale([{ manager: "create", operation: "Update", apiVersion: "apps/v1",
 *   time: "2025-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } } }],
 *   "kubectl", ["f:spec", "f:replicas"], "apps/v1");
 * assert.deepEqual(entries.map((e) => [e.manager, e.subresource, e.time]), [["kubectl", "scale", undefined]]);
 * ```
 */
export function managedFieldsAfterScale(
  stored: readonly unknown[] | undefined,
  manager: string,
  replicasPath: FieldPath,
  apiVersion: string,
): ManagedFieldsEntry[] {
  const entries = readEntries({ metadata: { managedFields: [...(stored ?? [])] } });
  if (entries.length === 0) return [];
  for (const e of entries) e.set.delete(replicasPath, true);
  let mine = entries.find((e) => sameEntry(e.raw, manager, "Update", "scale"));
  if (!mine) {
    mine = {
      raw: { manager, operation: "Update", apiVersion, fieldsType: "FieldsV1", fieldsV1: {}, subresource: "scale" },
      set: new FieldSet(),
    };
    entries.push(mine);
  }
  mine.set.add(replicasPath);
  return writeEntries(entries);
}

/**
 * Whether an update records its writer in managedFields (kube's FieldManager.Update): an object stored without any
 * entries (created with no fields to own, or reset) stays untracked by non-apply writes unless the write itself sends
 * entries. A write that sends a list without one valid entry (`[]`, `[{}]`) resets them: it deletes them from `next`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { updateTracksManagedFields } from "./managed_fields_writes.ts";
 * const next = { metadata: { name: "x", managedFields: [] } };
 * assert.equal(updateTracksManagedFields({ metadata: { name: "x" } }, next), false);
 * assert.equal(next.metadata.managedFields, undefined);
 * ```
 */
export function updateTracksManagedFields(old: KubeObject, next: KubeObject): boolean {
  const sent = next.metadata.managedFields;
  if (sent === undefined) return Array.isArray(old.metadata.managedFields) && old.metadata.managedFields.length > 0;
  const valid = Array.isArray(sent) &&
    sent.some((e) => e && typeof e === "object" && typeof (e as { manager?: unknown }).manager === "string");
  if (!valid) delete next.metadata.managedFields;
  return valid;
}

/**
 * Records a controller's write of `after`'s status (from `before`) in `after.metadata.managedFields`, as kube's field
 * manager records a status update by `manager` — for controllers that store objects without the commit path: the
 * entries are `before`'s as the write changes them (whatever `after` carries is replaced). An object without entries
 * stays untracked.
 */
export function recordStatusWrite(
  before: KubeObject,
  after: KubeObject,
  manager: string,
  nowIso: string,
  def: ResourceDef,
): void {
  delete after.metadata.managedFields;
  if (!Array.isArray(before.metadata.managedFields) || before.metadata.managedFields.length === 0) return;
  const entries = managedFieldsAfterUpdate(before, after, manager, nowIso, "Update", {
    subresource: "status",
    statusSubresource: true,
    def,
  });
  if (entries.length > 0) after.metadata.managedFields = entries;
  else delete after.metadata.managedFields;
}
