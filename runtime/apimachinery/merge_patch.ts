/**
 * JSON merge patch (RFC 7386), as kube-apiserver applies `application/merge-patch+json`: objects merge key by key,
 * `null` deletes a key, anything else (arrays included) replaces the target value.
 * @module
 */
import { isPlainObject } from "./equality.ts";
import { copyJson } from "./json_copy.ts";

/**
 * Applies an RFC 7386 merge patch and returns the result; neither argument is modified.
 *
 * @example
 * ```ts
 * import { applyMergePatch } from "./merge_patch.ts";
 * const out = applyMergePatch({ metadata: { labels: { a: "1", b: "2" } } }, { metadata: { labels: { a: null } } });
 * // out is { metadata: { labels: { b: "2" } } }
 * ```
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return copyJson(patch);
  return mergeInto(isPlainObject(target) ? copyJson(target) : {}, patch);
}

/** Merges `patch` into `result` (a copy this module owns) in place. */
function mergeInto(result: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else if (isPlainObject(value)) {
      const current = result[key];
      result[key] = mergeInto(isPlainObject(current) ? current : {}, value);
    } else {
      result[key] = copyJson(value);
    }
  }
  return result;
}
