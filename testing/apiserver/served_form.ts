/**
 * A stored object as one served version presents it (what the commit path answers and the field manager compares),
 * and which group kube's errors name a kind by: the internal (storage) type's — events.k8s.io/v1 Events are core `Event`s.
 * @module
 */
import { apiVersionOf } from "../../runtime/types.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { ResourceStrategy } from "./strategy.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/**
 * `obj` (stored form) as `def` serves it: converted by the strategy's conversion, else a shallow copy with the
 * definition's apiVersion and kind (first keys when new).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { servedForm } from "./served_form.ts";
 * const def = { group: "apps", version: "v1", kind: "Deployment" };
 * assert.equal(servedForm(def, {}, { metadata: { name: "web" } }).apiVersion, "apps/v1");
 * ```
 */
export function servedForm(
  def: Pick<ResourceDef, "group" | "version" | "kind">,
  strategy: Pick<ResourceStrategy, "conversion">,
  obj: KubeObject,
): KubeObject {
  if (strategy.conversion) return strategy.conversion.fromStorage(obj);
  const out: KubeObject = { apiVersion: apiVersionOf(def), kind: def.kind, ...obj };
  out.apiVersion = apiVersionOf(def);
  out.kind = def.kind;
  return out;
}

/**
 * `def` with the group kube's errors name its kind by (`Event "x" is invalid`, `Operation cannot be fulfilled on
 * Event "x"`): the group of the internal type the storage holds, not the request's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { internalKindDef } from "./served_form.ts";
 * const def = { group: "events.k8s.io", version: "v1", kind: "Event", plural: "events" };
 * assert.equal(internalKindDef(def, { conversion: { storageApiVersion: "v1" } }).group, "");
 * ```
 */
export function internalKindDef<D extends Pick<ResourceDef, "group">>(
  def: D,
  strategy: { conversion?: { storageApiVersion: string } },
): D {
  const storage = strategy.conversion?.storageApiVersion;
  if (storage === undefined) return def;
  return { ...def, group: storage.includes("/") ? storage.split("/")[0] : "" };
}
