/**
 * Server-side apply field ownership for llamas: `metadata.managedFields` recorded per manager and operation, and
 * apply conflicts answered 409 as kube-apiserver does. A minimal implementation of structured-merge-diff's rules for
 * the Llama's shape (the fake API server's testing/apiserver/patch/apply.ts is the general one; both share field sets, the
 * fieldsV1 encoding and kube's conflict message from runtime/apimachinery/managed_fields.ts). The rules, as kube applies them:
 *
 * 1. A field is a leaf path: `spec.<field>`, `metadata.labels.<key>`, `metadata.annotations.<key>` (the only
 *    fields a client sets on a Llama). FieldsV1 lists leaves only (no `"."` entries for the maps themselves).
 * 2. Create (POST) by manager M: M's `Update` entry owns every leaf of the new object; an apply that creates: M's
 *    `Apply` entry owns every leaf of its configuration.
 * 3. Update, merge and JSON patch by manager U never conflict: the leaves whose value they add, change or remove
 *    leave every other entry; added or changed leaves join U's `Update` entry.
 * 4. Apply by manager M with configuration C: a leaf of C whose value differs from the live one and that another
 *    entry owns (any manager or operation, M's own `Update` entry included) is a conflict: 409 reason Conflict, causes
 *    FieldManagerConflict, kube's message (`Apply failed with 1 conflict: conflict with "x" using
 *    farm.example.com/v1alpha: .spec.weight`) — unless `force=true`, which moves those leaves to M. A leaf whose value
 *    C repeats is shared. Leaves M applied before and C omits are removed from the object unless another entry owns
 *    them. M's `Apply` entry then owns exactly the leaves of C.
 *    As kube's lastAppliedManager, an apply by `kubectl` whose conflicts all lie in the object's
 *    last-applied-configuration annotation (fields a client-side apply set) takes them over as if forced.
 * 5. Entries left without fields are dropped. The manager of an apply is the required `fieldManager` (400 without
 *    it); of other writes `fieldManager`, else the User-Agent up to its first `/`, else `unknown`.
 * Not done: managedFields sent in a PUT/patch body are ignored (kube would take them as the new value).
 * @module
 */
import { deepEqual, isPlainObject } from "../runtime/apimachinery/equality.ts";
import {
  applyConflictStatus,
  FieldSet,
  fromFieldsV1,
  LAST_APPLIED_ANNOTATION as LAST_APPLIED,
  type ManagedFieldsEntry,
  pathString,
  toFieldsV1,
} from "../runtime/apimachinery/managed_fields.ts";
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import { FARM_API_VERSION, type Llama } from "./llama.ts";
import { copyJson } from "../runtime/apimachinery/json_copy.ts";

type Leaves = Map<string, unknown>;
const OWNED_ROOTS = [["spec"], ["metadata", "labels"], ["metadata", "annotations"]];

/** Every leaf of `obj` under the owned roots, by dotted path (`.spec.weight`, `.metadata.labels.app`). */
function leavesOf(obj: Llama): Leaves {
  const leaves: Leaves = new Map();
  const walk = (value: unknown, path: string[]) => {
    if (isPlainObject(value)) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, [...path, k]);
    } else if (value !== undefined) leaves.set(JSON.stringify(path), value);
  };
  for (const root of OWNED_ROOTS) {
    let value: unknown = obj;
    for (const k of root) value = isPlainObject(value) ? (value as Record<string, unknown>)[k] : undefined;
    walk(value, root);
  }
  return leaves;
}

/** A leaf's dotted-path key as a FieldsV1 path (`["f:spec", "f:weight"]`), and back. */
const fieldPath = (key: string) => (JSON.parse(key) as string[]).map((k) => `f:${k}`);
const leafKey = (path: string[]) => JSON.stringify(path.map((e) => e.slice(2)));

interface Entry {
  raw: ManagedFieldsEntry;
  set: Set<string>;
}

