/**
 * Least-privilege RBAC generated from code: each controller declares an `RBAC` list of the API calls it makes;
 * {@link clusterRoleRules} folds a list into ClusterRole rules and {@link rbacManifests} writes an operator's RBAC
 * objects (ServiceAccount, one ClusterRole + binding per controller, what the runtime itself needs: Events, Leases,
 * the reviews of `--metrics-secure`, and the webhook server's certificates), named after an {@link OperatorIdentity}.
 * kubeop's own deploy/rbac/ and every `kubeop init` project's deploy/rbac/ are its output.
 * @module
 */

import type { CaBundleTargets } from "./webhook/ca_bundle_injector.ts";
import { WEBHOOK_DEFAULTS } from "./webhook/manifests.ts";
import { compareStrings } from "./apimachinery/string_order.ts";

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

/** Who the RBAC objects are for: the operator's namespace, ServiceAccount and the prefix of its role names. */
export interface OperatorIdentity {
  /** The operator's namespace (ServiceAccount, leader-election Role, webhook CA Secret). */
  namespace: string;
  /** The operator Pods' ServiceAccount. */
  serviceAccount: string;
  /** Prefix of every (Cluster)Role name: `<role>-<controller>`, `<role>-runtime`, … */
  role: string;
  /** `app.kubernetes.io/name` label of every object (default `kubeop`). */
  appName?: string;
  /** Name of the ClusterRole granting GET /metrics (default `<appName>-metrics-reader`). */
  metricsReaderRole?: string;
  /** The webhook Service's name: its CA Secret is `<name>-ca` (default `kubeop-webhook`). */
  webhookServiceName?: string;
}

/**
 * `--metrics-secure`: the operator reviews scrapers' tokens (TokenReview) and asks whether they may read /metrics
 * (SubjectAccessReview), as kubebuilder's `metrics-auth-role` allows.
 */
export const METRICS_AUTH_RBAC: readonly RbacRule[] = [
  { group: "authentication.k8s.io", resource: "tokenreviews", verbs: ["create"] },
  { group: "authorization.k8s.io", resource: "subjectaccessreviews", verbs: ["create"] },
];

/** Label and subject of an identity's objects. */
function namesOf(id: OperatorIdentity) {
  return {
    labels: { "app.kubernetes.io/name": id.appName ?? "kubeop" },
    subject: { kind: "ServiceAccount", name: id.serviceAccount, namespace: id.namespace },
  };
}

/** A ClusterRole with `rules` and its binding to the operator's ServiceAccount: `{name}_role.yaml` and `_binding`. */
function boundClusterRole(
  id: OperatorIdentity,
  file: string,
  name: string,
  rules: PolicyRule[],
): Record<string, Record<string, unknown>> {
  const { labels, subject } = namesOf(id);
  return {
    [`${file}_role.yaml`]: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name, labels },
      rules,
    },
    [`${file}_role_binding.yaml`]: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [subject],
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
  id: OperatorIdentity,
  byController: Readonly<Record<string, readonly RbacRule[]>>,
  webhooks?: CaBundleTargets,
): Record<string, Record<string, unknown>> {
  const { labels, subject } = namesOf(id);
  const out: Record<string, Record<string, unknown>> = {
    "service_account.yaml": {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: id.serviceAccount, namespace: id.namespace, labels },
    },
    ...boundClusterRole(id, "runtime", `${id.role}-runtime`, clusterRoleRules(RUNTIME_RBAC)),
  };
  for (const [controller, rules] of Object.entries(byController)) {
    Object.assign(
      out,
      boundClusterRole(id, `controller_${controller}`, `${id.role}-${controller}`, clusterRoleRules(rules)),
    );
  }
  Object.assign(
    out,
    boundClusterRole(id, "metrics_auth", `${id.role}-metrics-auth`, clusterRoleRules(METRICS_AUTH_RBAC)),
  );
  out["metrics_reader_role.yaml"] = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: id.metricsReaderRole ?? `${id.appName ?? "kubeop"}-metrics-reader`, labels },
    rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
  };
  out["leader_election_role.yaml"] = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: `${id.role}-leader-election`, namespace: id.namespace, labels },
    rules: clusterRoleRules(LEADER_ELECTION_RBAC),
  };
  out["leader_election_role_binding.yaml"] = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: `${id.role}-leader-election`, namespace: id.namespace, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${id.role}-leader-election` },
    subjects: [subject],
  };
  if (webhooks) Object.assign(out, webhookRbac(id, webhooks));
  return out;
}

/**
 * The webhook server's self-managed certificates: read, create and rotate the CA Secret (a Role in the operator's
 * namespace; `create` cannot be limited to a name), and inject the caBundle into kubeop's own
 * WebhookConfigurations and converting CRDs — by name, nothing else.
 */
function webhookRbac(id: OperatorIdentity, targets: CaBundleTargets): Record<string, Record<string, unknown>> {
  const { labels, subject } = namesOf(id);
  const named = (group: string, resource: string, names: string[] | undefined) =>
    names?.length
      ? [{ apiGroups: [group], resources: [resource], resourceNames: names, verbs: ["get", "update"] }]
      : [];
  const rules = [
    ...named("admissionregistration.k8s.io", "mutatingwebhookconfigurations", targets.mutating),
    ...named("admissionregistration.k8s.io", "validatingwebhookconfigurations", targets.validating),
    ...named("apiextensions.k8s.io", "customresourcedefinitions", targets.crds),
  ];
  const name = `${id.role}-webhook`;
  const secretName = `${id.webhookServiceName ?? WEBHOOK_DEFAULTS.serviceName}-ca`;
  return {
    ...boundClusterRole(id, "webhook", name, rules),
    "webhook_secret_role.yaml": {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, namespace: id.namespace, labels },
      rules: [
        { apiGroups: [""], resources: ["secrets"], resourceNames: [secretName], verbs: ["get", "update"] },
        { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
      ],
    },
    "webhook_secret_role_binding.yaml": {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace: id.namespace, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [subject],
    },
  };
}
