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
import { fieldsOf, type FieldsOfOptions, removeAt, valueAt } from "./fieldset.ts";
import { resetFieldsOptions } from "./reset_fields.ts";
import { changedFields } from "./changed_fields.ts";
import { deepEqual, isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import { childMeta, type PatchMeta, patchMetaFor } from "./patch_meta.ts";
import { compareStrings } from "../../../runtime/apimachinery/string_order.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";

/** Options of {@link serverSideApply}. */
export interface ServerSideApplyOptions {
  fieldManager: string;
  force: boolean;
  /** Server time for the managedFields entry (RFC3339). */
  nowIso: string;
  def: ResourceDef;
  /** "status" when applied through the status subresource. */
  subresource?: string;
  /**
   * An object of the applied version in another served version of the resource (a manager's entry's apiVersion), or
   * undefined when not served there: conflicts with such a manager are found comparing in its version.
   */
  inVersion?(apiVersion: string, obj: KubeObject): KubeObject | undefined;
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
    .map((raw) => ({ raw: copyJson(raw), set: fromFieldsV1(raw.fieldsV1 ?? {}) }));
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
      const out = live.map((x) => copyJson(x));
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
  return copyJson(applied);
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
  fields: FieldsOfOptions,
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
  const set = fieldsOf(lastApplied, meta, fields);
  for (const p of set.paths()) {
    if (!deepEqual(valueAt(lastApplied, p), valueAt(current, p))) set.delete(p);
  }
  return set;
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
  const fields = resetFieldsOptions(opts.def, opts.subresource);
  const appliedClean = copyJson(applied);
  if (appliedClean.metadata) {
    delete appliedClean.metadata.managedFields;
    delete appliedClean.metadata.resourceVersion;
  }
  const newSet = fieldsOf(appliedClean, meta, { ...fields, applied: true });
  const entries = readEntries(current);
  const mine = entries.find((e) => sameEntry(e.raw, opts.fieldManager, "Apply", opts.subresource));
  const others = entries.filter((e) => e !== mine);

  // Merge (the live object with the applied configuration); fields this manager stops applying are removed below.
  const result = mergeApplied(current ?? {}, appliedClean, meta) as KubeObject;
  // Conflicts: fields the applier sets to a different value than live, owned by another manager (one recorded in
  // another version: fields the merge changes in that version).
  const version = applied.apiVersion;
  const elsewhere = (o: Entry) => opts.inVersion !== undefined && !!o.raw.apiVersion && o.raw.apiVersion !== version;
  const conflicts: Conflict[] = current ? otherVersionConflicts(current, result, others.filter(elsewhere), opts) : [];
  if (current) {
    for (const path of newSet.paths()) {
      if (path[path.length - 1].startsWith("k:") || path[path.length - 1].startsWith("v:")) continue;
      const live = valueAt(current, path);
      if (live === undefined || deepEqual(live, valueAt(appliedClean, path))) continue;
      for (const owner of others) {
        if (owner.raw.manager === opts.fieldManager && owner.raw.operation === "Update") continue;
        if (!elsewhere(owner) && owner.set.has(path)) conflicts.push({ entry: owner.raw, path, owner });
      }
    }
  }
  let blocking = conflicts;
  if (conflicts.length > 0 && !opts.force && opts.fieldManager === "kubectl" && current) {
    // lastappliedmanager.go: kubectl's server-side apply may take over fields a client-side apply set, as long as
    // the live value still equals the last-applied-configuration.
    const allowed = allowedFromLastApplied(current, meta, fields);
    blocking = conflicts.filter((c) => !allowed.has(c.path));
  }
  if (blocking.length > 0 && !opts.force) throw conflictError(blocking, opts);
  for (const c of conflicts) c.owner.set.delete(c.path);

  // Remove what this manager applied before, no longer applies, and nobody else owns.
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
  // managedfieldsupdater.go: an apply that leaves the object as it was (structured-merge-diff answers no object) does
  // not stamp the applier's time — a new applier's entry has none.
  const time = current && sameObject(current, result) ? mine?.raw.time : opts.nowIso;
  const entry: Entry = {
    raw: {
      manager: opts.fieldManager,
      operation: "Apply",
      apiVersion,
      ...(time !== undefined ? { time } : {}),
      fieldsType: "FieldsV1",
      fieldsV1: {},
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    },
    set: newSet,
  };
  const next = mine ? entries.map((e) => e === mine ? entry : e) : [...entries, entry];
  // lastappliedupdater.go: kubectl's server-side apply keeps an existing last-applied annotation in sync.
  if (opts.fieldManager === "kubectl" && result.metadata.annotations?.[LAST_APPLIED]) {
    const config = copyJson(appliedClean);
    if (config.metadata?.annotations) {
      delete config.metadata.annotations[LAST_APPLIED];
      if (Object.keys(config.metadata.annotations).length === 0) delete config.metadata.annotations;
    }
    result.metadata.annotations = { ...result.metadata.annotations, [LAST_APPLIED]: `${sortedJson(config)}\n` };
  }
  result.metadata = { ...result.metadata, managedFields: writeEntries(next) };
  return result;
}

type Conflict = { entry: ManagedFieldsEntry; path: FieldPath; owner: Entry };

/** Conflicts with `owners` recorded in other versions: the fields the merge changes, compared in each one's version. */
function otherVersionConflicts(
  current: KubeObject,
  merged: KubeObject,
  owners: Entry[],
  opts: ServerSideApplyOptions,
): Conflict[] {
  const out: Conflict[] = [];
  const byVersion = new Map<string, FieldSet | undefined>();
  const fields = resetFieldsOptions(opts.def, opts.subresource);
  for (const owner of owners) {
    if (owner.raw.manager === opts.fieldManager && owner.raw.operation === "Update") continue;
    const apiVersion = owner.raw.apiVersion!;
    if (!byVersion.has(apiVersion)) {
      const before = opts.inVersion!(apiVersion, current);
      const after = before && opts.inVersion!(apiVersion, merged);
      const meta = patchMetaFor({ ...opts.def, version: apiVersion.split("/").pop() });
      byVersion.set(apiVersion, after && changedFields(before, after, meta, fields, opts.def.kind, opts.def.custom));
    }
    for (const path of byVersion.get(apiVersion)?.paths() ?? []) {
      if (owner.set.has(path)) out.push({ entry: owner.raw, path, owner });
    }
  }
  return out;
}

/**
 * Whether two objects are equal but for their managedFields, compared as Go's typed objects are: a null or empty
 * struct is the zero value the other side may leave out (a template's `metadata: {}`, `requests: null`).
 */
function sameObject(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => withoutZeroes({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
  return deepEqual(strip(a), strip(b));
}

function withoutZeroes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZeroes);
  if (!isPlainObject(value)) return value;
  const kept = Object.entries(value).map(([k, v]) => [k, withoutZeroes(v)] as const)
    .filter(([, v]) => v !== null && v !== undefined && !(isPlainObject(v) && Object.keys(v).length === 0));
  return Object.fromEntries(kept);
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
  inVersion?(apiVersion: string): { before?: KubeObject; after: KubeObject } | undefined;
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
  const result = copyJson(after);
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
  // Lists are tracked with the merge keys of the built-in table when the kind is known; atomic otherwise.
  const meta: PatchMeta = patchMetaFor(
    opts.def ?? {
      group: (after.apiVersion ?? "").includes("/") ? after.apiVersion!.split("/")[0] : "",
      kind: after.kind ?? "",
      custom: false,
    },
  );
  const custom = opts.def?.custom ?? false;
  const kind = after.kind ?? opts.def?.kind ?? "";
  const version = after.apiVersion ?? "v1";
  const fields = resetFieldsOptions(
    { group: opts.def?.group ?? "", kind, subresources: [] },
    opts.subresource,
    opts.statusSubresource ?? false,
  );
  // A status write changes the status and what metadata the kind's status strategy lets through (labels,
  // annotations); its writer owns both. The spec was put back, so it shows no change.
  if (opts.subresource === "status" && fields.status === "only") fields.status = "include";
  const changed = changedFields(before, after, meta, fields, kind, custom);
  // Other managers' fields are compared in their entries' versions (one comparison per version); an entry of a
  // version the write's converter cannot reach goes.
  type Comparison = { changed: FieldSet; after: KubeObject } | undefined;
  const comparisons = new Map<string, Comparison>([[version, { changed, after }]]);
  const comparisonIn = (apiVersion: string): Comparison => {
    if (!opts.inVersion) return comparisons.get(version);
    if (!comparisons.has(apiVersion)) {
      const other = opts.inVersion(apiVersion);
      const metaThere = opts.def ? patchMetaFor({ ...opts.def, version: apiVersion.split("/").pop() }) : meta;
      const compared = other &&
        { changed: changedFields(other.before, other.after, metaThere, fields, kind, custom), after: other.after };
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
