// The seed operators with the longest names the CRDs accept (253 characters) and 63-character ones, against a REAL
// kube-apiserver + kube-controller-manager: At's and Netperf's pods (names and labels derived from the parent's
// name, cut and hashed when too long), Machine's default `machine=<name>` label on its Switches, MultiSecret's
// children named like the MultiSecret or its secretName. The test plays the kubelet (pod status).
import assert from "node:assert/strict";
import YAML from "yaml";
import { type At, AtType } from "../../controllers/at/schema.ts";
import { type Machine, MachineType, type Switch, SwitchType } from "../../controllers/machine/schema.ts";
import { CONTROLLERS } from "../../controllers/mod.ts";
import { type MultiSecret, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { clientPodName, serverPodName } from "../../controllers/netperf/controller.ts";
import { type Netperf, NetperfType } from "../../controllers/netperf/schema.ts";
import { labelValueFor } from "../../runtime/apimachinery/names.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { Manager } from "../../runtime/manager/manager.ts";
import type { CustomResourceDefinition } from "../../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import { poll } from "./support_real.ts";

const binDir = await realClusterBinDir();
const ROOT = new URL("../../", import.meta.url);
const OUTPUT = "bytes  bytes   bytes    secs.    10^6bits/sec\n\n 87380  16384  16384    10.00    941.50\n";
const SERVICE_ACCOUNTS: ResourceType = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};
/** A valid object name of `length` characters. */
const nameOf = (length: number, letter: string) => `${letter.repeat(length - 3)}.z9`;
const deadlineMs = 30_000;

async function installCrds(client: KubeClient): Promise<void> {
  const names: string[] = [];
  for await (const e of Deno.readDir(new URL("crds", ROOT))) {
    if (!e.name.endsWith(".yaml") || e.name === "kustomization.yaml") continue;
    const text = await Deno.readTextFile(new URL(`crds/${e.name}`, ROOT));
    for (const doc of YAML.parseAllDocuments(text)) {
      const crd = doc.toJS() as KubeObject;
      if (!crd?.kind) continue;
      await client.create(CoreTypes.CustomResourceDefinition, crd);
      names.push(crd.metadata.name!);
    }
  }
  for (const name of names) {
    await poll(`CRD ${name} Established`, async () => {
      const crd = await client.get<CustomResourceDefinition>(CoreTypes.CustomResourceDefinition, name);
      return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
    }, { deadlineMs });
  }
}

async function podStatus(client: KubeClient, ns: string, name: string, status: Record<string, unknown>) {
  await client.patch(CoreTypes.Pod, name, { status }, { namespace: ns, type: "merge", subresource: "status" });
}

async function atRuns(client: KubeClient, ns: string, name: string): Promise<void> {
  await client.create(AtType, { metadata: { name }, spec: { schedule: "2020-11-16T10:12:00Z", command: "date" } }, {
    namespace: ns,
  });
  const at = await poll("At RUNNING", async () => {
    const a = await client.get<At>(AtType, name, { namespace: ns });
    return a.status?.phase === "RUNNING" && a.status.podName ? a : undefined;
  }, { deadlineMs });
  const pod = await client.get(CoreTypes.Pod, at.status!.podName!, { namespace: ns });
  assert.equal(pod.metadata.labels?.app, labelValueFor(name));
  await podStatus(client, ns, pod.metadata.name!, { phase: "Succeeded" });
  await poll("At DONE", async () => (await client.get<At>(AtType, name, { namespace: ns })).status?.phase === "DONE", {
    deadlineMs,
  });
}

