/**
 * How Go's encoding/json writes what kube-apiserver quotes in its messages: maps with their keys sorted, and
 * ObjectMeta's fields in the struct's order. Shared by the messages that quote an object (a strict patch's refused
 * object, an access review's metadata).
 * @module
 */

/** ObjectMeta's fields in Go's struct order: how kube's stored JSON (and a quoted metadata) is written. */
export const OBJECT_META_ORDER: readonly string[] = [
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
];

/**
 * `value` as JSON with every object's keys sorted, as Go marshals a `map[string]interface{}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sortedJson } from "./go_marshal.ts";
 * assert.equal(sortedJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
 * ```
 */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
