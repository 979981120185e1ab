/**
 * A valid object of every built-in resource the battery creates (keyed `group/version/plural`, core group empty),
 * the smallest one kube-apiserver v1.37 accepts; `name` and `ns` are filled in by the battery.
 * @module
 */

// deno-lint-ignore no-explicit-any
type Any = any;

/** A certificate authority (PEM) for ClusterTrustBundles. */
const CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBejCCAR+gAwIBAgIUd247UV7QDixyWo/udfCRI+RQE0owCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZGlmZi1jYTAeFw0yNjExMjkxMjE1NTVaFw0zNjExMjYxMjE1
NTVaMBIxEDAOBgNVBAMMB2RpZmYtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AATa6bd6a3bBDZTpUYYMpgpKkElbOldjEba8K/kESeL+pmRlJOp3pUqu7yXFKiVr
nD038X8AIIEnz5Jq+JG2aN0fo1MwUTAdBgNVHQ4EFgQUqEPWjNsQNcVoM0Cfy4EI
IRYhgdowHwYDVR0jBBgwFoAUqEPWjNsQNcVoM0Cfy4EIIRYhgdowDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEAvFyJLyZMiPdVwu5ARub7SvAxlOM+
Gad+nRyoDjU19n8CIQDrzMoy/NWsR931FF135XNFef7Y6yvAtF6yBxVlP1zG0A==
-----END CERTIFICATE-----`;

/** A PKCS#10 certificate request (base64 of its PEM) for CertificateSigningRequests. */
export const CSR_BASE64 =
  "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIT01IWUNBUUF3RkRFU01CQUdBMVVFQXd3SlpHbG1aaTExYzJWeU1Ga3dFd1lIS29aSXpqMENBUVlJS29aSQp6ajBEQVFjRFFnQUUzckxZV0trSTF2UlMyWVRJb3RXeVN2NzYvakRFSGxWd3h2YUwrUFFwcmE5TkNIVEMyOUxDCmVlMkw3TXo1RkRzeFJ4QjF5RVRaRTRkR2NBNkZaUjI1SXFBQU1Bb0dDQ3FHU000OUJBTUNBMGdBTUVVQ0lRQzkKZHlyUUt4NHo1RWNCQ1ZGSTNsL2ZUaG8xVnd6ZHR0Y3BSd29RYkFTVFhnSWdhT3JMSGN3YmtuZGxJYjRyTzB6bwpPLytmOHRVSGJ3Q2FvN0oyOURKUEk4VT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==";

const container = { name: "c", image: "busybox:1.36" };
const podSpec = { containers: [container] };
const template = (app: string) => ({ metadata: { labels: { app } }, spec: podSpec });
const selector = (app: string) => ({ matchLabels: { app } });

/** What the battery knows of one resource: its valid object's fields (besides apiVersion, kind and metadata). */
export type Sample = (name: string, ns: string) => Record<string, Any>;

/** Valid objects by `group/version/plural`. */
export const SAMPLES: Readonly<Record<string, Sample>> = {
  "/v1/configmaps": () => ({ data: { a: "1" } }),
  "/v1/secrets": () => ({ type: "Opaque", stringData: { a: "1" } }),
  "/v1/endpoints": () => ({ subsets: [{ addresses: [{ ip: "10.1.2.3" }], ports: [{ port: 80, protocol: "TCP" }] }] }),
  "/v1/events": (name, ns) => ({
    involvedObject: { kind: "ConfigMap", name, namespace: ns, apiVersion: "v1" },
    reason: "Tested",
    message: "a message",
    type: "Normal",
    source: { component: "diff" },
  }),
  "/v1/limitranges": () => ({ limits: [{ type: "Container", max: { cpu: "2" } }] }),
  "/v1/namespaces": () => ({}),
  "/v1/nodes": () => ({ spec: { podCIDR: "10.244.9.0/24" } }),
  "/v1/persistentvolumeclaims": () => ({
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  }),
  "/v1/persistentvolumes": () => ({
    spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/diff" } },
  }),
  "/v1/pods": () => ({ spec: podSpec }),
  "/v1/podtemplates": (name) => ({ template: template(name) }),
  "/v1/replicationcontrollers": (name) => ({
    spec: { replicas: 1, selector: { app: name }, template: template(name) },
  }),
  "/v1/resourcequotas": () => ({ spec: { hard: { pods: "100" } } }),
  "/v1/serviceaccounts": () => ({}),
  "/v1/services": () => ({ spec: { clusterIP: "None", ports: [{ port: 80 }], selector: { app: "x" } } }),
  "apiregistration.k8s.io/v1/apiservices": (name) => ({
    spec: {
      group: name.slice(name.indexOf(".") + 1),
      version: name.slice(0, name.indexOf(".")),
      groupPriorityMinimum: 100,
      versionPriority: 10,
    },
  }),
  "apps/v1/controllerrevisions": () => ({ revision: 1, data: { a: 1 } }),
  "apps/v1/daemonsets": (name) => ({ spec: { selector: selector(name), template: template(name) } }),
  "apps/v1/deployments": (name) => ({ spec: { replicas: 1, selector: selector(name), template: template(name) } }),
  "apps/v1/replicasets": (name) => ({ spec: { replicas: 1, selector: selector(name), template: template(name) } }),
  "apps/v1/statefulsets": (name) => ({
    spec: { replicas: 1, serviceName: name, selector: selector(name), template: template(name) },
  }),
  "events.k8s.io/v1/events": (name, ns) => ({
    eventTime: "2026-01-02T03:04:05.000000Z",
    reportingController: "diff.example.com/c",
    reportingInstance: "diff-1",
    action: "Test",
    reason: "Tested",
    type: "Normal",
    regarding: { kind: "ConfigMap", name, namespace: ns, apiVersion: "v1" },
    note: "a note",
  }),
  "authentication.k8s.io/v1/selfsubjectreviews": () => ({}),
  "authentication.k8s.io/v1/tokenreviews": () => ({ spec: { token: "not-a-token" } }),
  "authorization.k8s.io/v1/localsubjectaccessreviews": (_name, ns) => ({
    spec: { user: "someone", resourceAttributes: { namespace: ns, verb: "get", resource: "pods" } },
  }),
  "authorization.k8s.io/v1/selfsubjectaccessreviews": () => ({
    spec: { resourceAttributes: { verb: "get", resource: "pods" } },
  }),
  "authorization.k8s.io/v1/selfsubjectrulesreviews": (_name, ns) => ({ spec: { namespace: ns } }),
  "authorization.k8s.io/v1/subjectaccessreviews": () => ({
    spec: { user: "someone", resourceAttributes: { verb: "get", resource: "pods" } },
  }),
  "autoscaling/v2/horizontalpodautoscalers": (name) => ({
    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name }, maxReplicas: 3 },
  }),
  "autoscaling/v1/horizontalpodautoscalers": (name) => ({
    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name }, maxReplicas: 3 },
  }),
  "batch/v1/cronjobs": () => ({
    spec: {
      schedule: "*/5 * * * *",
      jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } } },
    },
  }),
  "batch/v1/jobs": () => ({ spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } } }),
  "certificates.k8s.io/v1/certificatesigningrequests": () => ({
    spec: { request: CSR_BASE64, signerName: "example.com/diff", usages: ["client auth"] },
  }),
  "certificates.k8s.io/v1/clustertrustbundles": () => ({ spec: { trustBundle: CA_PEM } }),
  "networking.k8s.io/v1/ingressclasses": () => ({ spec: { controller: "example.com/diff" } }),
  "networking.k8s.io/v1/ingresses": (name) => ({
    spec: { defaultBackend: { service: { name, port: { number: 80 } } } },
  }),
  "networking.k8s.io/v1/ipaddresses": (_name, ns) => ({
    spec: { parentRef: { group: "", resource: "services", namespace: ns, name: "svc" } },
  }),
  "networking.k8s.io/v1/networkpolicies": () => ({ spec: { podSelector: {} } }),
  "networking.k8s.io/v1/servicecidrs": () => ({ spec: { cidrs: ["10.250.0.0/24"] } }),
  "policy/v1/poddisruptionbudgets": (name) => ({ spec: { minAvailable: 1, selector: selector(name) } }),
  "rbac.authorization.k8s.io/v1/clusterrolebindings": () => ({
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "diff-user" }],
  }),
  "rbac.authorization.k8s.io/v1/clusterroles": () => ({
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
  }),
  "rbac.authorization.k8s.io/v1/rolebindings": () => ({
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "diff-user" }],
  }),
  "rbac.authorization.k8s.io/v1/roles": () => ({
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
  }),
  "storage.k8s.io/v1/csidrivers": () => ({ spec: {} }),
  "storage.k8s.io/v1/csinodes": () => ({ spec: { drivers: [] } }),
  "storage.k8s.io/v1/csistoragecapacities": () => ({ storageClassName: "standard" }),
  "storage.k8s.io/v1/storageclasses": () => ({ provisioner: "example.com/diff" }),
  "storage.k8s.io/v1/volumeattachments": () => ({
    spec: { attacher: "diff.example.com", nodeName: "node-1", source: { persistentVolumeName: "pv-1" } },
  }),
  "storage.k8s.io/v1/volumeattributesclasses": () => ({ driverName: "diff.example.com", parameters: { a: "b" } }),
  "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations": () => ({
    webhooks: [webhook()],
  }),
  "admissionregistration.k8s.io/v1/validatingwebhookconfigurations": () => ({
    webhooks: [webhook()],
  }),
  "admissionregistration.k8s.io/v1/validatingadmissionpolicies": () => ({
    spec: {
      matchConstraints: { resourceRules: [matchNothing()] },
      validations: [{ expression: "true" }],
    },
  }),
  "admissionregistration.k8s.io/v1/validatingadmissionpolicybindings": () => ({
    spec: { policyName: "diff-nothing", validationActions: ["Deny"] },
  }),
  "admissionregistration.k8s.io/v1/mutatingadmissionpolicies": () => ({
    spec: {
      matchConstraints: { resourceRules: [matchNothing()] },
      mutations: [{
        patchType: "ApplyConfiguration",
        applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}" },
      }],
      reinvocationPolicy: "Never",
    },
  }),
  "admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings": () => ({
    spec: { policyName: "diff-nothing" },
  }),
  "apiextensions.k8s.io/v1/customresourcedefinitions": (name) => {
    const plural = name.split(".")[0];
    return {
      spec: {
        group: name.slice(plural.length + 1),
        scope: "Namespaced",
        names: { plural, singular: plural.slice(0, -1), kind: "Thing", listKind: "ThingList" },
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        }],
      },
    };
  },
  "scheduling.k8s.io/v1/priorityclasses": () => ({ value: 1000, description: "diff" }),
  "coordination.k8s.io/v1/leases": () => ({ spec: { holderIdentity: "diff", leaseDurationSeconds: 15 } }),
  "node.k8s.io/v1/runtimeclasses": () => ({ handler: "runc" }),
  "discovery.k8s.io/v1/endpointslices": () => ({
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.1.2.3"] }],
    ports: [{ port: 80, protocol: "TCP" }],
  }),
  "resource.k8s.io/v1/deviceclasses": () => ({ spec: {} }),
  "resource.k8s.io/v1/devicetaintrules": () => ({
    spec: { taint: { key: "example.com/diff", effect: "NoSchedule" } },
  }),
  "resource.k8s.io/v1/resourceclaims": () => ({ spec: { devices: {} } }),
  "resource.k8s.io/v1/resourceclaimtemplates": () => ({ spec: { spec: { devices: {} } } }),
  "resource.k8s.io/v1/resourceslices": () => ({
    spec: { driver: "example.com", pool: { name: "p", generation: 1, resourceSliceCount: 1 }, allNodes: true },
  }),
  "flowcontrol.apiserver.k8s.io/v1/flowschemas": () => ({
    spec: {
      priorityLevelConfiguration: { name: "global-default" },
      matchingPrecedence: 9000,
      rules: [{
        subjects: [{ kind: "User", user: { name: "diff-user" } }],
        nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/diff"] }],
      }],
    },
  }),
  "flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations": () => ({
    spec: { type: "Limited", limited: { nominalConcurrencyShares: 5, limitResponse: { type: "Reject" } } },
  }),
  "storagemigration.k8s.io/v1/storageversionmigrations": () => ({
    spec: { resource: { group: "", resource: "configmaps" } },
  }),
};

function webhook(): Any {
  return {
    name: "nothing.diff.example.com",
    clientConfig: { url: "https://127.0.0.1:9/none" },
    rules: [matchNothing()],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    failurePolicy: "Ignore",
  };
}

function matchNothing(): Any {
  return { apiGroups: ["none.diff.example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["nothings"] };
}
