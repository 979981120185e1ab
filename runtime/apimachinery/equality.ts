/**
 * Semantic equality of JSON values, as apimachinery's `equality.Semantic.DeepEqual` is used by controllers: object
 * key order does not matter (a cached object's keys come back in the server's order, a freshly built one's in the
 * builder's), array order does, and a key whose value is `undefined` counts as absent (it is not serialised).
 * @module
 */

/** True for a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function definedKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

/**
 * Deep equality of two JSON values, independent of object key order.
 *
 * @example
 * ```ts
 * import { deepEqual } from "./equality.ts";
 * deepEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }); // true
 * deepEqual([1, 2], [2, 1]); // false
 * ```
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = definedKeys(a);
    return keys.length === definedKeys(b).length && keys.every((k) => b[k] !== undefined && deepEqual(a[k], b[k]));
  }
  return false;
}
