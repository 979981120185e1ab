/**
 * Conformance cases: the built-in admission plugins kube-apiserver v1.37 runs by default on pods —
 * DefaultTolerationSeconds, Priority (with the system PriorityClasses it creates at start-up), ServiceAccount (the
 * projected kube-api-access token volume and its mounts) — and a pod naming a scheduler that does not exist staying
 * Pending and unbound. Each case deletes its pods (unbound: they go at once on both targets).
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { ApiError } from "../../runtime/client/errors.ts";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type ResourceType } from "../../runtime/types.ts";
// The cases read pod specs field by field: the fake's loose object type (testing/apiserver/unstructured.ts).
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { expectStatus } from "./status_assert.ts";
import { type ConformanceCase, POLL } from "./support.ts";

/** core/v1 ServiceAccounts. */
export const ServiceAccount: ResourceType = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};
const PriorityClass: ResourceType = {
  group: "scheduling.k8s.io",
  version: "v1",
  plural: "priorityclasses",
  kind: "PriorityClass",
  namespaced: false,
};
/** Where the ServiceAccount plugin mounts the token volume. */
export const SA_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
const tolerationFor = (key: string) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
const NOT_READY = tolerationFor("node.kubernetes.io/not-ready");
const UNREACHABLE = tolerationFor("node.kubernetes.io/unreachable");

/** Creates a pod of one busybox container (plus `spec`), runs `check` on the answer, then deletes it. */
export async function withPod(
  client: KubeClient,
  ns: string,
  name: string,
  spec: Record<string, unknown>,
  check: (pod: KubeObject) => void | Promise<void>,
): Promise<void> {
  const pod = await client.create<KubeObject>(CoreTypes.Pod, {
    metadata: { name, namespace: ns },
    spec: { containers: [{ name: "c", image: "busybox:1.36" }], ...spec },
  }, { namespace: ns });
  try {
    await check(pod);
    await check(await client.get<KubeObject>(CoreTypes.Pod, name, { namespace: ns }));
  } finally {
    await client.delete(CoreTypes.Pod, name, { namespace: ns, gracePeriodSeconds: 0 }).catch(() => {});
  }
}

/**
 * The ServiceAccount `default` of `ns`: kube-controller-manager makes it on the real tier, nothing does on the fake's
 * conformance server (no `defaultNamespaceObjects`); made here when absent (a race with the controller is a 409).
 */
export async function ensureDefaultServiceAccount(client: KubeClient, ns: string): Promise<void> {
  await eventually("ServiceAccount default exists", async () => {
    try {
      await client.get(ServiceAccount, "default", { namespace: ns });
      return true;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status.code !== 404) throw err;
    }
    await client.create(ServiceAccount, { metadata: { name: "default", namespace: ns } }, { namespace: ns })
      .catch((err) => {
        if (!(err instanceof ApiError) || err.status.code !== 409) throw err;
      });
    return false;
  }, POLL);
}

/** The projected volume ServiceAccount admission adds, under the name it drew. */
export const tokenVolume = (name: string) => ({
  name,
  projected: {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      {
        downwardAPI: {
          items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
        },
      },
    ],
    defaultMode: 420,
  },
});

