/**
 * Server-side apply (`application/apply-patch+yaml`) and managedFields bookkeeping, after structured-merge-diff as
 * kube-apiserver uses it: the applied configuration merges into the live object (keyed lists by key, set lists as
 * sets, atomic lists replaced), the applier owns exactly what it applied, fields it stops applying and nobody else
 * owns are removed, and changing a field another manager owns is a 409 Conflict unless `force` takes it over.
 * Non-apply writes are recorded with {@link recordUpdateManagedFields} so later applies see their ownership.
 * @module
 */

import { resourceId } from "../../../runtime/apimachinery/names.ts";
import { ApiError, failureStatus } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceDef } from "../resource_def.ts";
import {
  applyConflictStatus,
  type FieldPath,
  FieldSet,
  fromFieldsV1,
  isPrefix,
  LAST_APPLIED_ANNOTATION as LAST_APPLIED,
  type ManagedFieldsEntry,
  toFieldsV1,
} from "../../../runtime/apimachinery/managed_fields.ts";
import { fieldsOf, removeAt, valueAt } from "./fieldset.ts";
import { deepEqual, isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import { childMeta, type PatchMeta, patchMetaFor } from "./patch_meta.ts";
import { compareStrings } from "../../../runtime/apimachinery/string_order.ts";
import { inGoZeroValue, isGoZeroScalar } from "./zero_value_structs.ts";

/** Options of {@link serverSideApply}. */
export interface ServerSideApplyOptions {
  fieldManager: string;
  force: boolean;
  /** Server time for the managedFields entry (RFC3339). */
  nowIso: string;
  def: ResourceDef;
  /** "status" when applied through the status subresource. */
  subresource?: string;
}

/** A managedFields entry and its field set. */
export interface Entry {
  raw: ManagedFieldsEntry;
  set: FieldSet;
}

/** The valid entries of `obj`'s managedFields with their field sets. */
export function readEntries(obj: KubeObject | undefined): Entry[] {
  const list = (obj?.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  return list.filter((e) => e && typeof e.manager === "string")
    .map((raw) => ({ raw: structuredClone(raw), set: fromFieldsV1(raw.fieldsV1 ?? {}) }));
}

/** The entries with a non-empty set, in kube's order (managedfields.go sortEncodedManagedFields). */
export function writeEntries(entries: Entry[]): ManagedFieldsEntry[] {
  const seconds = (e: Entry) => e.raw.time ? Math.floor(Date.parse(e.raw.time) / 1000) : 0;
  const order = (a: Entry, b: Entry): number =>
    compareStrings(a.raw.operation, b.raw.operation) || seconds(a) - seconds(b) ||
    compareStrings(a.raw.manager, b.raw.manager) ||
    compareStrings(a.raw.apiVersion, b.raw.apiVersion) ||
    compareStrings(a.raw.subresource ?? "", b.raw.subresource ?? "");
  return entries.filter((e) => e.set.size > 0).sort(order).map((e) => ({
    ...e.raw,
    fieldsType: "FieldsV1",
    fieldsV1: toFieldsV1(e.set),
  }));
}

/** Whether `raw` is the entry of `manager`, `operation` and `subresource`. */
export function sameEntry(raw: ManagedFieldsEntry, manager: string, operation: string, subresource?: string): boolean {
  return raw.manager === manager && raw.operation === operation && (raw.subresource ?? "") === (subresource ?? "");
}

function conflictError(
  conflicts: { entry: ManagedFieldsEntry; path: FieldPath }[],
  opts: ServerSideApplyOptions,
): ApiError {
  const { message, causes } = applyConflictStatus(conflicts);
  return new ApiError(
    failureStatus(409, "Conflict", message, { causes }),
    { verb: "patch", resource: resourceId(opts.def) },
  );
}

/** Merges the applied configuration into the live value. */
function mergeApplied(live: unknown, applied: unknown, meta: PatchMeta): unknown {
  if (isPlainObject(applied) && isPlainObject(live) && !meta.atomic) {
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) continue;
      out[k] = mergeApplied(live[k], v, childMeta(meta, k));
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live) && !meta.atomic && meta.strategy?.includes("merge")) {
    const keys = meta.mergeKeys;
    if (keys?.length) {
      const itemMeta: PatchMeta = { fields: meta.fields };
      const defaults = meta.keyDefaults ?? {};
      const out = live.map((x) => structuredClone(x));
      for (const item of applied) {
        if (!isPlainObject(item)) continue;
        const index = out.findIndex((o) =>
          isPlainObject(o) &&
          keys.every((k) => deepEqual(o[k] ?? defaults[k], item[k] ?? defaults[k]))
        );
        if (index >= 0) out[index] = mergeApplied(out[index], item, itemMeta);
        else out.push(mergeApplied(undefined, item, itemMeta));
      }
      return out;
    }
    if (meta.set) {
      const out = [...live];
      for (const item of applied) if (!out.some((o) => deepEqual(o, item))) out.push(item);
      return out;
    }
  }
  if (isPlainObject(applied) && !meta.atomic) return mergeApplied({}, applied, meta);
  return structuredClone(applied);
}

