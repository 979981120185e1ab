/**
 * The bootstrap RBAC policy a real cluster has from its first start (kube-apiserver's rbac/bootstrap-roles
 * post-start hook; plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go): the ClusterRoles users commonly bind
 * (cluster-admin, admin, edit, view and their aggregate-to-* parts, system:basic-user, system:discovery,
 * system:public-info-viewer) and their default ClusterRoleBindings. Only the essential rules of each role; the
 * aggregated roles (admin, edit, view) get theirs from ./rbac_aggregation.ts, as on a real cluster.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** One rbac/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];
const READ_WRITE = [...READ, ...WRITE];
const AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-";

function rule(verbs: string[], apiGroups: string[], resources: string[]): PolicyRule {
  return { verbs, apiGroups, resources };
}

const VIEW_RULES: PolicyRule[] = [
  rule(READ, [""], [
    "configmaps",
    "endpoints",
    "persistentvolumeclaims",
    "persistentvolumeclaims/status",
    "pods",
    "replicationcontrollers",
    "replicationcontrollers/scale",
    "serviceaccounts",
    "services",
    "services/status",
  ]),
  rule(READ, [""], [
    "bindings",
    "events",
    "limitranges",
    "namespaces/status",
    "pods/log",
    "pods/status",
    "replicationcontrollers/status",
    "resourcequotas",
    "resourcequotas/status",
  ]),
  rule(READ, [""], ["namespaces"]),
  rule(READ, ["", "events.k8s.io"], ["events"]),
  rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
  rule(READ, ["apps"], [
    "controllerrevisions",
    "daemonsets",
    "daemonsets/status",
    "deployments",
    "deployments/scale",
    "deployments/status",
    "replicasets",
    "replicasets/scale",
    "replicasets/status",
    "statefulsets",
    "statefulsets/scale",
    "statefulsets/status",
  ]),
  rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
  rule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
  rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
  rule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
];

const EDIT_RULES: PolicyRule[] = [
  rule(READ, [""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"]),
  rule(["impersonate"], [""], ["serviceaccounts"]),
  rule(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
  rule(["create"], [""], ["pods/eviction"]),
  rule(WRITE, [""], [
    "configmaps",
    "events",
    "persistentvolumeclaims",
    "replicationcontrollers",
    "replicationcontrollers/scale",
    "secrets",
    "serviceaccounts",
    "services",
    "services/proxy",
  ]),
  rule(["create"], [""], ["serviceaccounts/token"]),
  rule(WRITE, ["apps"], [
    "daemonsets",
    "deployments",
    "deployments/rollback",
    "deployments/scale",
    "replicasets",
    "replicasets/scale",
    "statefulsets",
    "statefulsets/scale",
  ]),
  rule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
  rule(WRITE, ["batch"], ["cronjobs", "jobs"]),
  rule(WRITE, ["events.k8s.io"], ["events"]),
  rule(WRITE, ["policy"], ["poddisruptionbudgets"]),
  rule(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
  rule(READ_WRITE, ["coordination.k8s.io"], ["leases"]),
];

const ADMIN_RULES: PolicyRule[] = [
  rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
  rule(READ_WRITE, ["rbac.authorization.k8s.io"], ["rolebindings", "roles"]),
];

interface RoleSpec {
  name: string;
  labels?: Record<string, string>;
  rules?: PolicyRule[];
  aggregateFrom?: string;
}

const CLUSTER_ROLES: RoleSpec[] = [
  {
    name: "cluster-admin",
    rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, { verbs: ["*"], nonResourceURLs: ["*"] }],
  },
  {
    name: "system:discovery",
    rules: [{
      verbs: ["get"],
      nonResourceURLs: [
        "/api",
        "/api/*",
        "/apis",
        "/apis/*",
        "/healthz",
        "/livez",
        "/openapi",
        "/openapi/*",
        "/readyz",
        "/version",
        "/version/",
      ],
    }],
  },
  {
    name: "system:basic-user",
    rules: [
      rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ],
  },
  {
    name: "system:public-info-viewer",
    rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] }],
  },
  { name: "admin", aggregateFrom: "admin" },
  { name: "edit", labels: { [`${AGGREGATE}admin`]: "true" }, aggregateFrom: "edit" },
  { name: "view", labels: { [`${AGGREGATE}edit`]: "true" }, aggregateFrom: "view" },
  { name: "system:aggregate-to-admin", labels: { [`${AGGREGATE}admin`]: "true" }, rules: ADMIN_RULES },
  { name: "system:aggregate-to-edit", labels: { [`${AGGREGATE}edit`]: "true" }, rules: EDIT_RULES },
  { name: "system:aggregate-to-view", labels: { [`${AGGREGATE}view`]: "true" }, rules: VIEW_RULES },
];

const CLUSTER_ROLE_BINDINGS: Array<{ name: string; groups: string[] }> = [
  { name: "cluster-admin", groups: ["system:masters"] },
  { name: "system:basic-user", groups: ["system:authenticated"] },
  { name: "system:discovery", groups: ["system:authenticated"] },
  { name: "system:public-info-viewer", groups: ["system:authenticated", "system:unauthenticated"] },
];

const BOOTSTRAP_META = {
  labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
  annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
};

/** The bootstrap ClusterRoles as objects (aggregated ones with an empty rule list until aggregation runs). */
export function bootstrapClusterRoles(): KubeObject[] {
  return CLUSTER_ROLES.map((r) => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: {
      name: r.name,
      labels: { ...BOOTSTRAP_META.labels, ...r.labels },
      annotations: { ...BOOTSTRAP_META.annotations },
    },
    ...(r.aggregateFrom
      ? {
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`${AGGREGATE}${r.aggregateFrom}`]: "true" } }] },
        rules: [],
      }
      : { rules: copyJson(r.rules) }),
  }));
}

/** The bootstrap ClusterRoleBindings as objects. */
export function bootstrapClusterRoleBindings(): KubeObject[] {
  return CLUSTER_ROLE_BINDINGS.map((b) => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: b.name, labels: { ...BOOTSTRAP_META.labels }, annotations: { ...BOOTSTRAP_META.annotations } },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: b.name },
    subjects: b.groups.map((name) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name })),
  }));
}

const RBAC_GROUP = "rbac.authorization.k8s.io";

/** Creates each bootstrap ClusterRole and ClusterRoleBinding that does not exist yet (a restored data dir keeps its own). */
export function installBootstrapPolicy(store: FakeStore): void {
  const kinds: Array<[string, KubeObject[]]> = [
    ["clusterroles", bootstrapClusterRoles()],
    ["clusterrolebindings", bootstrapClusterRoleBindings()],
  ];
  for (const [plural, objects] of kinds) {
    const ref = { group: RBAC_GROUP, version: "v1", plural };
    const def = store.def(ref);
    for (const obj of objects) {
      if (!store.peek(def, undefined, obj.metadata.name!)) {
        store.create(ref, obj, { shared: true, fieldManager: "kube-apiserver" });
      }
    }
  }
}
