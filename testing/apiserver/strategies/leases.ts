/**
 * coordination.k8s.io Leases: PUT creates a missing Lease (kube's lease strategy allows create on update), which
 * leader-election clients rely on. Validated as kube-apiserver v1.37 does (pkg/apis/coordination/validation):
 * leaseDurationSeconds > 0, leaseTransitions ≥ 0; acquireTime and renewTime are MicroTimes (six fractional digits,
 * else 400 from the decoder).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceStrategy } from "../strategy.ts";
import { fieldInvalid } from "../validation/field_errors.ts";
import { microTimeError } from "../validation/micro_time.ts";

function validateLease(lease: KubeObject): StatusCause[] {
  const spec = lease.spec ?? {};
  const causes: StatusCause[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === "number" && duration <= 0) {
    causes.push(fieldInvalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  }
  const transitions = spec.leaseTransitions;
  if (typeof transitions === "number" && transitions < 0) {
    causes.push(fieldInvalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
  }
  return causes;
}

/** The strategy of coordination.k8s.io/v1 leases. */
export const LEASES: ResourceStrategy = {
  allowCreateOnUpdate: true,
  // strategy and preferredHolder belong to the CoordinatedLeaderElection feature, off by default: dropped.
  default(lease: KubeObject): void {
    if (lease.spec && typeof lease.spec === "object") {
      delete lease.spec.strategy;
      delete lease.spec.preferredHolder;
    }
  },
  decodeError: (body) => microTimeError(body.spec?.acquireTime) ?? microTimeError(body.spec?.renewTime),
  validate: validateLease,
  validateUpdate: validateLease,
};