/** Drops maps left empty by removals, unless someone owns them. */
function pruneEmptyParents(obj: unknown, path: FieldPath, owned: (p: FieldPath) => boolean): void {
  for (let depth = path.length - 1; depth > 0; depth--) {
    const parentPath = path.slice(0, depth);
    const parent = valueAt(obj, parentPath);
    if (!isPlainObject(parent) || Object.keys(parent).length > 0 || owned(parentPath)) return;
    removeAt(obj, parentPath);
  }
}

/** JSON with object keys sorted, as Go encodes an unstructured map. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Fields of the last-applied-configuration whose live values still match it. */
function allowedFromLastApplied(
  current: KubeObject,
  meta: PatchMeta,
  status: "exclude" | "only" | "include",
): FieldSet {
  const text = current.metadata.annotations?.[LAST_APPLIED];
  if (!text) return new FieldSet();
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return new FieldSet();
  }
  if (!isPlainObject(lastApplied) || lastApplied.apiVersion !== current.apiVersion) return new FieldSet();
  const set = fieldsOf(lastApplied, meta, { status });
  for (const p of set.paths()) {
    if (!deepEqual(valueAt(lastApplied, p), valueAt(current, p))) set.delete(p);
  }
  return set;
}

function statusMode(def: ResourceDef, subresource?: string): "exclude" | "only" | "include" {
  if (subresource === "status") return "only";
  return def.subresources.includes("status") ? "exclude" : "include";
}

/**
 * Applies `applied` (the body of an apply patch) to `current` (undefined: the object does not exist and is
 * created) and returns the new object with updated `metadata.managedFields`. Throws 409 Conflict (causes
 * `FieldManagerConflict`) when the applier would change fields owned by other managers and `force` is false.
 * Server-owned metadata (uid, resourceVersion, creationTimestamp, ...) is kept from `current`.
 *
 * @example
 * ```ts
 * import { serverSideApply } from "./apply.ts";
 * import type { ResourceDef } from "../resource_def.ts";
 * const def = { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", subresources: [],
 *   custom: false } as unknown as ResourceDef;
 * const cm = serverSideApply(undefined, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" },
 *   data: { a: "1" } }, { fieldManager: "kubectl", force: false, nowIso: "2025-01-01T00:00:00Z", def });
 * // cm.metadata.managedFields[0].fieldsV1 is { "f:data": { "f:a": {} } }
 * ```
 */
