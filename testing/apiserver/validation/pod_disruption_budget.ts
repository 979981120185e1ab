/**
 * PodDisruptionBudget validation as kube-apiserver v1.37 applies it (pkg/apis/policy/validation): minAvailable and
 * maxUnavailable not both set, each a non-negative count or a percentage of at most 100 %, the selector valid, a known
 * unhealthyPodEvictionPolicy; a status write's counts not negative.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldInvalid, fieldNotSupported, negativeFieldCauses } from "./field_errors.ts";
import { validateLabelSelector } from "./label_selector.ts";
import { intOrPercentCauses, percentOver100 } from "./workload_counts.ts";

/** Causes for a PodDisruptionBudget's spec. */
export function validatePdbSpec(pdb: KubeObject): StatusCause[] {
  const spec = pdb.spec && typeof pdb.spec === "object" ? pdb.spec : {};
  const causes: StatusCause[] = [];
  if (spec.minAvailable != null && spec.maxUnavailable != null) {
    // kube prints the internal struct: Go field names, no JSON tags.
    const shown = {
      MinAvailable: spec.minAvailable,
      Selector: spec.selector ?? null,
      MaxUnavailable: spec.maxUnavailable,
      UnhealthyPodEvictionPolicy: spec.unhealthyPodEvictionPolicy ?? null,
    };
    causes.push(fieldInvalid("spec", shown, "minAvailable and maxUnavailable cannot be both set"));
  }
  for (const field of ["minAvailable", "maxUnavailable"]) {
    if (spec[field] == null) continue;
    causes.push(...intOrPercentCauses(spec[field], `spec.${field}`));
    if (percentOver100(spec[field])) {
      causes.push(fieldInvalid(`spec.${field}`, spec[field], "must not be greater than 100%"));
    }
  }
  causes.push(...validateLabelSelector(spec.selector, "spec.selector"));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy != null && !["AlwaysAllow", "IfHealthyBudget"].includes(policy)) {
    causes.push(fieldNotSupported("spec.unhealthyPodEvictionPolicy", policy, ["AlwaysAllow", "IfHealthyBudget"]));
  }
  return causes;
}

/** Causes for a status write: the counts not negative. */
export function validatePdbStatus(pdb: KubeObject): StatusCause[] {
  const status = pdb.status && typeof pdb.status === "object" ? pdb.status : {};
  return negativeFieldCauses(
    status,
    ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"],
    "status",
  );
}
