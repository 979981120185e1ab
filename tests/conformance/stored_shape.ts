/**
 * Conformance cases: the shape kube-apiserver stores and answers for built-in kinds no controller touches (found by
 * the differential battery, tests/differential/). A kind's `spec` and `status` are Go value structs, so an object
 * created without them answers `"status": {}` (and `"spec": {}`) — yet no manager owns the empty struct; the kinds
 * whose strategies count generations (PodTemplate, NetworkPolicy, PriorityClass, EndpointSlice, FlowSchema, …) start
 * at `metadata.generation` 1, an APIService carries none.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

async function create(client: KubeClient, path: string, body: Any): Promise<Any> {
  const res = await client.request("POST", path, { body: JSON.stringify(body) });
  const json = JSON.parse(new TextDecoder().decode(res.body));
  assert.equal(res.status, 201, JSON.stringify(json));
  return json;
}

async function remove(client: KubeClient, path: string): Promise<void> {
  await client.request("DELETE", path);
}

export const storedShapeCases: ConformanceCase[] = [
  {
    name: "a ResourceQuota created without spec and status answers both {}, which no manager owns",
    async run({ noRetry, ns }) {
      const quota = await create(noRetry, `/api/v1/namespaces/${ns}/resourcequotas`, {
        metadata: { name: "shape-quota", labels: { shape: "yes" } },
      });
      try {
        assert.deepEqual([quota.spec, quota.status], [{}, {}]);
        const owned = quota.metadata.managedFields[0].fieldsV1;
        assert.equal(owned["f:spec"], undefined, JSON.stringify(owned));
        assert.equal(owned["f:status"], undefined, JSON.stringify(owned));
      } finally {
        await remove(noRetry, `/api/v1/namespaces/${ns}/resourcequotas/shape-quota`);
      }
    },
  },
  {
    name:
      "generations: a PodTemplate, NetworkPolicy, PriorityClass and EndpointSlice start at 1; an APIService has none",
    async run({ noRetry, ns }) {
      const template = await create(noRetry, `/api/v1/namespaces/${ns}/podtemplates`, {
        metadata: { name: "shape-pt" },
        template: { spec: { containers: [{ name: "c", image: "busybox:1.36" }] } },
      });
      assert.equal(template.metadata.generation, 1);
      const policy = await create(noRetry, `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`, {
        metadata: { name: "shape-np" },
        spec: { podSelector: {} },
      });
      assert.equal(policy.metadata.generation, 1);
      const slice = await create(noRetry, `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
        metadata: { name: "shape-eps" },
        addressType: "IPv4",
        endpoints: [],
      });
      assert.equal(slice.metadata.generation, 1);
      const cluster = [
        ["/apis/scheduling.k8s.io/v1/priorityclasses", { metadata: { name: `shape-pc-${ns}` }, value: 7 }, 1],
        ["/apis/apiregistration.k8s.io/v1/apiservices", {
          metadata: { name: `v1.${ns}.shape.example.com` },
          spec: { group: `${ns}.shape.example.com`, version: "v1", groupPriorityMinimum: 1, versionPriority: 1 },
        }, undefined],
      ] as const;
      for (const [path, body, generation] of cluster) {
        const made = await create(noRetry, path, body);
        try {
          assert.equal(made.metadata.generation, generation, `${path}: ${JSON.stringify(made.metadata)}`);
        } finally {
          await remove(noRetry, `${path}/${body.metadata.name}`);
        }
      }
    },
  },
  {
    name: "a PUT or patch that leaves out only defaulted fields keeps the generation (compared after defaulting)",
    async run({ noRetry, ns }) {
      const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const sent = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "shape-gen", labels: { a: "1" } },
        spec: {
          selector: { matchLabels: { app: "g" } },
          template: {
            metadata: { labels: { app: "g" } },
            spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
          },
        },
      };
      const made = await create(noRetry, path, sent);
      try {
        assert.equal(made.metadata.generation, 1);
        const put = await noRetry.request("PUT", `${path}/shape-gen`, {
          body: JSON.stringify({ ...sent, metadata: { ...sent.metadata, labels: { a: "2" } } }),
        });
        const updated = JSON.parse(new TextDecoder().decode(put.body));
        assert.equal(put.status, 200, JSON.stringify(updated));
        assert.equal(updated.metadata.generation, 1);
        const patched = await noRetry.request("PATCH", `${path}/shape-gen`, {
          body: JSON.stringify({
            spec: { template: { spec: { containers: [{ name: "c", image: "busybox:1.36" }] } } },
          }),
          contentType: "application/merge-patch+json",
        });
        assert.equal(JSON.parse(new TextDecoder().decode(patched.body)).metadata.generation, 1);
      } finally {
        await remove(noRetry, `${path}/shape-gen`);
      }
    },
  },
  {
    name:
      "a PodTemplate's and an RC's template is defaulted as a pod's; an RC's selector and labels default to its template's",
    async run({ noRetry, ns }) {
      const template = {
        metadata: { labels: { app: "shape-rc" } },
        spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
      };
      const pt = await create(noRetry, `/api/v1/namespaces/${ns}/podtemplates`, {
        metadata: { name: "shape-pt2" },
        template,
      });
      const rc = await create(noRetry, `/api/v1/namespaces/${ns}/replicationcontrollers`, {
        metadata: { name: "shape-rc" },
        spec: { template },
      });
      try {
        for (const spec of [pt.template.spec, rc.spec.template.spec]) {
          assert.deepEqual(
            [
              spec.restartPolicy,
              spec.dnsPolicy,
              spec.containers[0].imagePullPolicy,
              spec.terminationGracePeriodSeconds,
            ],
            ["Always", "ClusterFirst", "IfNotPresent", 30],
          );
        }
        assert.deepEqual([rc.spec.replicas, rc.spec.selector, rc.metadata.labels], [1, { app: "shape-rc" }, {
          app: "shape-rc",
        }]);
        assert.deepEqual(rc.status, { replicas: 0 });
      } finally {
        await remove(noRetry, `/api/v1/namespaces/${ns}/podtemplates/shape-pt2`);
        await noRetry.request("DELETE", `/api/v1/namespaces/${ns}/replicationcontrollers/shape-rc`, {
          body: JSON.stringify({ propagationPolicy: "Background" }),
        });
      }
    },
  },
  {
    name: "a PersistentVolume and a claim start Pending with volumeMode Filesystem (a PV: Retain, hostPath type '')",
    async run({ noRetry, ns }) {
      const pvName = `shape-pv-${ns}`;
      const pv = await create(noRetry, "/api/v1/persistentvolumes", {
        metadata: { name: pvName },
        spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/shape" } },
      });
      const pvc = await create(noRetry, `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
        metadata: { name: "shape-pvc" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      });
      try {
        assert.deepEqual(
          [pv.spec.persistentVolumeReclaimPolicy, pv.spec.volumeMode, pv.spec.hostPath.type, pv.status.phase],
          ["Retain", "Filesystem", "", "Pending"],
        );
        assert.ok(pv.status.lastPhaseTransitionTime, JSON.stringify(pv.status));
        assert.deepEqual([pvc.spec.volumeMode, pvc.status], ["Filesystem", { phase: "Pending" }]);
      } finally {
        // Both go once the protection controllers remove their finalizers (tests/conformance/storage_protection.ts).
        await remove(noRetry, `/api/v1/namespaces/${ns}/persistentvolumeclaims/shape-pvc`);
        await remove(noRetry, `/api/v1/persistentvolumes/${pvName}`);
      }
    },
  },
  {
    name: "a Node gets podCIDRs from podCIDR, the not-ready taint and the zero daemonEndpoints and nodeInfo",
    async run({ noRetry, ns }) {
      const name = `shape-node-${ns}`;
      const node = await create(noRetry, "/api/v1/nodes", { metadata: { name }, spec: { podCIDR: "10.244.9.0/24" } });
      try {
        assert.deepEqual(node.spec, {
          podCIDR: "10.244.9.0/24",
          podCIDRs: ["10.244.9.0/24"],
          taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }],
        });
        assert.deepEqual(node.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
        assert.equal(node.status.nodeInfo.kubeletVersion, "");
        assert.equal(Object.keys(node.status.nodeInfo).length, 10, JSON.stringify(node.status.nodeInfo));
      } finally {
        await remove(noRetry, `/api/v1/nodes/${name}`);
      }
    },
  },
  {
    name: "stored-only kinds answer kube's defaults and zero status: PDB, HPA, Ingress, NetworkPolicy, DRA claims",
    async run({ noRetry, ns }) {
      const at = (path: string) => `/apis/${path.replace("NS", ns)}`;
      const pdb = await create(noRetry, at("policy/v1/namespaces/NS/poddisruptionbudgets"), {
        metadata: { name: "shape-pdb" },
        spec: { minAvailable: 1, selector: { matchLabels: { app: "x" } } },
      });
      assert.deepEqual(pdb.status, { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 });
      const hpa = await create(noRetry, at("autoscaling/v2/namespaces/NS/horizontalpodautoscalers"), {
        metadata: { name: "shape-hpa" },
        spec: { maxReplicas: 3, scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "x" } },
      });
      assert.equal(hpa.spec.minReplicas, 1);
      assert.deepEqual(hpa.spec.metrics, [{
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
      }]);
      assert.deepEqual(hpa.status, { currentMetrics: null, desiredReplicas: 0 });
      const ingress = await create(noRetry, at("networking.k8s.io/v1/namespaces/NS/ingresses"), {
        metadata: { name: "shape-ing" },
        spec: { defaultBackend: { service: { name: "x", port: { number: 80 } } } },
      });
      assert.deepEqual(ingress.status, { loadBalancer: {} });
      const policy = await create(noRetry, at("networking.k8s.io/v1/namespaces/NS/networkpolicies"), {
        metadata: { name: "shape-np-egress" },
        spec: { podSelector: {}, egress: [{}] },
      });
      assert.deepEqual(policy.spec.policyTypes, ["Ingress", "Egress"]);
      const claim = await create(noRetry, at("resource.k8s.io/v1/namespaces/NS/resourceclaims"), {
        metadata: { name: "shape-claim" },
        spec: { devices: {} },
      });
      assert.deepEqual(claim.spec, { devices: { requests: null } });
      const template = await create(noRetry, at("resource.k8s.io/v1/namespaces/NS/resourceclaimtemplates"), {
        metadata: { name: "shape-claim-t" },
        spec: { spec: { devices: {} } },
      });
      assert.deepEqual(template.spec, { metadata: {}, spec: { devices: { requests: null } } });
      const bare = await create(noRetry, at("resource.k8s.io/v1/namespaces/NS/resourceclaims"), {
        metadata: { name: "shape-claim-bare" },
      });
      assert.deepEqual(bare.spec, { devices: { requests: null } });
      const bareNp = await create(noRetry, at("networking.k8s.io/v1/namespaces/NS/networkpolicies"), {
        metadata: { name: "shape-np-bare" },
      });
      assert.deepEqual(bareNp.spec, { podSelector: {}, policyTypes: ["Ingress"] });
    },
  },
  {
    name: "cluster-scoped stored-only kinds: CSIDriver, CSINode, VolumeAttachment, PriorityLevel, DeviceTaintRule",
    async run({ noRetry, ns }) {
      const made: string[] = [];
      const make = async (path: string, body: Any) => {
        const obj = await create(noRetry, `/apis/${path}`, body);
        made.push(`/apis/${path}/${body.metadata.name}`);
        return obj;
      };
      try {
        const driver = await make("storage.k8s.io/v1/csidrivers", { metadata: { name: `shape-${ns}` }, spec: {} });
        assert.deepEqual(driver.spec, {
          attachRequired: true,
          fsGroupPolicy: "ReadWriteOnceWithFSType",
          podInfoOnMount: false,
          preventPodSchedulingIfMissing: false,
          requiresRepublish: false,
          seLinuxMount: false,
          storageCapacity: false,
          volumeLifecycleModes: ["Persistent"],
        });
        const csiNode = await make("storage.k8s.io/v1/csinodes", {
          metadata: { name: `shape-${ns}` },
          spec: { drivers: [] },
        });
        assert.deepEqual(csiNode.spec, { drivers: null });
        const attachment = await make("storage.k8s.io/v1/volumeattachments", {
          metadata: { name: `shape-${ns}` },
          spec: { attacher: "shape.example.com", nodeName: "n", source: { persistentVolumeName: "pv" } },
        });
        assert.deepEqual(attachment.status, { attached: false });
        const level = await make("flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", {
          metadata: { name: `shape-${ns}` },
          spec: { type: "Limited", limited: { nominalConcurrencyShares: 5, limitResponse: { type: "Reject" } } },
        });
        assert.equal(level.spec.limited.lendablePercent, 0);
        const rule = await make("resource.k8s.io/v1/devicetaintrules", {
          metadata: { name: `shape-${ns}` },
          spec: { taint: { key: "example.com/shape", effect: "NoSchedule" } },
        });
        assert.match(rule.spec.taint.timeAdded, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      } finally {
        for (const path of made) await remove(noRetry, path);
      }
    },
  },
  {
    name:
      "a core Event answers its unset times as null and reporting fields as ''; events.k8s.io adds deprecatedSource",
    async run({ noRetry, ns }) {
      const core = await create(noRetry, `/api/v1/namespaces/${ns}/events`, {
        metadata: { name: "shape-ev" },
        involvedObject: { kind: "ConfigMap", name: "x", namespace: ns },
        reason: "Tested",
        message: "m",
      });
      assert.deepEqual(
        [core.eventTime, core.firstTimestamp, core.lastTimestamp, core.reportingComponent, core.reportingInstance],
        [null, null, null, "", ""],
      );
      assert.deepEqual(core.source, {});
      const res = await noRetry.request("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events/shape-ev`);
      const viewed = JSON.parse(new TextDecoder().decode(res.body));
      assert.deepEqual(
        [viewed.deprecatedSource, viewed.deprecatedFirstTimestamp, viewed.reportingController],
        [{}, null, undefined],
      );
    },
  },
  {
    name: "a DaemonSet's template generation annotation: 1 on create, bumped by a template change, not by labels",
    async run({ noRetry, ns }) {
      const path = `/apis/apps/v1/namespaces/${ns}/daemonsets`;
      const template = (image: string) => ({
        metadata: { labels: { app: "shape-ds" } },
        spec: { containers: [{ name: "c", image }] },
      });
      const ds = await create(noRetry, path, {
        metadata: { name: "shape-ds" },
        spec: { selector: { matchLabels: { app: "shape-ds" } }, template: template("busybox:1.36") },
      });
      const annotation = (obj: Any) => obj.metadata.annotations?.["deprecated.daemonset.template.generation"];
      assert.equal(annotation(ds), "1");
      const patch = async (body: Any) => {
        const res = await noRetry.request("PATCH", `${path}/shape-ds`, {
          body: JSON.stringify(body),
          contentType: "application/merge-patch+json",
        });
        return JSON.parse(new TextDecoder().decode(res.body));
      };
      const labelled = await patch({ metadata: { labels: { x: "1" } } });
      assert.equal(annotation(labelled), "1");
      delete labelled.metadata.annotations; // a PUT without the annotation keeps the stored generation
      const put = await noRetry.request("PUT", `${path}/shape-ds`, { body: JSON.stringify(labelled) });
      assert.equal(annotation(JSON.parse(new TextDecoder().decode(put.body))), "1");
      assert.equal(annotation(await patch({ spec: { template: template("busybox:1.37") } })), "2");
    },
  },
  {
    name: "a LimitRange without limits answers `limits: null`; an IPAddress drops an empty parentRef.group",
    async run({ noRetry, ns }) {
      const range = await create(noRetry, `/api/v1/namespaces/${ns}/limitranges`, {
        metadata: { name: "shape-lr" },
        spec: { limits: [] },
      });
      assert.deepEqual(range.spec, { limits: null });
      const name = "10.96.250.77";
      const address = await create(noRetry, "/apis/networking.k8s.io/v1/ipaddresses", {
        metadata: { name },
        spec: { parentRef: { group: "", resource: "services", namespace: ns, name: "svc" } },
      });
      try {
        assert.deepEqual(address.spec.parentRef, { resource: "services", namespace: ns, name: "svc" });
      } finally {
        await remove(noRetry, `/apis/networking.k8s.io/v1/ipaddresses/${name}`);
      }
    },
  },
  {
    name: "a StorageClass defaults to Delete and Immediate; an EndpointSlice's ports get name '' and TCP, endpoints {}",
    async run({ noRetry, ns }) {
      const name = `shape-sc-${ns}`;
      const storageClass = await create(noRetry, "/apis/storage.k8s.io/v1/storageclasses", {
        metadata: { name },
        provisioner: "example.com/shape",
      });
      try {
        assert.deepEqual([storageClass.reclaimPolicy, storageClass.volumeBindingMode], ["Delete", "Immediate"]);
      } finally {
        await remove(noRetry, `/apis/storage.k8s.io/v1/storageclasses/${name}`);
      }
      const slice = await create(noRetry, `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
        metadata: { name: "shape-eps-ports" },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.1.2.3"] }],
        ports: [{ port: 80 }],
      });
      assert.deepEqual(slice.ports, [{ name: "", port: 80, protocol: "TCP" }]);
      assert.deepEqual(slice.endpoints, [{ addresses: ["10.1.2.3"], conditions: {} }]);
    },
  },
];
