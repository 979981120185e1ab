/**
 * Resource quantities as kube-apiserver's decoder leaves them: resource.Quantity parses its JSON (a string or a
 * number) and marshals its canonical text unless it kept the text it parsed (resource_quantity.ts storedQuantityText),
 * so a built-in object is stored, served and shown to admission webhooks with `cpu: "0.5"` as `500m`, `memory:
 * "2048Mi"` as `2Gi` and `cpu: 1` as `"1"`; a core v1 ResourceList's values are rounded to milli units first
 * (`100u` → `1m`). Text Quantity cannot parse is left as it is (go_json_types.ts refuses it before this runs).
 * @module
 */
import type { ScalarSlot } from "./go_json_unknown.ts";
import { storedQuantityText } from "./resource_quantity.ts";

/**
 * The `onScalar` hook of go_json_unknown.ts's walk that rewrites each `quantity` field (and each quantity of a map
 * such as a ResourceList) as its canonical text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dropUnknownGoFields } from "./go_json_unknown.ts";
 * import { canonicalQuantity } from "./go_json_quantities.ts";
 * const pod = { spec: { containers: [{ name: "c", resources: { requests: { cpu: "0.5", memory: 1024, x: "1n" } } }] } };
 * dropUnknownGoFields("", "v1", "Pod", pod, { onScalar: canonicalQuantity });
 * assert.deepEqual(pod.spec.containers[0].resources.requests, { cpu: "500m", memory: "1024", x: "1m" });
 * ```
 */
export function canonicalQuantity(parent: Record<string, unknown>, key: string, at: ScalarSlot): void {
  if (at.type !== "quantity") return;
  const value = parent[key];
  if (typeof value !== "string" && typeof value !== "number") return;
  // A core v1 struct's map of quantities is a v1.ResourceList: SetDefaults_ResourceList rounds it to milli units.
  const resourceList = at.inMap && at.struct.startsWith("io.k8s.api.core.v1.");
  parent[key] = storedQuantityText(String(value), { resourceList }) ?? value;
}