export function serverSideApply(
  current: KubeObject | undefined,
  applied: KubeObject,
  opts: ServerSideApplyOptions,
): KubeObject {
  const meta = patchMetaFor(opts.def);
  const status = statusMode(opts.def, opts.subresource);
  const appliedClean = structuredClone(applied);
  if (appliedClean.metadata) {
    delete appliedClean.metadata.managedFields;
    delete appliedClean.metadata.resourceVersion;
  }
  const newSet = fieldsOf(appliedClean, meta, { status });
  const entries = readEntries(current);
  const mine = entries.find((e) => sameEntry(e.raw, opts.fieldManager, "Apply", opts.subresource));
  const others = entries.filter((e) => e !== mine);

  // Conflicts: fields the applier sets to a different value than live, owned by another manager.
  const conflicts: { entry: ManagedFieldsEntry; path: FieldPath; owner: Entry }[] = [];
  if (current) {
    for (const path of newSet.paths()) {
      if (path[path.length - 1].startsWith("k:") || path[path.length - 1].startsWith("v:")) continue;
      const live = valueAt(current, path);
      if (live === undefined || deepEqual(live, valueAt(appliedClean, path))) continue;
      for (const owner of others) {
        if (owner.raw.manager === opts.fieldManager && owner.raw.operation === "Update") continue;
        if (owner.set.has(path)) conflicts.push({ entry: owner.raw, path, owner });
      }
    }
  }
  let blocking = conflicts;
  if (conflicts.length > 0 && !opts.force && opts.fieldManager === "kubectl" && current) {
    // lastappliedmanager.go: kubectl's server-side apply may take over fields a client-side apply set, as long as
    // the live value still equals the last-applied-configuration.
    const allowed = allowedFromLastApplied(current, meta, status);
    blocking = conflicts.filter((c) => !allowed.has(c.path));
  }
  if (blocking.length > 0 && !opts.force) throw conflictError(blocking, opts);
  for (const c of conflicts) c.owner.set.delete(c.path);

  // Merge, then remove what this manager applied before, no longer applies, and nobody else owns.
  let result: KubeObject;
  if (current) {
    result = mergeApplied(current, appliedClean, meta) as KubeObject;
  } else {
    result = mergeApplied({}, appliedClean, meta) as KubeObject;
  }
  const ownedByOthers = (p: FieldPath) => others.some((o) => o.set.has(p) || o.set.paths().some((q) => isPrefix(p, q)));
  if (mine && current) {
    const dropped = mine.set.paths().filter((p) => !newSet.has(p) && !ownedByOthers(p))
      .sort((a, b) => a.length - b.length);
    for (const p of dropped) {
      if (newSet.paths().some((q) => isPrefix(p, q))) continue; // still applied below this node
      if (removeAt(result, p)) pruneEmptyParents(result, p, (q) => newSet.has(q) || ownedByOthers(q));
    }
  }

  // Server-owned metadata comes from the live object.
  if (current) {
    for (const key of ["uid", "resourceVersion", "creationTimestamp", "generation", "deletionTimestamp"] as const) {
      if (current.metadata[key] !== undefined) {
        (result.metadata as Record<string, unknown>)[key] = current.metadata[key];
      }
    }
  }
  const apiVersion = applied.apiVersion ??
    (opts.def.group ? `${opts.def.group}/${opts.def.version}` : opts.def.version);
  const entry: Entry = {
    raw: {
      manager: opts.fieldManager,
      operation: "Apply",
      apiVersion,
      time: opts.nowIso,
      fieldsType: "FieldsV1",
      fieldsV1: {},
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    },
    set: newSet,
  };
  const next = mine ? entries.map((e) => e === mine ? entry : e) : [...entries, entry];
  // lastappliedupdater.go: kubectl's server-side apply keeps an existing last-applied annotation in sync.
  if (opts.fieldManager === "kubectl" && result.metadata.annotations?.[LAST_APPLIED]) {
    const config = structuredClone(appliedClean);
    if (config.metadata?.annotations) {
      delete config.metadata.annotations[LAST_APPLIED];
      if (Object.keys(config.metadata.annotations).length === 0) delete config.metadata.annotations;
    }
    result.metadata.annotations = { ...result.metadata.annotations, [LAST_APPLIED]: `${sortedJson(config)}\n` };
  }
  result.metadata = { ...result.metadata, managedFields: writeEntries(next) };
  return result;
}

/** Options of {@link recordUpdateManagedFields}. */
export interface RecordUpdateOptions {
  /** "status" for writes through the status subresource. */
  subresource?: string;
  /** The kind has a status subresource: main-resource writers do not own status. */
  statusSubresource?: boolean;
  /** The resource, so lists are tracked with the same keys apply uses (CRD schemas); default: built-in table. */
  def?: ResourceDef;
  /**
   * The write's objects in another version, for the entries recorded in it: kube's field manager compares each other
   * manager's fields in its entry's version (structured-merge-diff's Updater converts both objects to it). Undefined
   * when kube's converter cannot reach that version — its type converter holds the request group's types only, so an
   * events.k8s.io/v1 entry of an Event written through core v1 — and the entry goes (IsMissingVersionError). Without
   * this option every entry is compared in the write's version.
   */
  inVersion?: (apiVersion: string) => { before: KubeObject | undefined; after: KubeObject } | undefined;
}

/**
 * Records a non-apply write (create, update, JSON/merge/strategic patch) in managedFields: the writer's `Update`
 * entry gains the fields it changed (all fields on create), other managers lose them, and fields that disappeared
 * are dropped from every entry. Returns a copy of `after` with the new `metadata.managedFields`.
 *
 * @example
 * ```ts
 * import { recordUpdateManagedFields } from "./apply.ts";
 * const after = recordUpdateManagedFields(undefined, { apiVersion: "v1", kind: "ConfigMap",
 *   metadata: { name: "x" }, data: { a: "1" } }, "kubectl-create", "2025-01-01T00:00:00Z");
 * // after.metadata.managedFields[0].manager is "kubectl-create", operation "Update"
 * ```
 */
export function recordUpdateManagedFields(
  before: KubeObject | undefined,
  after: KubeObject,
  manager: string,
  nowIso: string,
  operation: "Update" | "Apply" = "Update",
  opts: RecordUpdateOptions = {},
): KubeObject {
  const result = structuredClone(after);
  result.metadata = {
    ...result.metadata,
    managedFields: managedFieldsAfterUpdate(before, after, manager, nowIso, operation, opts),
  };
  return result;
}

