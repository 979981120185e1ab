/**
 * Which fields a write changed: the set the field manager gives the writer of a non-apply write (and that server-side
 * apply compares other versions' owners by), with Go's zero-value structs and the containers a write added as
 * structured-merge-diff sees them.
 * @module
 */
import { type FieldPath, FieldSet } from "../../../runtime/apimachinery/managed_fields.ts";
import { deepEqual, isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldsOf, type FieldsOfOptions, valueAt } from "./fieldset.ts";
import type { PatchMeta } from "./patch_meta.ts";
import { inGoZeroValue, isGoZeroScalar } from "./zero_value_structs.ts";

/**
 * The fields a write from `before` to `after` added or changed, with the containers it added (FieldsV1 "."), as
 * structured-merge-diff's compare finds them for the field manager of a non-apply write.
 *
 * @example
 * ```ts
 * import { changedFields } from "./changed_fields.ts";
 * import { patchMetaFor } from "./patch_meta.ts";
 * const meta = patchMetaFor({ group: "", kind: "ConfigMap", custom: false });
 * const before = { metadata: { name: "c" }, data: { a: "1" } };
 * const after = { metadata: { name: "c" }, data: { a: "1", b: "2" } };
 * const changed = changedFields(before, after, meta, {}, "ConfigMap", false);
 * console.assert(changed.has(["f:data", "f:b"]) && !changed.has(["f:data", "f:a"]));
 * ```
 */
export function changedFields(
  before: KubeObject | undefined,
  after: KubeObject,
  meta: PatchMeta,
  fields: FieldsOfOptions,
  kind: string,
  custom: boolean,
): FieldSet {
  const afterSet = fieldsOf(after, meta, fields);
  const beforeSet = before ? fieldsOf(before, meta, fields) : new FieldSet();
  const changed = new FieldSet();
  for (const p of afterSet.paths()) {
    const now = valueAt(after, p); // each path's two values found once (a keyed element's lookup is a list scan)
    // An empty struct (`metadata: {}`, a built-in kind's `spec: {}`) is its Go zero value, which the new object the
    // write is compared with has too.
    if (isZeroStruct(p, now, kind, custom)) continue;
    // So is a value scalar holding its zero (`group: ""`, `count: 0`), which a create's zero object has (or drops).
    const was = valueAt(before, p);
    if (!custom && was === undefined && isGoZeroScalar(p, now, after.apiVersion ?? "", kind)) continue;
    if (!beforeSet.has(p) || !deepEqual(was, now)) {
      const last = p[p.length - 1];
      // A keyed element (or a map's element holding fields) whose children changed is not itself a change, unless
      // it is new.
      const element = last.startsWith("k:") || last.startsWith("v:") || isNonEmptyObject(now);
      if (element && beforeSet.has(p)) continue;
      changed.add(p);
    }
  }
  // structured-merge-diff's compare marks every node the write added, containers included (FieldsV1 ".").
  for (const p of [...changed.paths()]) {
    for (let i = 1; i < p.length; i++) {
      const q = p.slice(0, i);
      if (!changed.has(q) && isAddedContainer(before, after, q, kind, custom)) changed.add(q);
    }
  }
  return changed;
}

function isNonEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length > 0;
}

function isZeroStruct(path: FieldPath, value: unknown, kind: string, custom: boolean): boolean {
  if (!isPlainObject(value) || Object.keys(value).length > 0) return false;
  return inGoZeroValue(path, kind, custom);
}

function isAddedContainer(
  before: KubeObject | undefined,
  after: KubeObject,
  path: FieldPath,
  kind: string,
  custom: boolean,
): boolean {
  const last = path[path.length - 1];
  if (!last.startsWith("f:")) return false;
  if (inGoZeroValue(path, kind, custom)) return false;
  const was = valueAt(before, path);
  if (was !== undefined && was !== null) return false;
  const now = valueAt(after, path);
  // A list stored as null (Go's nil slice, e.g. a new CRD's status.conditions) was there already: filling it is
  // no added container (kube's establishing controller owns no "." of the conditions it writes).
  if (was === null && Array.isArray(now)) return false;
  return typeof now === "object" && now !== null;
}
