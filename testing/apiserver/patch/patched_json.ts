/**
 * A patched object's JSON as kube-apiserver prints it when the result does not decode (`patch: Invalid value:
 * "<json>"`): the patch library (evanphx/json-patch) re-marshals only what it parsed — the top level and every object
 * the patch reaches, keys sorted as Go marshals maps, and whatever the patch supplied — and keeps every other value as
 * it was stored (here: the stored key order).
 * @module
 */
import { OBJECT_META_ORDER, sortedJson } from "../go_marshal.ts";

/** Which parts of the document the patch reached: `true` for a value the patch supplied whole. */
type Reached = true | Map<string, Reached>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The parts a JSON merge patch reaches: its objects, and its other values as supplied. */
function reachedByMerge(patch: unknown): Reached {
  if (!isPlainObject(patch)) return true;
  return new Map(Object.entries(patch).map(([k, v]) => [k, reachedByMerge(v)]));
}

/** The parts a JSON patch reaches: the containers along each operation's path; the value it sets is supplied. */
function reachedByJsonPatch(ops: unknown): Reached {
  const root = new Map<string, Reached>();
  for (const op of Array.isArray(ops) ? ops : []) {
    const path = typeof op?.path === "string" ? op.path : "";
    const segments = path.split("/").slice(1).map((s: string) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
    let at: Map<string, Reached> = root;
    segments.forEach((segment: string, i: number) => {
      if (i === segments.length - 1) {
        at.set(segment, true);
        return;
      }
      const next = at.get(segment);
      if (next === true) return;
      const child = next ?? new Map<string, Reached>();
      at.set(segment, child);
      at = child;
    });
  }
  return root;
}

/** An object's metadata as Go marshals the stored ObjectMeta: struct order, labels and annotations sorted. */
function storedMetadata(meta: unknown): string {
  if (!isPlainObject(meta)) return JSON.stringify(meta);
  const keys = [
    ...OBJECT_META_ORDER.filter((k) => k in meta),
    ...Object.keys(meta).filter((k) => !OBJECT_META_ORDER.includes(k)),
  ];
  return `{${
    keys.map((k) =>
      `${JSON.stringify(k)}:${k === "labels" || k === "annotations" ? sortedJson(meta[k]) : JSON.stringify(meta[k])}`
    ).join(",")
  }}`;
}

function marshal(value: unknown, reached: Reached | undefined, key = ""): string {
  if (reached === undefined) return key === "metadata" ? storedMetadata(value) : JSON.stringify(value);
  if (reached === true) return sortedJson(value);
  if (Array.isArray(value)) return `[${value.map((v, i) => marshal(v, reached.get(String(i)))).join(",")}]`;
  if (!isPlainObject(value)) return JSON.stringify(value);
  return `{${
    Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${marshal(value[k], reached.get(k), k)}`).join(",")
  }}`;
}

/**
 * The JSON of `obj`, the result of a `merge` or `json` patch `patch`, as kube prints it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { patchedJson } from "./patched_json.ts";
 * const obj = { kind: "ConfigMap", metadata: { name: "a", labels: { z: 1 }, managedFields: [{ manager: "m", operation: "Update" }] } };
 * assert.equal(
 *   patchedJson(obj, { metadata: { labels: { z: 1 } } }, "merge"),
 *   '{"kind":"ConfigMap","metadata":{"labels":{"z":1},"managedFields":[{"manager":"m","operation":"Update"}],"name":"a"}}',
 * );
 * ```
 */
export function patchedJson(obj: unknown, patch: unknown, type: "merge" | "json" | "strategic"): string {
  const reached = type === "json" ? reachedByJsonPatch(patch) : reachedByMerge(patch);
  return marshal(obj, reached === true ? new Map() : reached);
}
