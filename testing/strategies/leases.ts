/**
 * coordination.k8s.io Leases: PUT creates a missing Lease (kube's lease strategy allows create on update), which
 * leader-election clients rely on.
 * @module
 */
import type { ResourceStrategy } from "../strategy.ts";

/** The strategy of coordination.k8s.io/v1 leases. */
export const LEASES: ResourceStrategy = { allowCreateOnUpdate: true };
