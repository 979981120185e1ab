/**
 * Least-privilege RBAC, declared next to the code that needs it: each controller exports an `RBAC` list of the
 * API calls it makes; {@link clusterRoleRules} folds each into that controller's ClusterRole in deploy/rbac/ (plus
 * what the runtime itself needs: Events, Leases, and the reviews of `--metrics-secure`). tests/rbac_test.ts checks
 * both directions, per controller.
 * @module
 */

import type { CaBundleTargets } from "../runtime/webhook/ca_bundle_injector.ts";
import { WEBHOOK_DEFAULTS } from "../runtime/webhook/manifests.ts";
import { compareStrings } from "../runtime/apimachinery/string_order.ts";

/** Permission to call `verbs` on `resource` (`plural` or `plural/subresource`) in API group `group`. */
export interface RbacRule {
  /** "" for the core group. */
  group: string;
  /** `plural` or `plural/subresource`. */
  resource: string;
  /** Kubernetes verbs: get, list, watch, create, update, patch, delete. */
  verbs: readonly string[];
}

/** The verbs an informer needs (list + watch; get for cache misses the controllers confirm against the API). */
export const READ = ["get", "list", "watch"] as const;

/** What the runtime does for every controller, in any namespace: Events (events.k8s.io/v1, create + patch for series). */
export const RUNTIME_RBAC: readonly RbacRule[] = [
  { group: "events.k8s.io", resource: "events", verbs: ["create", "patch"] },
];

/**
 * Leader election and the shard ring (`--shards auto`, docs/sharding.md), in the operator's namespace (a namespaced
 * Role, not the ClusterRole): the leader Lease, the bucket and member Leases (listed by label; a member deletes its own
 * Lease when it leaves; a standby watches the leader Lease to take it over as soon as it is released).
 */
export const LEADER_ELECTION_RBAC: readonly RbacRule[] = [
  { group: "coordination.k8s.io", resource: "leases", verbs: ["get", "list", "watch", "create", "update", "delete"] },
];

const VERB_ORDER = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];

/** A ClusterRole rule (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  /** API groups ("" = core). */
  apiGroups: string[];
  /** Resources (`plural` or `plural/sub`). */
  resources: string[];
  /** Allowed verbs. */
  verbs: string[];
}

/** One PolicyRule per (group, resource) with the union of the verbs, sorted for stable output. */
export function clusterRoleRules(rules: readonly RbacRule[]): PolicyRule[] {
  const byResource = new Map<string, Set<string>>();
  for (const r of rules) {
    const key = `${r.group}\u0000${r.resource}`;
    const verbs = byResource.get(key) ?? new Set<string>();
    for (const v of r.verbs) verbs.add(v);
    byResource.set(key, verbs);
  }
  return [...byResource.entries()]
    .map(([key, verbs]) => {
      const [group, resource] = key.split("\u0000");
      return {
        apiGroups: [group],
        resources: [resource],
        verbs: [...verbs].sort((a, b) => VERB_ORDER.indexOf(a) - VERB_ORDER.indexOf(b)),
      };
    })
    .sort((a, b) => compareStrings(`${a.apiGroups[0]}/${a.resources[0]}`, `${b.apiGroups[0]}/${b.resources[0]}`));
}

/** Names used by the manifests (match deploy/operator/deployment.yaml). */
export const OPERATOR = { namespace: "kubeop-system", serviceAccount: "kubeop-controller", role: "kubeop-controller" };

/**
 * `--metrics-secure`: the operator reviews scrapers' tokens (TokenReview) and asks whether they may read /metrics
 * (SubjectAccessReview), as kubebuilder's `metrics-auth-role` allows.
 */
export const METRICS_AUTH_RBAC: readonly RbacRule[] = [
  { group: "authentication.k8s.io", resource: "tokenreviews", verbs: ["create"] },
  { group: "authorization.k8s.io", resource: "subjectaccessreviews", verbs: ["create"] },
];

const LABELS = { "app.kubernetes.io/name": "kubeop" };
const SUBJECT = { kind: "ServiceAccount", name: OPERATOR.serviceAccount, namespace: OPERATOR.namespace };

/** A ClusterRole with `rules` and its binding to the operator's ServiceAccount: `{name}_role.yaml` and `_binding`. */
function boundClusterRole(file: string, name: string, rules: PolicyRule[]): Record<string, Record<string, unknown>> {
  return {
    [`${file}_role.yaml`]: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name, labels: LABELS },
      rules,
    },
    [`${file}_role_binding.yaml`]: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name, labels: LABELS },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [SUBJECT],
    },
  };
}

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
  const out: Record<string, Record<string, unknown>> = {
    "service_account.yaml": {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: OPERATOR.serviceAccount, namespace: OPERATOR.namespace, labels: LABELS },
    },
    ...boundClusterRole("runtime", `${OPERATOR.role}-runtime`, clusterRoleRules(RUNTIME_RBAC)),
  };
  for (const [controller, rules] of Object.entries(byController)) {
    Object.assign(
      out,
      boundClusterRole(`controller_${controller}`, `${OPERATOR.role}-${controller}`, clusterRoleRules(rules)),
    );
  }
  Object.assign(
    out,
    boundClusterRole("metrics_auth", `${OPERATOR.role}-metrics-auth`, clusterRoleRules(METRICS_AUTH_RBAC)),
  );
  out["metrics_reader_role.yaml"] = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "kubeop-metrics-reader", labels: LABELS },
    rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
  };
  out["leader_election_role.yaml"] = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: `${OPERATOR.role}-leader-election`, namespace: OPERATOR.namespace, labels: LABELS },
    rules: clusterRoleRules(LEADER_ELECTION_RBAC),
  };
  out["leader_election_role_binding.yaml"] = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: `${OPERATOR.role}-leader-election`, namespace: OPERATOR.namespace, labels: LABELS },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${OPERATOR.role}-leader-election` },
    subjects: [SUBJECT],
  };
  if (webhooks) Object.assign(out, webhookRbac(webhooks));
  return out;
}

/**
 * The webhook server's self-managed certificates: read, create and rotate the CA Secret (a Role in the operator's
 * namespace; `create` cannot be limited to a name), and inject the caBundle into kubeop's own
 * WebhookConfigurations and converting CRDs — by name, nothing else.
 */
function webhookRbac(targets: CaBundleTargets): Record<string, Record<string, unknown>> {
  const named = (group: string, resource: string, names: string[] | undefined) =>
    names?.length
      ? [{ apiGroups: [group], resources: [resource], resourceNames: names, verbs: ["get", "update"] }]
      : [];
  const rules = [
    ...named("admissionregistration.k8s.io", "mutatingwebhookconfigurations", targets.mutating),
    ...named("admissionregistration.k8s.io", "validatingwebhookconfigurations", targets.validating),
    ...named("apiextensions.k8s.io", "customresourcedefinitions", targets.crds),
  ];
  const name = `${OPERATOR.role}-webhook`;
  const secretName = `${WEBHOOK_DEFAULTS.serviceName}-ca`;
  return {
    ...boundClusterRole("webhook", name, rules),
    "webhook_secret_role.yaml": {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, namespace: OPERATOR.namespace, labels: LABELS },
      rules: [
        { apiGroups: [""], resources: ["secrets"], resourceNames: [secretName], verbs: ["get", "update"] },
        { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
      ],
    },
    "webhook_secret_role_binding.yaml": {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace: OPERATOR.namespace, labels: LABELS },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [SUBJECT],
    },
  };
}
