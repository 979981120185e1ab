/**
 * The built-in resources whose kube strategy answers `AllowUnconditionalUpdate() == false`: an update (PUT) without
 * `metadata.resourceVersion` is refused with 422 `metadata.resourceVersion: Invalid value: 0: must be specified for
 * an update` (measured against kube-apiserver v1.37.2 by tests/differential/). Kept apart from the strategies
 * themselves, which say how each kind is defaulted and validated; {@link withConditionalUpdates} applies the list.
 * @module
 */
import type { ResourceStrategy } from "../strategy.ts";

const ADMISSION_GROUP = "admissionregistration.k8s.io";

/** Group-resources (`group/plural`) that refuse updates without a resourceVersion. */
export const CONDITIONAL_UPDATE_RESOURCES: ReadonlySet<string> = new Set([
  "apiextensions.k8s.io/customresourcedefinitions",
  "apiregistration.k8s.io/apiservices",
  "certificates.k8s.io/clustertrustbundles",
  "coordination.k8s.io/leases",
  "node.k8s.io/runtimeclasses",
  "policy/poddisruptionbudgets",
  "resource.k8s.io/devicetaintrules",
  "storage.k8s.io/csidrivers",
  "storage.k8s.io/csinodes",
  "storage.k8s.io/csistoragecapacities",
  "storage.k8s.io/volumeattachments",
  "storagemigration.k8s.io/storageversionmigrations",
  `${ADMISSION_GROUP}/mutatingadmissionpolicies`,
  `${ADMISSION_GROUP}/mutatingadmissionpolicybindings`,
  `${ADMISSION_GROUP}/mutatingwebhookconfigurations`,
  `${ADMISSION_GROUP}/validatingadmissionpolicies`,
  `${ADMISSION_GROUP}/validatingadmissionpolicybindings`,
  `${ADMISSION_GROUP}/validatingwebhookconfigurations`,
]);

/**
 * The strategy entries with `allowUnconditionalUpdate: false` set on (or added for) every resource of
 * {@link CONDITIONAL_UPDATE_RESOURCES}.
 *
 * @example
 * ```ts
 * import { withConditionalUpdates } from "./conditional_updates.ts";
 * const entries = withConditionalUpdates([["/pods", {}]]);
 * const leases = entries.find(([gr]) => gr === "coordination.k8s.io/leases");
 * console.assert(leases?.[1].allowUnconditionalUpdate === false);
 * ```
 */
export function withConditionalUpdates(
  entries: ReadonlyArray<[groupResource: string, strategy: ResourceStrategy]>,
): Array<[string, ResourceStrategy]> {
  const out: Array<[string, ResourceStrategy]> = entries.map(([gr, strategy]) => [
    gr,
    CONDITIONAL_UPDATE_RESOURCES.has(gr) ? { ...strategy, allowUnconditionalUpdate: false } : strategy,
  ]);
  const listed = new Set(entries.map(([gr]) => gr));
  for (const gr of CONDITIONAL_UPDATE_RESOURCES) {
    if (!listed.has(gr)) out.push([gr, { allowUnconditionalUpdate: false }]);
  }
  return out;
}
