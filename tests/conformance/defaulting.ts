/**
 * Conformance cases: built-in defaulting. What kube-apiserver v1.37 fills in on create (SetDefaults_*, the registry
 * strategies and the Service allocators), asserted field by field. What the default admission plugins add (the
 * ServiceAccount token volume, tolerations, priority) is compared in pod_admission.ts.
 * @module
 */
import assert from "node:assert/strict";
import { CoreTypes, type ResourceType } from "../../runtime/types.ts";
// The cases read many kinds' defaulted fields directly: the fake's loose object type (testing/apiserver/unstructured.ts).
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import type { ConformanceCase } from "./support.ts";

const rt = (group: string, plural: string, kind: string): ResourceType => ({
  group,
  version: "v1",
  plural,
  kind,
  namespaced: true,
});
const Deployment = rt("apps", "deployments", "Deployment");
const StatefulSet = rt("apps", "statefulsets", "StatefulSet");
const DaemonSet = rt("apps", "daemonsets", "DaemonSet");
const ReplicaSet = rt("apps", "replicasets", "ReplicaSet");
const Job = rt("batch", "jobs", "Job");
const CronJob = rt("batch", "cronjobs", "CronJob");
const RoleBinding = rt("rbac.authorization.k8s.io", "rolebindings", "RoleBinding");

/** The defaults of one container without admission's additions. */
const container = (name: string, image: string, pull: string, extra: Record<string, unknown> = {}) => ({
  name,
  image,
  ...extra,
  resources: {},
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
  imagePullPolicy: pull,
});

/** A pod template's spec defaults (not a Pod's: no enableServiceLinks, no ServiceAccount). */
const templateSpec = (restartPolicy = "Always", image = "busybox:1.36") => ({
  containers: [container("c", image, image.endsWith(":latest") || !image.includes(":") ? "Always" : "IfNotPresent")],
  restartPolicy,
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  securityContext: {},
  schedulerName: "default-scheduler",
});

const template = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
});

const CLUSTER_IP = /^10\.96\.\d+\.\d+$/;

