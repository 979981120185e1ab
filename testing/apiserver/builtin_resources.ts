/**
 * The built-in resources the fake API server serves from start-up (core kinds with behaviour, rbac/apps/batch stored
 * only). CRDs add more at run time (crd.ts).
 * @module
 */
import type { ResourceDef } from "./resource_def.ts";

/** The verbs of an ordinary stored resource. */
export const STANDARD_VERBS: readonly string[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

interface BuiltinSpec {
  group?: string;
  version?: string;
  plural: string;
  kind: string;
  singular?: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: string[];
  tracksGeneration?: boolean;
  storedOnly?: boolean;
  verbs?: string[];
  /** kube-apiserver's `Warning` on every request to a deprecated built-in API. */
  deprecationWarning?: string;
}

function def(spec: BuiltinSpec): ResourceDef {
  return {
    group: spec.group ?? "",
    version: spec.version ?? "v1",
    plural: spec.plural,
    singular: spec.singular ?? spec.kind.toLowerCase(),
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    namespaced: spec.namespaced ?? true,
    verbs: spec.verbs ?? [...STANDARD_VERBS],
    shortNames: spec.shortNames,
    categories: spec.categories,
    subresources: spec.subresources ?? [],
    tracksGeneration: spec.tracksGeneration ?? false,
    custom: false,
    storedOnly: spec.storedOnly,
    ...(spec.deprecationWarning ? { deprecationWarning: spec.deprecationWarning } : {}),
  };
}

const RBAC = "rbac.authorization.k8s.io";

/** Stored-only kinds (`group/plural`) whose objects carry metadata.generation, from 1 on create. */
const GENERATION_COUNTED = new Set([
  "/podtemplates",
  "/replicationcontrollers",
  "autoscaling/horizontalpodautoscalers",
  "networking.k8s.io/ingressclasses",
  "networking.k8s.io/ingresses",
  "networking.k8s.io/networkpolicies",
  "policy/poddisruptionbudgets",
  "scheduling.k8s.io/priorityclasses",
  "discovery.k8s.io/endpointslices",
  "resource.k8s.io/deviceclasses",
  "resource.k8s.io/devicetaintrules",
  "resource.k8s.io/resourceslices",
  "flowcontrol.apiserver.k8s.io/flowschemas",
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
]);
const CREATE_ONLY = ["create"];

/** Every built-in resource, core first. */
export const BUILTIN_RESOURCES: readonly ResourceDef[] = [
  def({
    plural: "namespaces",
    kind: "Namespace",
    namespaced: false,
    shortNames: ["ns"],
    subresources: ["status", "finalize"],
    // kube-apiserver serves no deletecollection on namespaces (405).
    verbs: STANDARD_VERBS.filter((v) => v !== "deletecollection"),
  }),
  def({
    plural: "pods",
    kind: "Pod",
    shortNames: ["po"],
    categories: ["all"],
    subresources: [
      "status",
      "log",
      "binding",
      "eviction",
      "exec",
      "attach",
      "portforward",
      "proxy",
      "ephemeralcontainers",
      "resize",
    ],
    // v1.37 pods carry metadata.generation (PodObservedGenerationTracking).
    tracksGeneration: true,
  }),
  def({ plural: "secrets", kind: "Secret" }),
  def({ plural: "configmaps", kind: "ConfigMap", shortNames: ["cm"] }),
  def({
    plural: "services",
    kind: "Service",
    shortNames: ["svc"],
    categories: ["all"],
    subresources: ["status", "proxy"],
  }),
  def({
    plural: "endpoints",
    kind: "Endpoints",
    singular: "endpoints",
    shortNames: ["ep"],
    deprecationWarning: "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
  }),
  def({ plural: "serviceaccounts", kind: "ServiceAccount", shortNames: ["sa"], subresources: ["token"] }),
  def({ plural: "nodes", kind: "Node", namespaced: false, shortNames: ["no"], subresources: ["status", "proxy"] }),
  // Served by their own handlers (pod_subresources.ts, component_statuses.ts), never stored.
  def({ plural: "bindings", kind: "Binding", verbs: CREATE_ONLY }),
  def({
    plural: "componentstatuses",
    kind: "ComponentStatus",
    namespaced: false,
    shortNames: ["cs"],
    verbs: ["get", "list"],
    deprecationWarning: "v1 ComponentStatus is deprecated in v1.19+",
  }),
  def({ plural: "events", kind: "Event", shortNames: ["ev"] }),
  def({
    plural: "persistentvolumeclaims",
    kind: "PersistentVolumeClaim",
    shortNames: ["pvc"],
    storedOnly: true,
    subresources: ["status"],
  }),
  def({
    plural: "resourcequotas",
    kind: "ResourceQuota",
    shortNames: ["quota"],
    storedOnly: true,
    subresources: ["status"],
  }),
  def({ group: "events.k8s.io", plural: "events", kind: "Event", shortNames: ["ev"] }),
  def({ group: "coordination.k8s.io", plural: "leases", kind: "Lease" }),
  def({ group: RBAC, plural: "roles", kind: "Role", storedOnly: true }),
  def({ group: RBAC, plural: "rolebindings", kind: "RoleBinding", storedOnly: true }),
  def({ group: RBAC, plural: "clusterroles", kind: "ClusterRole", namespaced: false, storedOnly: true }),
  def({ group: RBAC, plural: "clusterrolebindings", kind: "ClusterRoleBinding", namespaced: false, storedOnly: true }),
  ...[
    "deployments:Deployment:deploy",
    "replicasets:ReplicaSet:rs",
    "statefulsets:StatefulSet:sts",
    "daemonsets:DaemonSet:ds",
  ]
    .map((s) => {
      const [plural, kind, short] = s.split(":");
      return def({
        group: "apps",
        plural,
        kind,
        shortNames: [short],
        categories: ["all"],
        // DaemonSets have no scale subresource in kube-apiserver.
        subresources: plural === "daemonsets" ? ["status"] : ["status", "scale"],
        tracksGeneration: true,
        storedOnly: true,
      });
    }),
  def({
    group: "batch",
    plural: "jobs",
    kind: "Job",
    categories: ["all"],
    subresources: ["status"],
    tracksGeneration: true,
    storedOnly: true,
  }),
  def({
    group: "batch",
    plural: "cronjobs",
    kind: "CronJob",
    shortNames: ["cj"],
    categories: ["all"],
    subresources: ["status"],
    tracksGeneration: true,
    storedOnly: true,
  }),
  // Stored only: what a v1.37 server advertises in common groups, so `kubectl api-resources`, `kubectl get
  // ingress|pdb|hpa|sc|...` and manifests that ship them work (no controller acts on them).
  ...[
    ["limitranges", "LimitRange", "limits"],
    ["podtemplates", "PodTemplate"],
    ["replicationcontrollers", "ReplicationController", "rc", "status,scale"],
    ["persistentvolumes", "PersistentVolume", "pv", "status", "cluster"],
    ["apps:controllerrevisions", "ControllerRevision"],
    ["autoscaling/v2:horizontalpodautoscalers", "HorizontalPodAutoscaler", "hpa", "status"],
    ["autoscaling/v1:horizontalpodautoscalers", "HorizontalPodAutoscaler", "hpa", "status"],
    ["networking.k8s.io:ingresses", "Ingress", "ing", "status"],
    ["networking.k8s.io:ingressclasses", "IngressClass", "", "", "cluster"],
    ["networking.k8s.io:networkpolicies", "NetworkPolicy", "netpol"],
    ["policy:poddisruptionbudgets", "PodDisruptionBudget", "pdb", "status"],
    ["storage.k8s.io:storageclasses", "StorageClass", "sc", "", "cluster"],
    ["storage.k8s.io:csidrivers", "CSIDriver", "", "", "cluster"],
    ["storage.k8s.io:csinodes", "CSINode", "", "status", "cluster"],
    ["storage.k8s.io:csistoragecapacities", "CSIStorageCapacity"],
    ["storage.k8s.io:volumeattributesclasses", "VolumeAttributesClass", "vac", "", "cluster"],
    ["networking.k8s.io:ipaddresses", "IPAddress", "ip", "", "cluster"],
    ["networking.k8s.io:servicecidrs", "ServiceCIDR", "", "status", "cluster"],
    ["certificates.k8s.io:certificatesigningrequests", "CertificateSigningRequest", "csr", "status", "cluster"],
    ["certificates.k8s.io:clustertrustbundles", "ClusterTrustBundle", "", "", "cluster"],
    ["certificates.k8s.io:podcertificaterequests", "PodCertificateRequest", "", "status"],
    ["flowcontrol.apiserver.k8s.io:flowschemas", "FlowSchema", "", "status", "cluster"],
    ["flowcontrol.apiserver.k8s.io:prioritylevelconfigurations", "PriorityLevelConfiguration", "", "status", "cluster"],
    ["resource.k8s.io:deviceclasses", "DeviceClass", "", "", "cluster"],
    ["resource.k8s.io:devicetaintrules", "DeviceTaintRule", "", "status", "cluster"],
    ["resource.k8s.io:resourceclaims", "ResourceClaim", "", "status"],
    ["resource.k8s.io:resourceclaimtemplates", "ResourceClaimTemplate"],
    ["resource.k8s.io:resourceslices", "ResourceSlice", "", "", "cluster"],
    ["storagemigration.k8s.io:storageversionmigrations", "StorageVersionMigration", "", "status", "cluster"],
    ["storage.k8s.io:volumeattachments", "VolumeAttachment", "", "status", "cluster"],
    ["scheduling.k8s.io:priorityclasses", "PriorityClass", "pc", "", "cluster"],
    ["node.k8s.io:runtimeclasses", "RuntimeClass", "", "", "cluster"],
    ["discovery.k8s.io:endpointslices", "EndpointSlice"],
    [
      "admissionregistration.k8s.io:validatingwebhookconfigurations",
      "ValidatingWebhookConfiguration",
      "",
      "",
      "cluster",
    ],
    ["admissionregistration.k8s.io:mutatingwebhookconfigurations", "MutatingWebhookConfiguration", "", "", "cluster"],
    [
      "admissionregistration.k8s.io:validatingadmissionpolicies",
      "ValidatingAdmissionPolicy",
      "",
      "status",
      "cluster",
    ],
    [
      "admissionregistration.k8s.io:validatingadmissionpolicybindings",
      "ValidatingAdmissionPolicyBinding",
      "",
      "",
      "cluster",
    ],
    ["admissionregistration.k8s.io:mutatingadmissionpolicies", "MutatingAdmissionPolicy", "", "", "cluster"],
    [
      "admissionregistration.k8s.io:mutatingadmissionpolicybindings",
      "MutatingAdmissionPolicyBinding",
      "",
      "",
      "cluster",
    ],
  ].map(([where, kind, short, sub, scope]) => {
    const [gv, plural] = where.includes(":") ? where.split(":") : ["", where];
    const [group, version] = gv.split("/");
    return def({
      group,
      version: version ?? "v1",
      plural,
      kind,
      shortNames: short ? [short] : undefined,
      subresources: sub ? sub.split(",") : [],
      namespaced: scope !== "cluster",
      categories: plural === "replicationcontrollers" || plural === "horizontalpodautoscalers" ? ["all"] : undefined,
      storedOnly: true,
      // Kinds whose strategies' PrepareForCreate/Update count generations (as a v1.37 server answers).
      tracksGeneration: group === "admissionregistration.k8s.io" || GENERATION_COUNTED.has(`${group}/${plural}`),
    });
  }),
  def({
    group: "apiextensions.k8s.io",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
    shortNames: ["crd", "crds"],
    subresources: ["status"],
    tracksGeneration: true,
  }),
  def({
    group: "apiregistration.k8s.io",
    plural: "apiservices",
    kind: "APIService",
    namespaced: false,
    subresources: ["status"],
  }),
  def({
    group: "authorization.k8s.io",
    plural: "subjectaccessreviews",
    kind: "SubjectAccessReview",
    namespaced: false,
    verbs: CREATE_ONLY,
  }),
  def({
    group: "authorization.k8s.io",
    plural: "selfsubjectaccessreviews",
    kind: "SelfSubjectAccessReview",
    namespaced: false,
    verbs: CREATE_ONLY,
  }),
  def({
    group: "authentication.k8s.io",
    plural: "tokenreviews",
    kind: "TokenReview",
    namespaced: false,
    verbs: CREATE_ONLY,
  }),
  ...[
    "authorization.k8s.io:localsubjectaccessreviews:LocalSubjectAccessReview:ns",
    "authorization.k8s.io:selfsubjectrulesreviews:SelfSubjectRulesReview:",
    "authentication.k8s.io:selfsubjectreviews:SelfSubjectReview:",
  ].map((s) => {
    const [group, plural, kind, ns] = s.split(":");
    return def({ group, plural, kind, namespaced: ns === "ns", verbs: CREATE_ONLY });
  }),
];

/** Resources whose objects are never stored (create answers with a computed status). */
export function isReviewResource(def: ResourceDef): boolean {
  return def.verbs.length === 1 && def.verbs[0] === "create";
}
