/**
 * Field sets as server-side apply tracks them (structured-merge-diff's `fieldpath.Set`): which fields of an object
 * a manager owns. A path is a list of elements in the `FieldsV1` spelling — `f:<field>`, `k:{"name":"web"}` for a
 * keyed list element, `v:<json>` for a set member — so sets convert to and from `managedFields[].fieldsV1`
 * directly (`.` marks a node that is owned itself and also has owned children).
 * @module
 */

import { isPlainObject } from "../../runtime/apimachinery/equality.ts";
import { childMeta, type PatchMeta } from "./patch_meta.ts";

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
}

/**
 * The set of fields an object sets: scalars, atomic lists/maps and empty maps as leaves; keyed list elements and
 * set members as owned nodes with their children.
 */
export function fieldsOf(obj: unknown, meta: PatchMeta, opts: FieldsOfOptions = {}): FieldSet {
  const set = new FieldSet();
  walk(obj, meta, [], set);
  for (const p of IGNORED) set.delete(p);
  if (opts.status === "exclude") set.delete(["f:status"], true);
  if (opts.status === "only") { for (const p of set.paths()) if (p[0] !== "f:status") set.delete(p); }
  return set;
}

function walk(value: unknown, meta: PatchMeta, path: FieldPath, set: FieldSet): void {
  if (isPlainObject(value) && !meta.atomic) {
    const entries = Object.entries(value);
    if (entries.length === 0 && path.length > 0) set.add(path);
    for (const [k, v] of entries) {
      if (v === null || v === undefined) continue;
      walk(v, childMeta(meta, k), [...path, `f:${k}`], set);
    }
    return;
  }
  if (Array.isArray(value) && !meta.atomic && meta.strategy?.includes("merge")) {
    if (meta.mergeKeys?.length) {
      for (const item of value) {
        if (!isPlainObject(item)) continue;
        const element = [...path, keyElement(item, meta.mergeKeys, meta.keyDefaults)];
        set.add(element);
        const itemMeta = meta.itemAtomic
          ? { atomic: true }
          : { ...meta, mergeKeys: undefined, strategy: undefined, set: undefined };
        walk(item, itemMeta, element, set);
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

/** Key fields the server defaults before comparing keys (ports' protocol); used when a path is resolved. */
const KEY_FIELD_DEFAULTS: Record<string, unknown> = { protocol: "TCP" };

/** The value at a path in an object, or undefined. */
export function valueAt(obj: unknown, path: FieldPath): unknown {
  let node = obj;
  for (const e of path) {
    if (node === undefined || node === null) return undefined;
    if (e.startsWith("f:")) {
      node = isPlainObject(node) ? node[e.slice(2)] : undefined;
    } else if (e.startsWith("k:")) {
      const fields = JSON.parse(e.slice(2)) as Record<string, unknown>;
      node = Array.isArray(node)
        ? node.find((item) =>
          isPlainObject(item) &&
          Object.entries(fields).every(([k, v]) =>
            JSON.stringify(item[k] ?? KEY_FIELD_DEFAULTS[k]) === JSON.stringify(v)
          )
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
  if (!isPlainObject(view) || !isPlainObject(after)) return;
  const was = isPlainObject(before) ? before : {};
  for (const [k, v] of Object.entries(after)) {
    if (!(k in was)) delete view[k];
    else if (isPlainObject(v)) dropAdded(view[k], was[k], v);
  }
}