/** Built-in defaulting: Services, Pods, workloads, Jobs, generation. */
export const defaultingCases: ConformanceCase[] = [
  {
    name: "Service ClusterIP: type, session affinity, TCP ports, target ports, a cluster IP and single-stack IPv4",
    async run({ client, ns }) {
      const svc = await client.create<KubeObject>(CoreTypes.Service, {
        metadata: { name: "def-svc", namespace: ns },
        spec: { ports: [{ port: 80 }], selector: { app: "x" } },
      }, { namespace: ns });
      assert.match(svc.spec.clusterIP, CLUSTER_IP);
      assert.deepEqual(svc.spec, {
        ports: [{ protocol: "TCP", port: 80, targetPort: 80 }],
        selector: { app: "x" },
        clusterIP: svc.spec.clusterIP,
        clusterIPs: [svc.spec.clusterIP],
        type: "ClusterIP",
        sessionAffinity: "None",
        ipFamilies: ["IPv4"],
        ipFamilyPolicy: "SingleStack",
        internalTrafficPolicy: "Cluster",
      });
      assert.deepEqual(svc.status, { loadBalancer: {} });
    },
  },
  {
    name: "Service NodePort and LoadBalancer: node ports in 30000-32767, externalTrafficPolicy Cluster",
    async run({ client, ns }) {
      const np = await client.create<KubeObject>(CoreTypes.Service, {
        metadata: { name: "def-np", namespace: ns },
        spec: { type: "NodePort", ports: [{ port: 80, targetPort: "http" }] },
      }, { namespace: ns });
      const nodePort = np.spec.ports[0].nodePort;
      assert.ok(nodePort >= 30000 && nodePort <= 32767, `nodePort ${nodePort}`);
      assert.deepEqual(np.spec.ports, [{ protocol: "TCP", port: 80, targetPort: "http", nodePort }]);
      assert.equal(np.spec.externalTrafficPolicy, "Cluster");
      assert.equal(np.spec.allocateLoadBalancerNodePorts, undefined);
      const lb = await client.create<KubeObject>(CoreTypes.Service, {
        metadata: { name: "def-lb", namespace: ns },
        spec: { type: "LoadBalancer", ports: [{ port: 443 }] },
      }, { namespace: ns });
      assert.ok(lb.spec.ports[0].nodePort >= 30000, "LoadBalancer gets a node port");
      assert.notEqual(lb.spec.ports[0].nodePort, nodePort, "node ports are unique");
      assert.deepEqual(
        [lb.spec.externalTrafficPolicy, lb.spec.allocateLoadBalancerNodePorts, lb.spec.internalTrafficPolicy],
        ["Cluster", true, "Cluster"],
      );
    },
  },
  {
    name: "Service ExternalName gets no cluster IP; a headless Service without selector is RequireDualStack",
    async run({ client, ns }) {
      const ext = await client.create<KubeObject>(CoreTypes.Service, {
        metadata: { name: "def-ext", namespace: ns },
        spec: { type: "ExternalName", externalName: "example.com" },
      }, { namespace: ns });
      assert.deepEqual(ext.spec, { type: "ExternalName", sessionAffinity: "None", externalName: "example.com" });
      const headless = await client.create<KubeObject>(CoreTypes.Service, {
        metadata: { name: "def-headless", namespace: ns },
        spec: { clusterIP: "None", ports: [{ port: 80 }] },
      }, { namespace: ns });
      assert.deepEqual(
        [headless.spec.clusterIPs, headless.spec.ipFamilies, headless.spec.ipFamilyPolicy],
        [["None"], ["IPv4", "IPv6"], "RequireDualStack"],
      );
    },
  },
  {
    name: "Pod: imagePullPolicy from the tag (latest or none: Always; a tag or digest: IfNotPresent), TCP ports",
    async run({ client, ns }) {
      const digest = `busybox@sha256:${"1".repeat(64)}`;
      const pod = await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "def-pull", namespace: ns },
        spec: {
          initContainers: [{ name: "i", image: digest }],
          containers: [
            { name: "a", image: "busybox:latest" },
            { name: "b", image: "busybox:1.36", ports: [{ containerPort: 80 }] },
            { name: "c", image: "registry:5000/busybox" },
          ],
        },
      }, { namespace: ns });
      const pulls = (list: Array<{ name: string; imagePullPolicy: string }>) =>
        list.map((c) => `${c.name}=${c.imagePullPolicy}`);
      assert.deepEqual(pulls(pod.spec.initContainers), ["i=IfNotPresent"]);
      assert.deepEqual(pulls(pod.spec.containers), ["a=Always", "b=IfNotPresent", "c=Always"]);
      assert.deepEqual(pod.spec.containers[1].ports, [{ containerPort: 80, protocol: "TCP" }]);
    },
  },
  {
    name: "Pod: termination message, restart and DNS policy, scheduler, grace, service links; created Pending",
    async run({ client, ns }) {
      const pod = await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "def-pod", namespace: ns },
        spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
      }, { namespace: ns });
      const c = pod.spec.containers[0];
      assert.deepEqual(
        [c.terminationMessagePath, c.terminationMessagePolicy, c.imagePullPolicy, c.resources],
        ["/dev/termination-log", "File", "IfNotPresent", {}],
      );
      const s = pod.spec;
      assert.deepEqual(
        [s.restartPolicy, s.terminationGracePeriodSeconds, s.dnsPolicy, s.schedulerName, s.enableServiceLinks],
        ["Always", 30, "ClusterFirst", "default-scheduler", true],
      );
      assert.deepEqual([s.securityContext, s.serviceAccountName, s.serviceAccount], [{}, "default", "default"]);
      assert.deepEqual(pod.status, { phase: "Pending", qosClass: "BestEffort" });
    },
  },
  {
    name: "Deployment: replicas, RollingUpdate 25%/25%, history and progress deadline, template defaults",
    async run({ client, ns }) {
      const d = await client.create<KubeObject>(Deployment, {
        metadata: { name: "def-dep", namespace: ns },
        spec: { selector: { matchLabels: { a: "d" } }, template: template({ a: "d" }) },
      }, { namespace: ns });
      assert.deepEqual(d.spec, {
        replicas: 1,
        selector: { matchLabels: { a: "d" } },
        template: { metadata: { labels: { a: "d" } }, spec: templateSpec() },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      });
      assert.deepEqual([d.metadata.generation, d.status], [1, {}]);
    },
  },
  {
    name: "StatefulSet, DaemonSet and ReplicaSet: their spec defaults and the zero status",
    async run({ client, ns }) {
      const create = (type: ResourceType, name: string, extra: Record<string, unknown> = {}) =>
        client.create<KubeObject>(type, {
          metadata: { name, namespace: ns },
          spec: { selector: { matchLabels: { a: name } }, template: template({ a: name }), ...extra },
        }, { namespace: ns });
      const withoutTemplate = (o: KubeObject) => ({ ...o.spec, template: undefined });
      const sts = await create(StatefulSet, "def-sts", { serviceName: "def-sts" });
      assert.deepEqual(withoutTemplate(sts), {
        replicas: 1,
        selector: { matchLabels: { a: "def-sts" } },
        serviceName: "def-sts",
        template: undefined,
        podManagementPolicy: "OrderedReady",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } },
        revisionHistoryLimit: 10,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      });
      assert.deepEqual(sts.status, { replicas: 0, availableReplicas: 0 });
      const ds = await create(DaemonSet, "def-ds");
      assert.deepEqual(withoutTemplate(ds), {
        selector: { matchLabels: { a: "def-ds" } },
        template: undefined,
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
        revisionHistoryLimit: 10,
      });
      assert.deepEqual(ds.status, {
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 0,
      });
      const rs = await create(ReplicaSet, "def-rs");
      assert.deepEqual([rs.spec.replicas, rs.status, rs.spec.template.spec], [1, { replicas: 0 }, templateSpec()]);
    },
  },
  {
    name: "Job: a generated controller-uid selector, the uid and job-name labels, spec defaults",
    async run({ client, ns }) {
      const job = await client.create<KubeObject>(Job, {
        metadata: { name: "def-job", namespace: ns },
        spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36" }] } } },
      }, { namespace: ns });
      const uid = job.metadata.uid!;
      const labels = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "def-job",
        "controller-uid": uid,
        "job-name": "def-job",
      };
      assert.deepEqual(job.metadata.labels, labels);
      assert.deepEqual(job.spec, {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
        manualSelector: false,
        template: { metadata: { labels }, spec: templateSpec("Never") },
        completionMode: "NonIndexed",
        suspend: false,
        podReplacementPolicy: "TerminatingOrFailed",
      });
      assert.deepEqual([job.metadata.generation, job.status], [1, {}]);
      const manual = await client.create<KubeObject>(Job, {
        metadata: { name: "def-job2", namespace: ns },
        spec: {
          manualSelector: true,
          selector: { matchLabels: { x: "y" } },
          template: { metadata: { labels: { x: "y" } }, spec: templateSpec("Never") },
        },
      }, { namespace: ns });
      assert.deepEqual([manual.spec.selector, manual.spec.template.metadata.labels], [{ matchLabels: { x: "y" } }, {
        x: "y",
      }]);
    },
  },
  {
    name: "CronJob: concurrencyPolicy Allow, not suspended, history limits 3 and 1, job template pod defaults",
    async run({ client, ns }) {
      const cj = await client.create<KubeObject>(CronJob, {
        metadata: { name: "def-cron", namespace: ns },
        spec: {
          schedule: "*/5 * * * *",
          jobTemplate: {
            spec: {
              template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36" }] } },
            },
          },
        },
      }, { namespace: ns });
      assert.deepEqual(
        [
          cj.spec.concurrencyPolicy,
          cj.spec.suspend,
          cj.spec.successfulJobsHistoryLimit,
          cj.spec.failedJobsHistoryLimit,
        ],
        ["Allow", false, 3, 1],
      );
      assert.deepEqual(cj.spec.jobTemplate.spec.template.spec, templateSpec("Never"));
      assert.equal(cj.spec.jobTemplate.spec.backoffLimit, undefined, "Job defaults are not applied to the template");
      assert.deepEqual([cj.metadata.generation, cj.status], [1, {}]);
    },
  },
  {
    name: "generation on built-ins: 1 on create, bumped by spec changes only; none on ConfigMaps",
    async run({ client, ns }) {
      await client.create<KubeObject>(Deployment, {
        metadata: { name: "def-gen", namespace: ns },
        spec: { selector: { matchLabels: { a: "g" } }, template: template({ a: "g" }) },
      }, { namespace: ns });
      const labelled = await client.patch(Deployment, "def-gen", { metadata: { labels: { x: "y" } } }, {
        namespace: ns,
        type: "merge",
      });
      assert.equal(labelled.metadata.generation, 1);
      const scaled = await client.patch(Deployment, "def-gen", { spec: { replicas: 3 } }, {
        namespace: ns,
        type: "merge",
      });
      assert.equal(scaled.metadata.generation, 2);
      const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "def-gen", namespace: ns },
        data: { a: "1" },
      }, { namespace: ns });
      assert.equal(cm.metadata.generation, undefined);
    },
  },
  {
    name: "Pods track generation: 1, bumped by spec changes (not labels), and once more by the deletion",
    async run({ client, ns }) {
      const pod = await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "def-podgen", namespace: ns },
        spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
      }, { namespace: ns });
      assert.equal(pod.metadata.generation, 1);
      const labelled = await client.patch(CoreTypes.Pod, "def-podgen", { metadata: { labels: { a: "b" } } }, {
        namespace: ns,
        type: "merge",
      });
      assert.equal(labelled.metadata.generation, 1);
      const image = await client.patch(CoreTypes.Pod, "def-podgen", {
        spec: { containers: [{ name: "c", image: "busybox:1.37" }] },
      }, { namespace: ns, type: "strategic" });
      assert.equal(image.metadata.generation, 2);
      const res = await client.request("DELETE", `/api/v1/namespaces/${ns}/pods/def-podgen`, { throwOnError: true });
      const deleted = JSON.parse(new TextDecoder().decode(res.body));
      assert.deepEqual([deleted.metadata.generation, deleted.metadata.deletionGracePeriodSeconds], [3, 0]);
    },
  },
  {
    name: "Leases drop the fields of the CoordinatedLeaderElection feature (off by default)",
    async run({ client, ns }) {
      const lease = await client.create<KubeObject>(CoreTypes.Lease, {
        metadata: { name: "def-lease", namespace: ns },
        spec: { holderIdentity: "me", strategy: "OldestEmulationVersion", preferredHolder: "you" },
      }, { namespace: ns });
      assert.deepEqual(lease.spec, { holderIdentity: "me" });
    },
  },
  {
    name: "Secret stringData folds into data with type Opaque; RoleBinding User subjects get the rbac apiGroup",
    async run({ client, ns }) {
      const secret = await client.create<KubeObject>(CoreTypes.Secret, {
        metadata: { name: "def-secret", namespace: ns },
        stringData: { user: "admin" },
      }, { namespace: ns });
      assert.deepEqual([secret.type, secret.data, secret.stringData], ["Opaque", { user: btoa("admin") }, undefined]);
      const rb = await client.create<KubeObject>(RoleBinding, {
        metadata: { name: "def-rb", namespace: ns },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
        subjects: [{ kind: "User", name: "u" }, { kind: "ServiceAccount", name: "default" }],
      }, { namespace: ns });
      assert.deepEqual(rb.subjects, [
        { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "u" },
        { kind: "ServiceAccount", name: "default" },
      ]);
    },
  },
];
