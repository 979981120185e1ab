/**
 * Server-side apply field ownership, the schema-independent part (structured-merge-diff's `fieldpath.Set` and
 * kube's managedFields): sets of field paths in the `FieldsV1` spelling — `f:<field>`, `k:{"name":"web"}` for a keyed
 * list element, `v:<json>` for a set member — converted to and from `managedFields[].fieldsV1` (`.` marks a node
 * that is owned itself and also has owned children), and the 409 conflict message kube-apiserver writes when an
 * apply changes fields another manager owns. Which fields an object sets depends on its schema and stays with the
 * server that knows it (testing/apiserver/patch/fieldset.ts for the fake, apiservice/field_ownership.ts for llamas).
 * @module
 */

import { isPlainObject } from "./equality.ts";

/**
 * The annotation a client-side `kubectl apply` keeps its configuration in; kubectl's server-side apply may take over
 * the fields it lists (kube's lastAppliedManager) and keeps it in sync (lastAppliedUpdater).
 */
export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/** metav1.ManagedFieldsEntry. */
export interface ManagedFieldsEntry {
  /** Who. */
  manager: string;
  /** How. */
  operation: "Apply" | "Update";
  /** The version the fields are in. */
  apiVersion: string;
  /** When last changed (RFC 3339, seconds). */
  time?: string;
  /** Always FieldsV1. */
  fieldsType: "FieldsV1";
  /** The owned fields as nested element keys. */
  fieldsV1: Record<string, unknown>;
  /** The subresource written through (`status`), if any. */
  subresource?: string;
}

/** One path: FieldsV1 element strings from the root. */
export type FieldPath = string[];

/** A set of paths, keyed by their JSON encoding. */
export class FieldSet {
  readonly #paths = new Map<string, FieldPath>();

  constructor(paths: Iterable<FieldPath> = []) {
    for (const p of paths) this.add(p);
  }

  /** Adds a path. */
  add(path: FieldPath): void {
    this.#paths.set(JSON.stringify(path), path);
  }

  /** Whether the exact path is a member. */
  has(path: FieldPath): boolean {
    return this.#paths.has(JSON.stringify(path));
  }

  /** Removes a path; with `withChildren` also every path under it. */
  delete(path: FieldPath, withChildren = false): void {
    this.#paths.delete(JSON.stringify(path));
    if (!withChildren) return;
    for (const [key, p] of this.#paths) if (isPrefix(path, p)) this.#paths.delete(key);
  }

  /** Members in insertion order. */
  paths(): FieldPath[] {
    return [...this.#paths.values()];
  }

  /** Number of members. */
  get size(): number {
    return this.#paths.size;
  }
}

/** True when `prefix` is a proper prefix of `path`. */
export function isPrefix(prefix: FieldPath, path: FieldPath): boolean {
  return prefix.length < path.length && prefix.every((e, i) => path[i] === e);
}

/** Converts a set to the `fieldsV1` tree. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const members = new Set(set.paths().map((p) => JSON.stringify(p)));
  for (const path of set.paths()) {
    let node = root;
    for (const element of path) {
      node[element] ??= {};
      node = node[element] as Record<string, unknown>;
    }
  }
  // Nodes that are members and have children get ".".
  const mark = (node: Record<string, unknown>, path: FieldPath) => {
    for (const [element, sub] of Object.entries(node)) {
      if (element === ".") continue;
      const p = [...path, element];
      const children = sub as Record<string, unknown>;
      if (Object.keys(children).length > 0) {
        if (members.has(JSON.stringify(p))) children["."] = {};
        mark(children, p);
      }
    }
  };
  mark(root, []);
  return sortTree(root);
}

function sortTree(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node).sort()) out[key] = sortTree(node[key] as Record<string, unknown>);
  return out;
}

/** Parses a `fieldsV1` tree into a set. */
export function fromFieldsV1(tree: unknown): FieldSet {
  const set = new FieldSet();
  const visit = (node: unknown, path: FieldPath) => {
    if (!isPlainObject(node)) return;
    const keys = Object.keys(node).filter((k) => k !== ".");
    if (path.length > 0 && (keys.length === 0 || "." in node)) set.add(path);
    for (const k of keys) visit(node[k], [...path, k]);
  };
  visit(tree, []);
  return set;
}

/** The structured-merge-diff spelling of a path, for conflict messages: `.spec.containers[name="web"].image`. */
export function pathString(path: FieldPath): string {
  return path.map((e) => {
    if (e.startsWith("f:")) return `.${e.slice(2)}`;
    if (e.startsWith("v:")) return `[=${e.slice(2)}]`;
    if (e.startsWith("i:")) return `[${e.slice(2)}]`;
    const fields = JSON.parse(e.slice(2)) as Record<string, unknown>;
    return `[${Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}]`;
  }).join("");
}

/** `"mgr"`, or `"mgr" using apps/v1` for Update managers (conflict.go `printManager`). */
export function printManager(raw: ManagedFieldsEntry): string {
  let text = JSON.stringify(raw.manager);
  if (raw.subresource) text += ` with subresource ${JSON.stringify(raw.subresource)}`;
  // The manager identity used for conflicts carries no time, so the "at <time>" branch of printManager never fires.
  if (raw.operation === "Update") text += ` using ${raw.apiVersion}`;
  return text;
}

/** One field an apply would take from another manager. */
export interface ApplyConflict {
  /** The entry that owns the field. */
  entry: ManagedFieldsEntry;
  /** The field. */
  path: FieldPath;
}

/** A `FieldManagerConflict` cause of a 409 apply answer. */
export interface ApplyConflictCause {
  /** Always `FieldManagerConflict`. */
  reason: "FieldManagerConflict";
  /** `conflict with "mgr" using v1`. */
  message: string;
  /** The field, as {@link pathString} spells it. */
  field: string;
}

/**
 * The message and causes of kube-apiserver's 409 Conflict for an apply (`Apply failed with 2 conflicts: ...`), in
 * the order `conflicts` are given; with several, grouped per manager.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyConflictStatus } from "./managed_fields.ts";
 * const entry = { manager: "kubectl", operation: "Update" as const, apiVersion: "v1", fieldsType: "FieldsV1" as const,
 *   fieldsV1: {} };
 * const { message } = applyConflictStatus([{ entry, path: ["f:data", "f:a"] }]);
 * assert.equal(message, 'Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.a');
 * ```
 */
export function applyConflictStatus(conflicts: ApplyConflict[]): { message: string; causes: ApplyConflictCause[] } {
  const causes: ApplyConflictCause[] = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.entry)}`,
    field: pathString(c.path),
  }));
  if (conflicts.length === 1) {
    const [c] = conflicts;
    return {
      message: `Apply failed with 1 conflict: conflict with ${printManager(c.entry)}: ${pathString(c.path)}`,
      causes,
    };
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const key = JSON.stringify([c.entry.manager, c.entry.operation, c.entry.apiVersion, c.entry.subresource ?? ""]);
    const lines = byManager.get(key) ?? [`conflicts with ${printManager(c.entry)}:`];
    lines.push(`- ${pathString(c.path)}`);
    byManager.set(key, lines);
  }
  const keys = [...byManager.keys()].sort();
  const message = `Apply failed with ${conflicts.length} conflicts: ${
    keys.map((k) => byManager.get(k)!.join("\n")).join("\n")
  }`;
  return { message, causes };
}