function entriesOf(obj: Llama | undefined): Entry[] {
  const raw = (obj?.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  return raw.map((e) => ({ raw: { ...e }, set: new Set(fromFieldsV1(e.fieldsV1).paths().map(leafKey)) }));
}

function written(entries: Entry[]): ManagedFieldsEntry[] {
  return entries.filter((e) => e.set.size > 0).map((e) => ({
    ...e.raw,
    fieldsV1: toFieldsV1(new FieldSet([...e.set].map(fieldPath))),
  }));
}

function entryFor(entries: Entry[], manager: string, operation: "Apply" | "Update", time: string): Entry {
  let entry = entries.find((e) => e.raw.manager === manager && e.raw.operation === operation);
  if (!entry) {
    entry = {
      raw: { manager, operation, apiVersion: FARM_API_VERSION, time, fieldsType: "FieldsV1", fieldsV1: {} },
      set: new Set(),
    };
    entries.push(entry);
  }
  entry.raw.time = time;
  return entry;
}

/** The manager of a non-apply write: `fieldManager`, else the User-Agent before its first `/`, else `unknown`. */
export function managerOf(fieldManager: string | null, userAgent: string | null): string {
  if (fieldManager) return fieldManager;
  const prefix = (userAgent ?? "").split("/")[0].trim().slice(0, 128);
  return prefix || "unknown";
}

/**
 * managedFields after a create, update or patch by `manager` (rules 2, 3): `previous` undefined for a create.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordUpdate } from "./field_ownership.ts";
 * import type { Llama } from "./llama.ts";
 * const created: Llama = {
 *   apiVersion: "farm.example.com/v1alpha",
 *   kind: "Llama",
 *   metadata: { name: "x" },
 *   spec: { weight: 1, height: 2 },
 * };
 * const fields = recordUpdate(undefined, created, "kubectl", "2026-01-01T00:00:00Z");
 * assert.deepEqual(fields[0].fieldsV1, { "f:spec": { "f:height": {}, "f:weight": {} } });
 * ```
 */
export function recordUpdate(
  previous: Llama | undefined,
  next: Llama,
  manager: string,
  time: string,
): ManagedFieldsEntry[] {
  const entries = entriesOf(previous);
  const before = previous ? leavesOf(previous) : new Map<string, unknown>();
  const after = leavesOf(next);
  const mine = entryFor(entries, manager, "Update", time);
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    if (before.has(key) && after.has(key) && deepEqual(before.get(key), after.get(key))) continue;
    for (const e of entries) if (e !== mine) e.set.delete(key);
    if (after.has(key)) mine.set.add(key);
    else mine.set.delete(key);
  }
  return written(entries);
}

/**
 * Server-side apply of `config` by `manager` onto `current` (rule 4): the object to store, with its managedFields.
 * Throws 409 Conflict (FieldManagerConflict causes) when `config` changes fields other managers own and `force` is
 * false.
 */
export function applyConfiguration(
  current: Llama,
  config: Llama,
  opts: { manager: string; force: boolean; time: string },
): Llama {
  const entries = entriesOf(current);
  const live = leavesOf(current);
  const wanted = leavesOf(config);
  const mine = entryFor(entries, opts.manager, "Apply", opts.time);
  const conflicts: { entry: Entry; key: string }[] = [];
  for (const [key, value] of wanted) {
    if (live.has(key) && deepEqual(live.get(key), value)) continue;
    for (const e of entries) if (e !== mine && e.set.has(key)) conflicts.push({ entry: e, key });
  }
  if (conflicts.length > 0 && !opts.force && !upgradesClientSideApply(current, opts.manager, conflicts)) {
    throw conflictError(conflicts);
  }
  for (const c of conflicts) c.entry.set.delete(c.key);

  const result = copyJson(current);
  const setAt = (key: string, value: unknown) => {
    const path = JSON.parse(key) as string[];
    let node = result as unknown as Record<string, unknown>;
    for (const k of path.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
    if (value === undefined) delete node[path[path.length - 1]];
    else node[path[path.length - 1]] = copyJson(value);
  };
  for (const key of mine.set) {
    if (!wanted.has(key) && !entries.some((e) => e !== mine && e.set.has(key))) setAt(key, undefined);
  }
  for (const [key, value] of wanted) setAt(key, value);
  mine.set = new Set(wanted.keys());
  for (const map of ["labels", "annotations"] as const) {
    if (result.metadata[map] && Object.keys(result.metadata[map]!).length === 0) delete result.metadata[map];
  }
  result.metadata.managedFields = written(entries);
  return result;
}

/**
 * kube's lastAppliedManager: `kubectl apply --server-side` (manager `kubectl`) after client-side applies takes over
 * the conflicting fields when every one of them is in the last-applied-configuration annotation.
 */
function upgradesClientSideApply(current: Llama, manager: string, conflicts: { key: string }[]): boolean {
  const annotation = current.metadata.annotations?.[LAST_APPLIED];
  if (manager !== "kubectl" || !annotation) return false;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(annotation);
  } catch {
    return false;
  }
  if (!isPlainObject(lastApplied)) return false;
  const allowed = leavesOf(lastApplied as unknown as Llama);
  return conflicts.every((c) => allowed.has(c.key));
}

function conflictError(unsorted: { entry: Entry; key: string }[]): ApiError {
  // structured-merge-diff reports conflicts in field-path order.
  const conflicts = unsorted.map((c) => ({ entry: c.entry.raw, path: fieldPath(c.key) }))
    .toSorted((a, b) => pathString(a.path) < pathString(b.path) ? -1 : 1);
  const { message, causes } = applyConflictStatus(conflicts);
  return new ApiError(
    failureStatus(409, "Conflict", message, { causes }),
    { verb: "patch", resource: "llamas.farm.example.com" },
  );
}
