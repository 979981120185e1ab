/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) as kube-apiserver applies it to built-in kinds:
 * a JSON merge patch in which lists with a merge key merge element by element, set-like lists (finalizers) merge
 * as sets, and directives steer the merge: `$patch: replace|delete|merge`, `$setElementOrder/<list>`,
 * `$retainKeys`, `$deleteFromPrimitiveList/<list>`. The list metadata comes from {@link patchMetaFor}.
 * Semantics follow apimachinery's `strategicpatch.StrategicMergePatch`.
 * @module
 */

import { ApiError, failureStatus } from "../../../runtime/client/errors.ts";
import { internalError } from "../status_errors.ts";
import type { ResourceDef } from "../resource_def.ts";
import { deepEqual, isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import { childMeta, type PatchMeta, patchMetaFor } from "./patch_meta.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";

type JsonMap = Record<string, unknown>;

const SET_ORDER = "$setElementOrder/";
const DELETE_FROM = "$deleteFromPrimitiveList/";

function badPatch(message: string): ApiError {
  return new ApiError(failureStatus(400, "BadRequest", message), { verb: "patch" });
}

/** What kube answers for errors strategicpatch does not classify: 500 without a reason. */
function unclassified(message: string): ApiError {
  return internalError(message, "patch");
}

/**
 * A JSON value as Go's fmt prints a map[string]interface{} (`map[a:1 b:x]`), for error messages.
 *
 * @example
 * ```ts
 * import { goValue } from "./strategic.ts";
 * console.assert(goValue({ b: [1, "x"], a: null }) === "map[a:<nil> b:[1 x]]");
 * ```
 */
export function goValue(v: unknown): string {
  if (isPlainObject(v)) {
    return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k])}`).join(" ")}]`;
  }
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  if (v === null) return "<nil>";
  return String(v);
}

/** Removes directive keys from a value that has no original to merge into. */
function stripDirectives(value: unknown, meta: PatchMeta): unknown {
  if (Array.isArray(value)) {
    const items = value.filter((v) => !(isPlainObject(v) && typeof v.$patch === "string"));
    return items.map((v) => stripDirectives(v, meta));
  }
  if (!isPlainObject(value)) return value;
  if (value.$patch === "delete") return undefined;
  return mergeMap({}, value, meta);
}

function sameKey(a: unknown, b: unknown, key: string): boolean {
  return isPlainObject(a) && isPlainObject(b) && deepEqual(a[key], b[key]);
}

/** Reorders `merged` so elements named in `order` come in that order; others keep their place after them. */
function applyOrder(merged: unknown[], order: unknown[], key: string | undefined): unknown[] {
  const position = (item: unknown) =>
    order.findIndex((o) => key ? isPlainObject(o) && sameKey(o, item, key) : deepEqual(o, item));
  const listed = merged.filter((item) => position(item) >= 0).sort((a, b) => position(a) - position(b));
  const rest = merged.filter((item) => position(item) < 0);
  return [...listed, ...rest];
}

function mergeList(original: unknown[], patch: unknown[], meta: PatchMeta, order?: unknown[]): unknown[] {
  const key = meta.mergeKeys?.[0];
  const directives = patch.filter((p) => isPlainObject(p) && typeof p.$patch === "string") as JsonMap[];
  if (directives.some((d) => d.$patch === "replace" && (!key || !(key in d)))) {
    return stripDirectives(patch, meta) as unknown[];
  }
  let result: unknown[];
  if (!key) {
    // A set of primitives (finalizers): union, patch order for new entries.
    result = [...original];
    for (const item of patch) {
      if (isPlainObject(item) && typeof item.$patch === "string") continue;
      if (!result.some((r) => deepEqual(r, item))) result.push(copyJson(item));
    }
  } else {
    result = original.map((o) => copyJson(o));
    for (const item of patch) {
      if (!isPlainObject(item)) {
        throw badPatch(`unable to find api field in struct for the list ${key}: ${JSON.stringify(item)}`);
      }
      if (!(key in item)) {
        if (typeof item.$patch === "string") continue;
        throw unclassified(`map: ${goValue(item)} does not contain declared merge key: ${key}`);
      }
      const index = result.findIndex((r) => sameKey(r, item, key));
      if (item.$patch === "delete") {
        if (index >= 0) result.splice(index, 1);
        // A deleted key may appear more than once on the server; remove all copies like the real server.
        for (
          let i = result.findIndex((r) => sameKey(r, item, key));
          i >= 0;
          i = result.findIndex((r) => sameKey(r, item, key))
        ) {
          result.splice(i, 1);
        }
        continue;
      }
      if (item.$patch === "replace") {
        const { $patch: _, ...rest } = item;
        if (index >= 0) result[index] = rest;
        else result.push(rest);
        continue;
      }
      if (index >= 0) result[index] = mergeMap(result[index] as JsonMap, item, meta);
      else result.push(mergeMap({}, item, meta));
    }
  }
  return order ? applyOrder(result, order, key) : serverOrder(result, original, patch, key);
}

