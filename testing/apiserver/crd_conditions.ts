/**
 * A CRD's deletion finalizer and kube's SetCRDCondition (apiextensions helpers), shared by the CRD strategy (which
 * marks a deleted CRD) and the CRD finalizer controller (crd_finalizer.ts).
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** The finalizer a CRD's deletion adds and the CRD finalizer controller removes. */
export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";
/** One CRD status condition. */
export interface CrdCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/**
 * kube's SetCRDCondition: replaces the condition of the same type (its lastTransitionTime kept unless the status
 * flips) or appends it.
 */
export function setCrdCondition(
  crd: KubeObject,
  condition: Omit<CrdCondition, "lastTransitionTime">,
  now: string,
): void {
  crd.status = crd.status && typeof crd.status === "object" ? crd.status : {};
  const conditions: CrdCondition[] = Array.isArray(crd.status.conditions) ? crd.status.conditions : [];
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) conditions.push({ ...condition, lastTransitionTime: now });
  else {
    if (existing.status !== condition.status) existing.lastTransitionTime = now;
    Object.assign(existing, { status: condition.status, reason: condition.reason, message: condition.message });
  }
  crd.status.conditions = conditions;
}