/**
 * The `metadata.managedFields` {@link recordUpdateManagedFields} would set, without copying the object (neither
 * argument is modified).
 */
export function managedFieldsAfterUpdate(
  before: KubeObject | undefined,
  after: KubeObject,
  manager: string,
  nowIso: string,
  operation: "Update" | "Apply" = "Update",
  opts: RecordUpdateOptions = {},
): ManagedFieldsEntry[] {
  const version = after.apiVersion ?? "v1";
  const changed = changedFields(before, after, opts);
  // Other managers' fields are compared in their entries' versions (one comparison per version).
  type Comparison = { changed: FieldSet; after: KubeObject } | undefined;
  const comparisons = new Map<string, Comparison>([[version, { changed, after }]]);
  const comparisonIn = (apiVersion: string): Comparison => {
    if (!opts.inVersion) return comparisons.get(version);
    if (!comparisons.has(apiVersion)) {
      const other = opts.inVersion(apiVersion);
      const compared = other && { changed: changedFields(other.before, other.after, opts), after: other.after };
      comparisons.set(apiVersion, compared);
    }
    return comparisons.get(apiVersion);
  };
  // A write that sends managedFields replaces them (kubectl's SSA migration does); one without keeps the old ones.
  const all = readEntries(Array.isArray(after.metadata?.managedFields) ? after : before);
  const entries: Entry[] = [];
  for (const e of all) {
    // The writer's own entry loses what the write removed in the write's version (its set moves to that version).
    const own = sameEntry(e.raw, manager, operation, opts.subresource);
    const compared = comparisonIn(own ? version : e.raw.apiVersion ?? version);
    if (!compared) continue;
    entries.push(e);
    for (const p of e.set.paths()) {
      if (compared.changed.has(p) || valueAt(compared.after, p) === undefined) e.set.delete(p);
    }
  }
  let mine = entries.find((e) => sameEntry(e.raw, manager, operation, opts.subresource));
  if (!mine && changed.size > 0) {
    mine = {
      raw: {
        manager,
        operation,
        apiVersion: version,
        time: nowIso,
        fieldsType: "FieldsV1",
        fieldsV1: {},
        ...(opts.subresource ? { subresource: opts.subresource } : {}),
      },
      set: new FieldSet(),
    };
    entries.push(mine);
  }
  if (mine && changed.size > 0) {
    for (const p of changed.paths()) mine.set.add(p);
    mine.raw.time = nowIso;
    mine.raw.apiVersion = after.apiVersion ?? mine.raw.apiVersion;
  }
  return writeEntries(entries);
}

/** The fields a write from `before` (undefined: a create) to `after` set or changed, as structured-merge-diff's compare. */
function changedFields(before: KubeObject | undefined, after: KubeObject, opts: RecordUpdateOptions): FieldSet {
  // Lists are tracked with the merge keys of the built-in table when the kind is known; atomic otherwise.
  const group = (after.apiVersion ?? "").includes("/") ? after.apiVersion!.split("/")[0] : "";
  const custom = opts.def?.custom ?? false;
  const kind = after.kind ?? opts.def?.kind ?? "";
  // The def names the request's version; another version's object is read with its own group's table.
  const ownGroup = opts.def && (custom || !after.apiVersion || opts.def.group === group);
  const meta: PatchMeta = patchMetaFor(ownGroup ? opts.def! : { group, kind, custom: false });
  const status = opts.subresource === "status" ? "only" : opts.statusSubresource ? "exclude" : "include";
  const afterSet = fieldsOf(after, meta, { status });
  const beforeSet = before ? fieldsOf(before, meta, { status }) : new FieldSet();
  const changed = new FieldSet();
  for (const p of afterSet.paths()) {
    // An empty struct (`metadata: {}`, a built-in kind's `spec: {}`) is its Go zero value, which the new object the
    // write is compared with has too.
    if (isZeroStruct(p, valueAt(after, p), kind, custom)) continue;
    // So is a value scalar holding its zero (`group: ""`, `count: 0`), which a create's zero object has (or drops).
    const was = valueAt(before, p);
    if (!custom && was === undefined && isGoZeroScalar(p, valueAt(after, p), after.apiVersion ?? "", kind)) continue;
    if (!beforeSet.has(p) || !deepEqual(valueAt(before, p), valueAt(after, p))) {
      const last = p[p.length - 1];
      // A keyed element whose children changed is not itself a change, unless it is new.
      if ((last.startsWith("k:") || last.startsWith("v:")) && beforeSet.has(p)) continue;
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
  return typeof now === "object" && now !== null;
}