/**
 * The order strategicpatch gives a merged list without `$setElementOrder` (normalizeElementOrder and
 * mergeSortedSlice): the patch's elements in patch order, interleaved with the server-only ones, which keep their
 * order; of two elements both on the server the earlier one there goes first, else the patch's element does.
 */
function serverOrder(merged: unknown[], original: unknown[], patch: unknown[], key: string | undefined): unknown[] {
  const same = (a: unknown, b: unknown) => key ? sameKey(a, b, key) : deepEqual(a, b);
  const indexIn = (list: unknown[], item: unknown) => list.findIndex((x) => same(x, item));
  const inPatch = (item: unknown) => indexIn(patch, item) >= 0;
  const left = merged.filter(inPatch).sort((a, b) => indexIn(patch, a) - indexIn(patch, b));
  const right = merged.filter((item) => !inPatch(item));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(original, left[i]);
      const ri = indexIn(original, right[j]);
      if (li >= 0 && ri >= 0 && ri < li) out.push(right[j++]);
      else out.push(left[i++]);
    }
  }
  return out;
}

function mergeMap(original: JsonMap, patch: JsonMap, meta: PatchMeta): JsonMap {
  if (patch.$patch === "replace") {
    const { $patch: _, ...rest } = patch;
    return stripDirectives(rest, meta) as JsonMap;
  }
  if (patch.$patch === "delete") return {};
  if (patch.$patch !== undefined && patch.$patch !== "merge") {
    throw unclassified(`unknown patch type: ${patch.$patch} in map: ${goValue(patch)}`);
  }
  let result: JsonMap = { ...original };
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys as string[]);
    // Every field the patch sets must be retained (strategicpatch validatePatchWithSetOrderList/retainKeys).
    if (Object.keys(patch).some((k) => !k.startsWith("$") && patch[k] !== null && !keep.has(k))) {
      throw badPatch("invalid patch format of retainKeys");
    }
    result = Object.fromEntries(Object.entries(result).filter(([k]) => keep.has(k)));
  }
  for (const [k, v] of Object.entries(patch)) {
    if (!k.startsWith(DELETE_FROM)) continue;
    const field = k.slice(DELETE_FROM.length);
    const current = result[field];
    if (!Array.isArray(v)) throw badPatch(`${k} must be a list`);
    if (Array.isArray(current)) {
      result[field] = current.filter((item) => !v.some((d) => deepEqual(d, item)));
    }
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === "$patch" || k === "$retainKeys" || k.startsWith(DELETE_FROM) || k.startsWith(SET_ORDER)) continue;
    const sub = childMeta(meta, k);
    if (v === null) {
      delete result[k];
      continue;
    }
    if (isPlainObject(v) && v.$patch === "delete") {
      delete result[k];
      continue;
    }
    const current = result[k];
    const order = patch[SET_ORDER + k];
    if (Array.isArray(v)) {
      const mergeable = sub.strategy?.includes("merge") && !sub.atomic;
      if (mergeable) {
        result[k] = mergeList(Array.isArray(current) ? current : [], v, sub, Array.isArray(order) ? order : undefined);
      } else {
        result[k] = stripDirectives(v, sub);
      }
    } else if (isPlainObject(v)) {
      // SMP follows Go patch tags only: struct-level `atomic` (an SSA notion) does not stop a map merge.
      result[k] = isPlainObject(current) ? mergeMap(current, v, sub) : stripDirectives(v, sub);
    } else {
      result[k] = v;
    }
  }
  // $setElementOrder without a patch for the list itself still reorders it.
  for (const [k, order] of Object.entries(patch)) {
    if (!k.startsWith(SET_ORDER) || !Array.isArray(order)) continue;
    const field = k.slice(SET_ORDER.length);
    if (field in patch || !Array.isArray(result[field])) continue;
    result[field] = applyOrder(result[field] as unknown[], order, childMeta(meta, field).mergeKeys?.[0]);
  }
  return result;
}

/**
 * Applies a strategic merge patch to an object of a built-in kind; `target` is not modified. Malformed patches
 * (a keyed list element without its merge key, an unknown `$patch`) throw 400 BadRequest.
 *
 * @example
 * ```ts
 * import { applyStrategicMergePatch } from "./strategic.ts";
 * const def = { group: "", kind: "Pod", custom: false } as Parameters<typeof applyStrategicMergePatch>[2];
 * const pod = { spec: { containers: [{ name: "a", image: "x:1" }, { name: "b", image: "y:1" }] } };
 * const out = applyStrategicMergePatch(pod, { spec: { containers: [{ name: "b", image: "y:2" }] } }, def);
 * // out.spec.containers is [{ name: "a", image: "x:1" }, { name: "b", image: "y:2" }]
 * ```
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, def: ResourceDef): unknown {
  if (!isPlainObject(patch)) throw badPatch("strategic merge patch must be a JSON object");
  const base = isPlainObject(target) ? copyJson(target) : {};
  return mergeMap(base, patch, patchMetaFor(def));
}
