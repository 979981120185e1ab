/**
 * JSON merge patch (RFC 7386), as kube-apiserver applies `application/merge-patch+json`: objects merge key by key,
 * `null` deletes a key, anything else (arrays included) replaces the target value.
 * @module
 */

/** True for a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Applies an RFC 7386 merge patch and returns the result; neither argument is modified.
 *
 * @example
 * ```ts
 * import { applyMergePatch } from "./merge.ts";
 * const out = applyMergePatch({ metadata: { labels: { a: "1", b: "2" } } }, { metadata: { labels: { a: null } } });
 * // out is { metadata: { labels: { b: "2" } } }
 * ```
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      result[key] = applyMergePatch(result[key], value);
    }
  }
  return result;
}
