/**
 * Unknown fields of built-in kinds, as kube-apiserver's decoder meets them: a body is decoded into the kind's Go
 * struct, so a key no struct field names (case-sensitively) is dropped, and its path is reported by the strict
 * decoder (`unknown field "spec.template.spec.containers[1].bogus"`: struct fields joined with dots, list indices in
 * brackets, map keys as fields). Values of `map[string]string` fields and raw JSON fields (RawExtension, FieldsV1,
 * apiextensions' JSON: `any` in the recorded Go type table of go_json_types.ts) hold no fields to check; an empty
 * struct (a CRD's `subresources.status`) knows none.
 * @module
 */
import { goFieldsOf, goTypeOf } from "./go_json_types.ts";

/** One step of an unknown field's path: a struct or map key, or a list index with the list's element. */
export type UnknownFieldStep = { key: string } | { index: number; item: unknown };

/** Where a scalar sits: its compact Go type, the struct declaring its field, and whether it is a map's value. */
export interface ScalarSlot {
  type: string;
  /** The OpenAPI definition name of the struct whose field holds it (the map, for a map's value). */
  struct: string;
  inMap: boolean;
}

/** Options of {@link dropUnknownGoFields}. */
export interface UnknownGoFieldsOptions {
  /** Visit each object's keys sorted (the order kube reports a patched object in), not in insertion order. */
  sorted?: boolean;
  /** Only find them: leave the object as it is. */
  keep?: boolean;
  /**
   * Called for each scalar value of a known struct field or map entry: where a decoder rewrites a value as Go reads
   * it (go_json_quantities.ts).
   */
  onScalar?: (parent: Record<string, unknown>, key: string, at: ScalarSlot) => void;
}

/**
 * Removes the fields of `obj` that the built-in `group/version/kind`'s Go struct does not declare, at any depth, and
 * returns their paths (steps), in document order (or sorted, see {@link UnknownGoFieldsOptions}). A kind whose Go type
 * is not recorded, or a value of the wrong JSON type (go_json_types.ts reports it), yields nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dropUnknownGoFields, strictFieldPath } from "./go_json_unknown.ts";
 * const cm = { metadata: { name: "a", bogus: 1 }, data: { any: "key" }, extra: true };
 * const unknown = dropUnknownGoFields("", "v1", "ConfigMap", cm).map(strictFieldPath);
 * assert.deepEqual(unknown, ["metadata.bogus", "extra"]);
 * assert.deepEqual(cm, { metadata: { name: "a" }, data: { any: "key" } });
 * ```
 */
export function dropUnknownGoFields(
  group: string,
  version: string,
  kind: string,
  obj: unknown,
  opts: UnknownGoFieldsOptions = {},
): UnknownFieldStep[][] {
  const root = goTypeOf(group, version, kind);
  return root ? dropUnknownStructFields(root, obj, opts) : [];
}

/**
 * {@link dropUnknownGoFields} for a value decoded alone into the recorded Go struct `name` (an OpenAPI definition name,
 * e.g. a custom resource's metadata into `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dropUnknownStructFields, strictFieldPath } from "./go_json_unknown.ts";
 * const meta = { name: "a", bogus: 1 };
 * const found = dropUnknownStructFields("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", meta, { keep: true });
 * assert.deepEqual(found.map(strictFieldPath), ["bogus"]);
 * ```
 */
export function dropUnknownStructFields(
  name: string,
  obj: unknown,
  opts: UnknownGoFieldsOptions = {},
): UnknownFieldStep[][] {
  const root = name;
  const found: UnknownFieldStep[][] = [];
  const { onScalar } = opts;
  // Only scalars reach onScalar, and a slot is built only when there is an onScalar to give it to.
  const visitScalar = (record: Record<string, unknown>, key: string, type: string, struct: string, inMap: boolean) => {
    const v = record[key];
    if (v === null || typeof v !== "object") onScalar!(record, key, { type, struct, inMap });
  };
  // `struct`: the definition whose field holds `value` (for onScalar).
  const walk = (value: unknown, type: string, path: UnknownFieldStep[], struct: string): void => {
    if (value === null || typeof value !== "object") return;
    if (type.startsWith("[]")) {
      if (!Array.isArray(value)) return;
      value.forEach((item, index) => walk(item, type.slice(2), [...path, { index, item }], struct));
      return;
    }
    if (Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    const keys = opts.sorted ? Object.keys(record).sort() : Object.keys(record);
    if (type.startsWith("map[string]")) {
      const valueType = type.slice(11);
      for (const key of keys) {
        if (onScalar) visitScalar(record, key, valueType, struct, true);
        walk(record[key], valueType, [...path, { key }], struct);
      }
      return;
    }
    if (!type.startsWith("#")) return; // any (raw JSON), quantity, intstr, or a scalar of the wrong JSON type
    const name = type.slice(1);
    const fields = goFieldsOf(name);
    for (const key of keys) {
      const field = fields.get(key);
      if (field !== undefined) {
        if (onScalar) visitScalar(record, key, field, name, false);
        walk(record[key], field, [...path, { key }], name);
        continue;
      }
      found.push([...path, { key }]);
      if (!opts.keep) delete record[key];
    }
  };
  walk(obj, `#${root}`, [], root);
  return found;
}

/**
 * A path as kube's strict decoder words it: `spec.template.spec.containers[0].bogus`.
 *
 * @example
 * ```ts
 * import { strictFieldPath } from "./go_json_unknown.ts";
 * console.assert(strictFieldPath([{ key: "spec" }, { index: 0, item: {} }, { key: "x" }]) === "spec[0].x");
 * ```
 */
export function strictFieldPath(steps: UnknownFieldStep[]): string {
  let out = "";
  for (const step of steps) {
    if ("key" in step) out += out ? `.${step.key}` : step.key;
    else out += `[${step.index}]`;
  }
  return out;
}
