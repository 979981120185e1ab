/**
 * Which fields an object sets, by the fake's schema (patch_meta.ts): the set a manager comes to own. The set itself,
 * its `fieldsV1` conversion and path spelling are runtime/apimachinery/managed_fields.ts; this file adds the
 * schema-driven walk and reading or removing the value at a path (keyed list elements with the server's key
 * defaults).
 * @module
 */

import { isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import { type FieldPath, FieldSet } from "../../../runtime/apimachinery/managed_fields.ts";
import { childMeta, type PatchMeta } from "./patch_meta.ts";

/** `k:` element for a keyed list item: key fields sorted by name, as structured-merge-diff encodes them. */
export function keyElement(
  item: Record<string, unknown>,
  keys: string[],
  defaults: Record<string, unknown> = {},
): string {
  const sorted = [...keys].sort();
  const value = (k: string) => item[k] ?? defaults[k];
  const parts = sorted.filter((k) => value(k) !== undefined).map((k) =>
    `${JSON.stringify(k)}:${JSON.stringify(value(k))}`
  );
  return `k:{${parts.join(",")}}`;
}

/** The top-level and metadata fields the server never attributes to a manager (stripmeta.go). */
const IGNORED: FieldPath[] = [
  ["f:apiVersion"],
  ["f:kind"],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "generation", "managedFields", "resourceVersion"]
    .map((f) => ["f:metadata", `f:${f}`]),
];

/** Options of {@link fieldsOf}. */
export interface FieldsOfOptions {
  /** Leave `status` out (main resource of a kind with a status subresource), or keep only status ("status"). */
  status?: "exclude" | "only" | "include";
  /**
   * The set an applied configuration names (structured-merge-diff's ToFieldSet): an empty keyed list is no field.
   * Otherwise the set a write's result is compared by, where an empty list that Go keeps is a leaf.
   */
  applied?: boolean;
  /** Paths left out with everything below them (the fields a kind's strategy resets: reset_fields.ts). */
  reset?: FieldPath[];
}

/**
 * The set of fields an object sets: scalars, atomic lists/maps and empty maps as leaves; keyed list elements and
 * set members as owned nodes with their children.
 */
export function fieldsOf(obj: unknown, meta: PatchMeta, opts: FieldsOfOptions = {}): FieldSet {
  const set = new FieldSet();
  walk(obj, meta, [], set, opts.applied ?? false);
  for (const p of IGNORED) set.delete(p);
  if (opts.status === "exclude") set.delete(["f:status"], true);
  if (opts.status === "only") { for (const p of set.paths()) if (p[0] !== "f:status") set.delete(p); }
  for (const p of opts.reset ?? []) set.delete(p, true);
  return set;
}

function walk(value: unknown, meta: PatchMeta, path: FieldPath, set: FieldSet, applied: boolean): void {
  if (isPlainObject(value) && !meta.atomic) {
    const entries = Object.entries(value);
    if (entries.length === 0 && path.length > 0) set.add(path);
    for (const [k, v] of entries) {
      if (v === null || v === undefined) continue;
      // A template's empty ObjectMeta is Go's zero value (omitempty): it is no field of anyone's.
      if (k === "metadata" && path.length > 0 && isPlainObject(v) && Object.keys(v).length === 0) continue;
      const child = [...path, `f:${k}`];
      walk(v, childMeta(meta, k), child, set, applied);
      // structured-merge-diff: a map's element (a key no struct field declares) is a field itself (FieldsV1 ".").
      if (meta.values && !meta.fields?.[k] && isPlainObject(v)) set.add(child);
    }
    return;
  }
  if (Array.isArray(value) && !meta.atomic && meta.strategy?.includes("merge")) {
    if (value.length === 0 && meta.keepsEmpty && !applied && path.length > 0) set.add(path);
    if (meta.mergeKeys?.length) {
      for (const item of value) {
        if (!isPlainObject(item)) continue;
        const element = [...path, keyElement(item, meta.mergeKeys, meta.keyDefaults)];
        set.add(element);
        const itemMeta = meta.itemAtomic
          ? { atomic: true }
          : { ...meta, mergeKeys: undefined, strategy: undefined, set: undefined };
        walk(item, itemMeta, element, set, applied);
        set.add(element);
      }
      return;
    }
    if (meta.set) {
      for (const item of value) set.add([...path, `v:${JSON.stringify(item)}`]);
      return;
    }
  }
  if (path.length > 0) set.add(path);
}

/** Key fields the server defaults before comparing keys (ports' protocol); used when a path is resolved. */
const KEY_FIELD_DEFAULTS: Record<string, unknown> = { protocol: "TCP" };

