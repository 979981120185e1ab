/**
 * The built-in resources whose status strategy puts metadata back on a write of the status subresource (kube's
 * `<kind>StatusStrategy.PrepareForUpdate`, measured against kube-apiserver v1.37.2 by tests/differential/): a
 * Deployment's keeps its labels; the kinds that call metav1.ResetObjectMetaForStatus (or copy the whole ObjectMeta)
 * keep labels and annotations. Every other kind lets a status write change both, and records its writer as their
 * owner. Kept apart from the strategies, which say how each kind is defaulted and validated;
 * {@link withStatusMetadataResets} applies the table, {@link statusWrite} makes a status write's object.
 * @module
 */
import { RESET_OBJECT_META_FOR_STATUS, type ResourceStrategy, type StatusWritableMeta } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";

const ADMISSION_GROUP = "admissionregistration.k8s.io";

/** Group-resources (`group/plural`) and the metadata their status writes may not change. */
export const STATUS_METADATA_RESETS: ReadonlyMap<string, ReadonlyArray<StatusWritableMeta>> = new Map([
  ["apps/deployments", ["labels"]],
  ["apiregistration.k8s.io/apiservices", RESET_OBJECT_META_FOR_STATUS],
  ["networking.k8s.io/servicecidrs", RESET_OBJECT_META_FOR_STATUS],
  ["storage.k8s.io/csinodes", RESET_OBJECT_META_FOR_STATUS],
  ["storage.k8s.io/volumeattachments", RESET_OBJECT_META_FOR_STATUS],
  ["resource.k8s.io/resourceclaims", RESET_OBJECT_META_FOR_STATUS],
  ["resource.k8s.io/devicetaintrules", RESET_OBJECT_META_FOR_STATUS],
  ["flowcontrol.apiserver.k8s.io/flowschemas", RESET_OBJECT_META_FOR_STATUS],
  ["flowcontrol.apiserver.k8s.io/prioritylevelconfigurations", RESET_OBJECT_META_FOR_STATUS],
  ["storagemigration.k8s.io/storageversionmigrations", RESET_OBJECT_META_FOR_STATUS],
  [`${ADMISSION_GROUP}/validatingadmissionpolicies`, RESET_OBJECT_META_FOR_STATUS],
  [`${ADMISSION_GROUP}/mutatingadmissionpolicies`, RESET_OBJECT_META_FOR_STATUS],
]);

/**
 * The strategy entries with `statusKeepsMetadata` set on (or added for) every resource of
 * {@link STATUS_METADATA_RESETS}.
 *
 * @example
 * ```ts
 * import { withStatusMetadataResets } from "./status_metadata.ts";
 * const entries = withStatusMetadataResets([["apps/deployments", {}]]);
 * console.assert(entries[0][1].statusKeepsMetadata?.includes("labels"));
 * ```
 */
export function withStatusMetadataResets(
  entries: ReadonlyArray<[groupResource: string, strategy: ResourceStrategy]>,
): Array<[string, ResourceStrategy]> {
  const out: Array<[string, ResourceStrategy]> = entries.map(([gr, strategy]) => {
    const keeps = STATUS_METADATA_RESETS.get(gr);
    return [gr, keeps ? { ...strategy, statusKeepsMetadata: keeps } : strategy];
  });
  const listed = new Set(entries.map(([gr]) => gr));
  for (const [gr, keeps] of STATUS_METADATA_RESETS) {
    if (!listed.has(gr)) out.push([gr, { statusKeepsMetadata: keeps }]);
  }
  return out;
}

/**
 * What a write of the status subresource makes of `old`: the body's status, and the body's labels and annotations
 * unless the kind's status strategy keeps them (`statusKeepsMetadata`); the rest stays as stored.
 *
 * @example
 * ```ts
 * import { statusWrite } from "./status_metadata.ts";
 * const old = { metadata: { name: "d", labels: { a: "1" } }, spec: { x: 1 } };
 * const body = { metadata: { name: "d", labels: { a: "2" } }, spec: { x: 2 }, status: { ready: true } };
 * const next = statusWrite(old, body, { statusKeepsMetadata: ["labels"] });
 * console.assert(next.metadata.labels?.a === "1" && next.spec.x === 1 && next.status.ready);
 * ```
 */
export function statusWrite(old: KubeObject, body: KubeObject, strategy: ResourceStrategy): KubeObject {
  const next = copyJson(old);
  if (body.status === undefined) delete next.status;
  else next.status = body.status;
  for (const key of ["labels", "annotations"] as const) {
    if (body.metadata[key] !== undefined && !strategy.statusKeepsMetadata?.includes(key)) {
      next.metadata[key] = body.metadata[key];
    }
  }
  return next;
}