async function netperfRuns(client: KubeClient, ns: string, name: string): Promise<void> {
  const np = await client.create<Netperf>(NetperfType, { metadata: { name }, spec: { duration: 5 } }, {
    namespace: ns,
  });
  await poll("Netperf Server", async () => {
    const n = await client.get<Netperf>(NetperfType, name, { namespace: ns });
    return n.status?.status === "Server";
  }, { deadlineMs });
  await podStatus(client, ns, serverPodName(np), {
    phase: "Running",
    podIP: "10.244.0.7",
    podIPs: [{ ip: "10.244.0.7" }],
  });
  await poll("Netperf Test", async () => {
    const n = await client.get<Netperf>(NetperfType, name, { namespace: ns });
    return n.status?.status === "Test";
  }, { deadlineMs });
  await podStatus(client, ns, clientPodName(np), {
    phase: "Succeeded",
    containerStatuses: [{
      name: "netperf",
      image: "networkstatic/netperf",
      imageID: "",
      ready: false,
      restartCount: 0,
      state: { terminated: { exitCode: 0, reason: "Completed", message: OUTPUT } },
    }],
  });
  const done = await poll("Netperf Done", async () => {
    const n = await client.get<Netperf>(NetperfType, name, { namespace: ns });
    return n.status?.status === "Done" ? n : undefined;
  }, { deadlineMs });
  assert.equal(done.status?.speedBitsPerSec, 941_500_000);
}

async function machineKeepsSwitches(client: KubeClient, ns: string, name: string): Promise<void> {
  await client.create(MachineType, { metadata: { name }, spec: { switches: 2 } }, { namespace: ns });
  await poll("positions dd", async () => {
    return (await client.get<Machine>(MachineType, name, { namespace: ns })).status?.positions === "dd";
  }, { deadlineMs });
  const mine = (await client.list<Switch>(SwitchType, { namespace: ns })).items.filter((s) =>
    s.metadata.labels?.machine === labelValueFor(name)
  );
  assert.equal(mine.length, 2);
}

async function multiSecretCopies(client: KubeClient, ns: string, name: string, secretName: string): Promise<void> {
  await client.create(MultiSecretType, { metadata: { name }, spec: { secretName, data: { k: "djE=" } } }, {
    namespace: ns,
  });
  const namespaces = (await client.list(CoreTypes.Namespace)).items.length;
  await poll("children everywhere", async () => {
    const s = (await client.get<MultiSecret>(MultiSecretType, name, { namespace: ns })).status;
    return s?.created === namespaces;
  }, { deadlineMs });
  assert.ok(await client.get(CoreTypes.Secret, secretName, { namespace: ns }));
}

Deno.test({
  name: "real cluster: every seed operator converges with 63- and 253-character names",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startRealCluster({ binDir });
    const client = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath) });
    const manager = new Manager({ client, cacheSyncTimeoutMs: 30_000 });
    const stop = new AbortController();
    let running: Promise<void> | undefined;
    try {
      await installCrds(client);
      for (const name of ["machine", "multisecret", "at", "netperf"] as const) {
        for (const c of CONTROLLERS[name]({ informers: manager.informers })) manager.add(c);
      }
      running = manager.start(stop.signal);
      const ns = "default";
      await poll(`ServiceAccount ${ns}/default`, async () => {
        try {
          return await client.get(SERVICE_ACCOUNTS, "default", { namespace: ns });
        } catch {
          return undefined;
        }
      }, { deadlineMs });
      for (const length of [63, 253]) {
        await t.step(`At, ${length} characters: pod runs, DONE`, () => atRuns(client, ns, nameOf(length, "a")));
        await t.step(
          `Netperf, ${length} characters: both pods, Done`,
          () => netperfRuns(client, ns, nameOf(length, "n")),
        );
        await t.step(
          `Machine, ${length} characters: Switches labelled`,
          () => machineKeepsSwitches(client, ns, nameOf(length, "m")),
        );
        await t.step(
          `MultiSecret, ${length} characters: children everywhere`,
          () => multiSecretCopies(client, ns, nameOf(length, "s"), nameOf(length, "x")),
        );
      }
    } finally {
      stop.abort();
      await running;
      client.close();
      await cluster.stop();
    }
  },
});