/** Parsed `k:` elements (a write resolves the same few keys for every path under them); cleared past 4 096. */
const keyFieldsCache = new Map<string, ReadonlyArray<readonly [string, unknown]>>();

/** A `k:{...}` element's key fields, parsed once. */
function keyFields(element: string): ReadonlyArray<readonly [string, unknown]> {
  let fields = keyFieldsCache.get(element);
  if (!fields) {
    if (keyFieldsCache.size >= 4096) keyFieldsCache.clear();
    fields = Object.entries(JSON.parse(element.slice(2)) as Record<string, unknown>);
    keyFieldsCache.set(element, fields);
  }
  return fields;
}

/** The value at a path in an object, or undefined. */
export function valueAt(obj: unknown, path: FieldPath): unknown {
  let node = obj;
  for (const e of path) {
    if (node === undefined || node === null) return undefined;
    if (e.startsWith("f:")) {
      node = isPlainObject(node) ? node[e.slice(2)] : undefined;
    } else if (e.startsWith("k:")) {
      const fields = keyFields(e);
      node = Array.isArray(node)
        ? node.find((item) =>
          isPlainObject(item) &&
          fields.every(([k, v]) => {
            const have = item[k] ?? KEY_FIELD_DEFAULTS[k];
            return have === v || (typeof v === "object" && JSON.stringify(have) === JSON.stringify(v));
          })
        )
        : undefined;
    } else if (e.startsWith("v:")) {
      const want = e.slice(2);
      node = Array.isArray(node) ? node.find((item) => JSON.stringify(item) === want) : undefined;
    } else {
      return undefined;
    }
  }
  return node;
}

/** Removes the value at a path from an object in place; returns whether something was removed. */
export function removeAt(obj: unknown, path: FieldPath): boolean {
  if (path.length === 0) return false;
  const parent = valueAt(obj, path.slice(0, -1));
  const last = path[path.length - 1];
  if (last.startsWith("f:") && isPlainObject(parent)) {
    const key = last.slice(2);
    if (!(key in parent)) return false;
    delete parent[key];
    return true;
  }
  if (Array.isArray(parent)) {
    const item = valueAt(parent, [last]);
    const index = parent.indexOf(item);
    if (index < 0) return false;
    parent.splice(index, 1);
    return true;
  }
  return false;
}

/**
 * Removes from `view` (in place) what a step added between `before` and `after` (map keys absent before, recursively;
 * lists count as values): kube computes managedFields before the strategy's PrepareForCreate runs, so fields that
 * step sets (a Job's selector and labels) belong to no manager.
 *
 * @example
 * ```ts
 * import { dropAdded } from "./fieldset.ts";
 * const view = { spec: { a: 1, selector: { x: "y" } } };
 * dropAdded(view, { spec: { a: 1 } }, { spec: { a: 1, selector: { x: "y" } } });
 * // view is { spec: { a: 1 } }
 * ```
 */
export function dropAdded(view: unknown, before: unknown, after: unknown): void {
  if (Array.isArray(view) && Array.isArray(after) && Array.isArray(before)) {
    // Items at the same index (a list admission added fields to, e.g. a container's volumeMounts).
    for (let i = 0; i < Math.min(view.length, before.length, after.length); i++) {
      dropAdded(view[i], before[i], after[i]);
    }
    return;
  }
  if (!isPlainObject(view) || !isPlainObject(after)) return;
  const was = isPlainObject(before) ? before : {};
  for (const [k, v] of Object.entries(after)) {
    if (!(k in was)) delete view[k];
    else if (isPlainObject(v) || Array.isArray(v)) dropAdded(view[k], was[k], v);
  }
}

/**
 * Whether `after` holds a map key (at any depth of maps present in both) that `before` lacks: whether
 * {@link dropAdded} would remove anything, so callers copy the object only then.
 *
 * @example
 * ```ts
 * import { addsKeys } from "./fieldset.ts";
 * addsKeys({ spec: { a: 1, b: 2 } }, { spec: { a: 1 } }); // false: only removed
 * ```
 */
export function addsKeys(before: unknown, after: unknown): boolean {
  if (Array.isArray(after) && Array.isArray(before)) {
    return after.some((item, i) => i < before.length && addsKeys(before[i], item));
  }
  if (!isPlainObject(after)) return false;
  const was = isPlainObject(before) ? before : {};
  for (const [k, v] of Object.entries(after)) {
    if (!(k in was) || ((isPlainObject(v) || Array.isArray(v)) && addsKeys(was[k], v))) return true;
  }
  return false;
}
