/**
 * The RFC 6902 JSON patch that turns one JSON value into another (what controller-runtime's admission
 * `PatchResponseFromRaw` computes with gomodules.xyz/jsonpatch): a mutating webhook handler returns the changed
 * object and the webhook server sends kube-apiserver the patch from the original to it. Objects are compared key by
 * key (a key whose value is `undefined` counts as absent, as in ./equality.ts); arrays element by element over the
 * common length, then trailing elements are removed from the end or appended. {@link applyJsonPatch} of the result
 * to `from` yields `to`.
 * @module
 */
import { deepEqual, isPlainObject } from "./equality.ts";
import { copyJson } from "./json_copy.ts";

/** One operation of a computed patch (only `add`, `remove` and `replace` are produced). */
export type JsonPatchOperation =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown };

/** Escapes one RFC 6901 pointer token (`~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The operations that turn `from` into `to`; empty when they are deeply equal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { diffJsonPatch } from "./json_patch_diff.ts";
 * const ops = diffJsonPatch({ spec: { replicas: 1 } }, { spec: { replicas: 3, paused: false } });
 * assert.deepEqual(ops, [
 *   { op: "replace", path: "/spec/replicas", value: 3 },
 *   { op: "add", path: "/spec/paused", value: false },
 * ]);
 * ```
 */
export function diffJsonPatch(from: unknown, to: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diffAt("", from, to, ops);
  return ops;
}

function diffAt(path: string, from: unknown, to: unknown, ops: JsonPatchOperation[]): void {
  if (deepEqual(from, to)) return;
  if (isPlainObject(from) && isPlainObject(to)) {
    for (const [key, value] of Object.entries(from)) {
      if (value === undefined) continue;
      const child = `${path}/${escapePointerToken(key)}`;
      if (to[key] === undefined) ops.push({ op: "remove", path: child });
      else diffAt(child, value, to[key], ops);
    }
    for (const [key, value] of Object.entries(to)) {
      if (value === undefined || from[key] !== undefined) continue;
      ops.push({ op: "add", path: `${path}/${escapePointerToken(key)}`, value: copyJson(value) });
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) diffAt(`${path}/${i}`, from[i], to[i], ops);
    // Remove from the end so earlier indices stay valid while the patch is applied.
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: "remove", path: `${path}/${i}` });
    for (let i = common; i < to.length; i++) {
      ops.push({ op: "add", path: `${path}/${i}`, value: copyJson(to[i]) });
    }
    return;
  }
  // Scalars, or a change of type: replace the whole value (the root included: path "").
  ops.push({ op: "replace", path, value: copyJson(to) });
}