/** Built-in pod admission: tolerations, priority, ServiceAccount, unknown schedulers. */
export const podAdmissionCases: ConformanceCase[] = [
  {
    name: "DefaultTolerationSeconds: a pod without tolerations gets NoExecute not-ready and unreachable for 300 s",
    async run({ client, ns }) {
      await withPod(client, ns, "adm-tol", {}, (pod) => {
        assert.deepEqual(pod.spec.tolerations, [NOT_READY, UNREACHABLE]);
      });
    },
  },
  {
    name: "DefaultTolerationSeconds: a toleration the pod has is kept, only the missing one is added",
    async run({ client, ns }) {
      const own = {
        key: "node.kubernetes.io/not-ready",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 7,
      };
      await withPod(client, ns, "adm-tol-own", { tolerations: [own] }, (pod) => {
        assert.deepEqual(pod.spec.tolerations, [own, UNREACHABLE]);
      });
    },
  },
  {
    name: "DefaultTolerationSeconds: a toleration of every taint (operator Exists, no key) adds nothing",
    async run({ client, ns }) {
      await withPod(client, ns, "adm-tol-all", { tolerations: [{ operator: "Exists" }] }, (pod) => {
        assert.deepEqual(pod.spec.tolerations, [{ operator: "Exists" }]);
      });
    },
  },
  {
    name: "Priority: a pod without priorityClassName gets priority 0 and PreemptLowerPriority, no class name",
    async run({ client, ns }) {
      await withPod(client, ns, "adm-prio", {}, (pod) => {
        assert.deepEqual(
          [pod.spec.priority, pod.spec.preemptionPolicy, pod.spec.priorityClassName],
          [0, "PreemptLowerPriority", undefined],
        );
      });
    },
  },
  {
    name: "Priority: system-node-critical and system-cluster-critical exist with kube's values",
    async run({ client }) {
      const node = await client.get<KubeObject>(PriorityClass, "system-node-critical");
      const cluster = await client.get<KubeObject>(PriorityClass, "system-cluster-critical");
      assert.deepEqual([node.value, node.preemptionPolicy], [2000001000, "PreemptLowerPriority"]);
      assert.deepEqual([cluster.value, cluster.preemptionPolicy], [2000000000, "PreemptLowerPriority"]);
    },
  },
  {
    name: "Priority: a pod in kube-system naming system-node-critical / system-cluster-critical gets their values",
    async run({ client }) {
      for (const [cls, value] of [["system-node-critical", 2000001000], ["system-cluster-critical", 2000000000]]) {
        await withPod(client, "kube-system", `adm-${cls}`, { priorityClassName: cls }, (pod) => {
          assert.deepEqual(
            [pod.spec.priority, pod.spec.preemptionPolicy, pod.spec.priorityClassName],
            [value, "PreemptLowerPriority", cls],
          );
        });
      }
    },
  },
  {
    name: "Priority: system-cluster-critical outside kube-system gets its values too",
    async run({ client, ns }) {
      await withPod(client, ns, "adm-critical", { priorityClassName: "system-cluster-critical" }, (pod) => {
        assert.deepEqual([pod.spec.priority, pod.spec.preemptionPolicy], [2000000000, "PreemptLowerPriority"]);
      });
    },
  },
  {
    name: "an update leaving out priority, preemptionPolicy and the default tolerations keeps them",
    async run({ client, ns }) {
      await withPod(client, ns, "adm-upd", {}, async (pod) => {
        const next = structuredClone(pod);
        delete next.spec.priority;
        delete next.spec.preemptionPolicy;
        delete next.spec.tolerations;
        next.metadata.labels = { updated: "yes" };
        const updated = await client.update<KubeObject>(CoreTypes.Pod, next, { namespace: ns });
        assert.deepEqual(
          [updated.spec.priority, updated.spec.preemptionPolicy, updated.spec.tolerations],
          [0, "PreemptLowerPriority", [NOT_READY, UNREACHABLE]],
        );
      });
    },
  },
  {
    name: "Priority: a globalDefault PriorityClass (preemptionPolicy defaulted) names itself in pods without a class",
    async run({ client, ns }) {
      const pc = await client.create<KubeObject>(PriorityClass, {
        metadata: { name: "adm-global-default" },
        value: 1000,
        globalDefault: true,
      });
      assert.equal(pc.preemptionPolicy, "PreemptLowerPriority");
      try {
        // kube's admission reads classes from an informer: retry until the new class is seen.
        const pod = await eventually("a pod gets the global default class", async () => {
          let seen: KubeObject | undefined;
          await withPod(client, ns, "adm-global", {}, (p) => {
            seen ??= p;
          });
          return seen?.spec.priority === 1000 ? seen : undefined;
        }, POLL);
        assert.deepEqual(
          [pod.spec.priorityClassName, pod.spec.priority, pod.spec.preemptionPolicy],
          ["adm-global-default", 1000, "PreemptLowerPriority"],
        );
      } finally {
        await client.delete(PriorityClass, "adm-global-default");
      }
    },
  },
  {
    name: "Priority: a PriorityClass that does not exist is refused 403",
    async run({ client, ns }) {
      await expectStatus(
        client.create(CoreTypes.Pod, {
          metadata: { name: "adm-prio-none", namespace: ns },
          spec: { priorityClassName: "no-such-class", containers: [{ name: "c", image: "busybox:1.36" }] },
        }, { namespace: ns }),
        {
          code: 403,
          reason: "Forbidden",
          message: `pods "adm-prio-none" is forbidden: no PriorityClass with name no-such-class was found`,
        },
        "unknown class",
      );
    },
  },
  {
    name: "Priority: a priority the pod states that differs from its class's is refused 403",
    async run({ client, ns }) {
      await expectStatus(
        client.create(CoreTypes.Pod, {
          metadata: { name: "adm-prio-set", namespace: ns },
          spec: { priority: 5, containers: [{ name: "c", image: "busybox:1.36" }] },
        }, { namespace: ns }),
        {
          code: 403,
          reason: "Forbidden",
          message: `pods "adm-prio-set" is forbidden: the integer value of priority (5) must not be provided in pod ` +
            `spec; priority admission controller computed 0 from the given PriorityClass name`,
        },
        "stated priority",
      );
    },
  },
  {
    name: "Priority: a preemptionPolicy the pod states that differs from its class's is refused 403",
    async run({ client, ns }) {
      await expectStatus(
        client.create(CoreTypes.Pod, {
          metadata: { name: "adm-preempt", namespace: ns },
          spec: { preemptionPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36" }] },
        }, { namespace: ns }),
        {
          code: 403,
          reason: "Forbidden",
          message: `pods "adm-preempt" is forbidden: the string value of PreemptionPolicy (Never) must not be ` +
            `provided in pod spec; priority admission controller computed PreemptLowerPriority from the given ` +
            `PriorityClass name`,
        },
        "stated preemptionPolicy",
      );
    },
  },
  {
    name: "ServiceAccount: default account, kube-api-access projected volume mounted in every container",
    async run({ client, ns }) {
      await ensureDefaultServiceAccount(client, ns);
      const spec = {
        initContainers: [{ name: "i", image: "busybox:1.36" }],
        containers: [{ name: "a", image: "busybox:1.36" }, { name: "b", image: "busybox:1.36" }],
      };
      await withPod(client, ns, "adm-sa", spec, (pod) => {
        assert.deepEqual([pod.spec.serviceAccountName, pod.spec.serviceAccount], ["default", "default"]);
        assert.equal(pod.spec.volumes.length, 1, JSON.stringify(pod.spec.volumes));
        const name = pod.spec.volumes[0].name;
        assert.match(name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
        assert.deepEqual(pod.spec.volumes[0], tokenVolume(name));
        const mount = { name, readOnly: true, mountPath: SA_PATH };
        for (const c of [...pod.spec.initContainers, ...pod.spec.containers]) {
          assert.deepEqual(c.volumeMounts, [mount], c.name);
        }
      });
    },
  },
  {
    name:
      "ServiceAccount: automountServiceAccountToken false adds no volume; a container mounting the path keeps its own",
    async run({ client, ns }) {
      await ensureDefaultServiceAccount(client, ns);
      await withPod(client, ns, "adm-sa-off", { automountServiceAccountToken: false }, (pod) => {
        assert.deepEqual([pod.spec.volumes, pod.spec.containers[0].volumeMounts], [undefined, undefined]);
      });
      const own = { name: "creds", mountPath: SA_PATH };
      const spec = {
        volumes: [{ name: "creds", emptyDir: {} }],
        containers: [
          { name: "own", image: "busybox:1.36", volumeMounts: [own] },
          { name: "plain", image: "busybox:1.36" },
        ],
      };
      await withPod(client, ns, "adm-sa-own", spec, (pod) => {
        const [creds, token] = pod.spec.volumes;
        assert.deepEqual([pod.spec.volumes.length, creds.name], [2, "creds"]);
        assert.deepEqual(pod.spec.containers[0].volumeMounts, [own]);
        assert.deepEqual(pod.spec.containers[1].volumeMounts, [{
          name: token.name,
          readOnly: true,
          mountPath: SA_PATH,
        }]);
      });
    },
  },
  {
    name: "ServiceAccount: a named account's imagePullSecrets are copied; its automount false adds no volume",
    async run({ client, ns }) {
      await client.create(ServiceAccount, {
        metadata: { name: "adm-puller", namespace: ns },
        automountServiceAccountToken: false,
        imagePullSecrets: [{ name: "regcred" }],
      }, { namespace: ns });
      try {
        await withPod(client, ns, "adm-sa-named", { serviceAccountName: "adm-puller" }, (pod) => {
          assert.deepEqual(
            [pod.spec.serviceAccountName, pod.spec.imagePullSecrets, pod.spec.volumes],
            ["adm-puller", [{ name: "regcred" }], undefined],
          );
        });
      } finally {
        await client.delete(ServiceAccount, "adm-puller", { namespace: ns });
      }
    },
  },
  {
    name: "a minimal pod's whole spec after defaulting and the default admission plugins",
    async run({ client, ns }) {
      await ensureDefaultServiceAccount(client, ns);
      await withPod(client, ns, "adm-whole", {}, (pod) => {
        const volume = pod.spec.volumes?.[0]?.name;
        assert.deepEqual(pod.spec, {
          volumes: [tokenVolume(volume)],
          containers: [{
            name: "c",
            image: "busybox:1.36",
            resources: {},
            volumeMounts: [{ name: volume, readOnly: true, mountPath: SA_PATH }],
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
            imagePullPolicy: "IfNotPresent",
          }],
          restartPolicy: "Always",
          terminationGracePeriodSeconds: 30,
          dnsPolicy: "ClusterFirst",
          serviceAccountName: "default",
          serviceAccount: "default",
          securityContext: {},
          schedulerName: "default-scheduler",
          tolerations: [NOT_READY, UNREACHABLE],
          priority: 0,
          enableServiceLinks: true,
          preemptionPolicy: "PreemptLowerPriority",
        });
      });
    },
  },
  {
    name: "a pod naming a scheduler that does not exist stays Pending, unbound",
    async run({ client, ns }) {
      await withPod(client, ns, "adm-sched", { schedulerName: "no-such-scheduler" }, (pod) => {
        assert.deepEqual(
          [pod.spec.schedulerName, pod.spec.nodeName, pod.status?.phase],
          ["no-such-scheduler", undefined, "Pending"],
        );
      });
    },
  },
];
