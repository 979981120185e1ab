/**
 * Typed reads of objects whose shape is not declared (apimachinery's `unstructured.NestedField*`): a
 * {@link KubeObject}'s fields other than apiVersion/kind/metadata are `unknown`; these accessors walk a path and
 * return the value only when it has the asked type. For kinds kubeop knows, prefer runtime/builtin_types.ts.
 * @module
 */

/** The value at `path` under `obj`, or undefined when a step is missing or not an object. */
export function nestedField(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * The string at `path`, or undefined when absent or not a string.
 *
 * @example
 * ```ts
 * import { nestedString } from "./unstructured.ts";
 * const cm = { metadata: { name: "greeter" }, data: { greeting: "hello" } };
 * console.assert(nestedString(cm, "data", "greeting") === "hello");
 * console.assert(nestedString(cm, "data", "missing") === undefined);
 * ```
 */
export function nestedString(obj: unknown, ...path: string[]): string | undefined {
  const v = nestedField(obj, ...path);
  return typeof v === "string" ? v : undefined;
}

/** The plain object at `path` (a map such as `data` or `spec`), or undefined when absent or not an object. */
export function nestedRecord(obj: unknown, ...path: string[]): Record<string, unknown> | undefined {
  const v = nestedField(obj, ...path);
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}
