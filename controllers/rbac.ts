/**
 * kubeop's own RBAC: the names of its operator ({@link OPERATOR}) and deploy/rbac/ generated from each controller's
 * `RBAC` list by runtime/rbac.ts (the same generator every `kubeop init` project uses). tests/rbac_test.ts checks both
 * directions, per controller.
 * @module
 */

import type { CaBundleTargets } from "../runtime/webhook/ca_bundle_injector.ts";
import { type OperatorIdentity, rbacManifests as operatorRbacManifests, type RbacRule } from "../runtime/rbac.ts";

export {
  clusterRoleRules,
  LEADER_ELECTION_RBAC,
  METRICS_AUTH_RBAC,
  type PolicyRule,
  type RbacRule,
  READ,
  RUNTIME_RBAC,
} from "../runtime/rbac.ts";

/** Names used by the manifests (match deploy/operator/deployment.yaml). */
export const OPERATOR: OperatorIdentity = {
  namespace: "kubeop-system",
  serviceAccount: "kubeop-controller",
  role: "kubeop-controller",
};

/**
 * deploy/rbac/: the ServiceAccount; one ClusterRole (+binding) per controller from `byController`, so a cluster
 * running `--controllers machine` needs only `controller_machine_role.yaml`; the runtime's own (Events) and
 * `--metrics-secure`'s reviews, each bound to the ServiceAccount; the leader-election Role (+binding); and the
 * `metrics-reader` ClusterRole to bind to whoever scrapes /metrics (Prometheus' ServiceAccount). Given the webhooks'
 * caBundle targets, also the webhook server's roles (the CA Secret; the configurations and CRDs it injects into).
 */
export function rbacManifests(
  byController: Readonly<Record<string, readonly RbacRule[]>>,
  webhooks?: CaBundleTargets,
): Record<string, Record<string, unknown>> {
  return operatorRbacManifests(OPERATOR, byController, webhooks);
}
