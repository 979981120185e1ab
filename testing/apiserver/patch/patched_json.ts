/**
 * A patched object's JSON as kube-apiserver prints it when the result does not decode (`patch: Invalid value:
 * "<json>"`): the patch library (evanphx/json-patch) re-marshals only what it parsed — the top level and every object
 * the patch reaches, keys sorted as Go marshals maps, and whatever the patch supplied — and keeps every other value as
 * it was stored: as Go marshalled the typed object (go_struct_json.ts: struct order, maps sorted).
 * @module
 */
import { sortedJson } from "../go_marshal.ts";
import { goFieldNamed, goItemSlot, goJson, type GoSlot } from "../go_struct_json.ts";
import { registeredMessage } from "../protobuf_fields.ts";

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

/** ObjectMeta's slot: a custom resource's metadata is typed too (struct order, labels and annotations sorted). */
const OBJECT_META: GoSlot = { type: "meta.ObjectMeta", map: false, repeated: false };

function marshal(value: unknown, reached: Reached | undefined, slot: GoSlot | undefined, root = false): string {
  if (reached === undefined) return goJson(value, slot);
  if (reached === true) return sortedJson(value);
  const item = goItemSlot(slot);
  if (Array.isArray(value)) return `[${value.map((v, i) => marshal(v, reached.get(String(i)), item)).join(",")}]`;
  if (!isPlainObject(value)) return JSON.stringify(value);
  const child = (k: string) =>
    slot?.map ? item : goFieldNamed(slot?.type, k) ?? (root && k === "metadata" ? OBJECT_META : undefined);
  return `{${
    Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${marshal(value[k], reached.get(k), child(k))}`).join(
      ",",
    )
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
  const o = isPlainObject(obj) ? obj : {};
  const message = typeof o.apiVersion === "string" && typeof o.kind === "string"
    ? registeredMessage(o.apiVersion, o.kind)
    : undefined;
  const slot = message === undefined ? undefined : { type: message, map: false, repeated: false };
  return marshal(obj, reached === true ? new Map() : reached, slot, true);
}
