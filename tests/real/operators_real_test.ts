// The seed operators against a REAL kube-apiserver v1.33 + kube-controller-manager (garbage collector): CRDs from
// crds/*.yaml, Machine stage 1 and 2 (ownerRefs, scale-down, cascade by the real GC), MultiSecret (children,
// new namespace, finalizer) — first as admin, then under the least-privilege identity of deploy/rbac/ (a
// TokenRequest token for the kubeop-controller ServiceAccount), proving no request is forbidden.
import assert from "node:assert/strict";
import YAML from "yaml";
import { type At, AtType } from "../../controllers/at/schema.ts";
import { type Machine, MachineType, type Switch, SwitchType } from "../../controllers/machine/schema.ts";
import { CONTROLLERS } from "../../controllers/mod.ts";
import { FINALIZER, OWNER_NAME, OWNER_NAMESPACE, OWNER_UID } from "../../controllers/multisecret/controller.ts";
import { type MultiSecret, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { isNotFound } from "../../runtime/client/errors.ts";
import { loadKubeconfigFile, parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { Manager } from "../../runtime/manager/manager.ts";
import { Metrics } from "../../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { type RealCluster, realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import { collectText, freePort, poll, rewriteKubeconfig } from "./support_real.ts";

const binDir = await realClusterBinDir();
const ROOT = new URL("../../", import.meta.url);

/** ResourceTypes of the kinds deploy/ contains. */
const DEPLOY_TYPES: Record<string, ResourceType> = {
  Namespace: CoreTypes.Namespace,
  ServiceAccount: { group: "", version: "v1", plural: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
  ClusterRole: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterroles",
    kind: "ClusterRole",
    namespaced: false,
  },
  ClusterRoleBinding: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  },
  Role: { group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", kind: "Role", namespaced: true },
  RoleBinding: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "rolebindings",
    kind: "RoleBinding",
    namespaced: true,
  },
};

async function readDocs(relative: string): Promise<KubeObject[]> {
  const text = await Deno.readTextFile(new URL(relative, ROOT));
  return YAML.parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter((d) => d && d.kind);
}

async function yamlFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(new URL(dir, ROOT))) if (e.name.endsWith(".yaml")) names.push(`${dir}/${e.name}`);
  return names.sort();
}

async function getOrUndefined<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  name: string,
  namespace?: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(rt, name, { namespace });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Creates every CRD of crds/*.yaml and waits until each is Established. */
async function installCrds(client: KubeClient): Promise<string[]> {
  const names: string[] = [];
  for (const file of (await yamlFiles("crds")).filter((f) => !f.endsWith("/kustomization.yaml"))) {
    for (const crd of await readDocs(file)) {
      await client.create(CoreTypes.CustomResourceDefinition, crd);
      names.push(crd.metadata.name!);
    }
  }
  for (const name of names) {
    await poll(`CRD ${name} Established`, async () => {
      const crd = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
        CoreTypes.CustomResourceDefinition,
        name,
      );
      return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
    }, { deadlineMs: 30_000 });
  }
  return names;
}

/** Runs machine + multisecret + at in a Manager on `client`; returns a stop function. */
function runControllers(
  client: KubeClient,
  metrics: Metrics,
  leaderElection?: { id: string; namespace: string },
): { manager: Manager; stop(): Promise<void> } {
  const manager = new Manager({ client, metrics, cacheSyncTimeoutMs: 30_000, leaderElection });
  for (const name of ["machine", "multisecret", "at"] as const) {
    for (const c of CONTROLLERS[name]({ informers: manager.informers })) manager.add(c);
  }
  const ctrl = new AbortController();
  const running = manager.start(ctrl.signal);
  return {
    manager,
    async stop() {
      ctrl.abort();
      await running;
    },
  };
}

/** Sum of rest_client_requests_total over the given status codes. */
async function requestsWithCode(metrics: Metrics, codes: string[]): Promise<number> {
  let n = 0;
  for (const code of codes) n += await metrics.value("rest_client_requests_total", { code });
  return n;
}

async function switchesOf(client: KubeClient, ns: string, machine: string): Promise<Switch[]> {
  return (await client.list<Switch>(SwitchType, { namespace: ns, labelSelector: `machine=${machine}` })).items;
}

/**
 * At on `ns` with the tutorial sample (schedule in the past): the Pod is created and owned; the test plays the
 * kubelet (no kubelet on this cluster) by patching the Pod's status to Succeeded; the At ends DONE.
 */
async function atCycle(admin: KubeClient, ns: string): Promise<void> {
  const serviceAccounts: ResourceType = DEPLOY_TYPES.ServiceAccount;
  // The ServiceAccount admission plugin refuses Pods until the namespace's default ServiceAccount exists.
  await poll(`ServiceAccount ${ns}/default`, () => getOrUndefined(admin, serviceAccounts, "default", ns), {
    deadlineMs: 20_000,
  });
  const [sample] = await readDocs("deploy/samples/cnat_v1alpha1_at.yaml");
  const at = await admin.create<At>(AtType, { ...sample, metadata: { ...sample.metadata, namespace: ns } } as At, {
    namespace: ns,
  });
  const running = await poll("At RUNNING", async () => {
    const a = await admin.get<At>(AtType, at.metadata.name!, { namespace: ns });
    return a.status?.phase === "RUNNING" && a.status.podName ? a : undefined;
  }, { deadlineMs: 20_000 });
  type Pod = KubeObject & { spec: { containers: { command?: string[] }[] }; status?: { phase?: string } };
  const pod = await admin.get<Pod>(CoreTypes.Pod, running.status!.podName!, { namespace: ns });
  assert.deepEqual(pod.spec.containers[0].command, ["echo", "hello", "world!"]);
  assert.deepEqual(
    pod.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]),
    [["At", at.metadata.uid, true]],
  );
  assert.equal(pod.status?.phase, "Pending", "no kubelet: the Pod never runs by itself");
  await admin.patch(CoreTypes.Pod, pod.metadata.name!, { status: { phase: "Succeeded" } }, {
    namespace: ns,
    type: "merge",
    subresource: "status",
  });
  await poll(
    "At DONE",
    async () => (await admin.get<At>(AtType, at.metadata.name!, { namespace: ns })).status?.phase === "DONE",
    {
      deadlineMs: 20_000,
    },
  );
}

/**
 * Machine stage 1 on `ns` with the tutorial sample unchanged: seenAt, then ≥ 5 s later the switch goes down and
 * seenAt is cleared.
 */
async function machineStage1(client: KubeClient, ns: string): Promise<void> {
  const [sample] = await readDocs("deploy/samples/useless_v1alpha1_machine.yaml");
  assert.equal(sample.metadata.labels, null, "the sample keeps the tutorial's empty `labels:`");
  const name = sample.metadata.name!;
  await client.create(MachineType, { ...sample, metadata: { ...sample.metadata, namespace: ns } } as Machine, {
    namespace: ns,
  });
  const seenAt = await poll("status.seenAt", async () => {
    return (await client.get<Machine>(MachineType, name, { namespace: ns })).status?.seenAt;
  }, { deadlineMs: 20_000 });
  const down = await poll("switchPosition down", async () => {
    const m = await client.get<Machine>(MachineType, name, { namespace: ns });
    // spec (the flip) and status (seenAt cleared) are two writes: wait for both.
    return m.spec.switchPosition === "down" && !m.status?.seenAt ? m : undefined;
  }, { deadlineMs: 20_000 });
  // The flip is due 5 s after seenAt: observing it earlier would be the bug.
  assert.ok(Date.now() - Date.parse(seenAt) >= 5_000, `flipped before 5 s (seenAt ${seenAt})`);
  const events = await client.list<KubeObject & { reason?: string; regarding?: { uid?: string } }>(CoreTypes.Event, {
    namespace: ns,
  });
  assert.ok(
    events.items.some((e) => e.reason === "Seen" && e.regarding?.uid === down.metadata.uid),
    "the controller's Seen Event reached the server",
  );
}

/** Machine stage 2 on `ns`: three owned Switches, scale to one, cascade via the real GC. */
async function machineStage2(client: KubeClient, ns: string): Promise<void> {
  const [sample] = await readDocs("deploy/samples/useless_v1alpha1_machine_switches.yaml");
  const created = await client.create<Machine>(MachineType, {
    ...sample,
    metadata: { ...sample.metadata, namespace: ns },
  } as Machine, {
    namespace: ns,
  });
  const name = created.metadata.name!;
  const three = await poll("three switches", async () => {
    const s = await switchesOf(client, ns, name);
    return s.length === 3 ? s : undefined;
  }, { deadlineMs: 20_000 });
  for (const sw of three) {
    assert.deepEqual(
      sw.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]),
      [["Machine", name, created.metadata.uid, true, true]],
      `ownerReferences of ${sw.metadata.name}`,
    );
  }
  await poll(
    "status.positions ddd",
    async () => (await client.get<Machine>(MachineType, name, { namespace: ns })).status?.positions === "ddd",
    {
      deadlineMs: 20_000,
    },
  );
  await client.patch(MachineType, name, { spec: { switches: 1 } }, { namespace: ns, type: "merge" });
  const one = await poll("scaled to one switch", async () => {
    const s = await switchesOf(client, ns, name);
    return s.length === 1 ? s : undefined;
  }, { deadlineMs: 20_000 });
  assert.ok(three.some((s) => s.metadata.uid === one[0].metadata.uid), "the survivor is one of the three");
  await client.delete(MachineType, name, { namespace: ns });
  await poll("machine gone", async () => !(await getOrUndefined(client, MachineType, name, ns)), {
    deadlineMs: 20_000,
  });
  await poll("real GC cascaded the last switch", async () => (await switchesOf(client, ns, name)).length === 0, {
    deadlineMs: 60_000,
  });
}

/** MultiSecret on `ns`: a child per namespace, a new namespace gets one, deletion removes only children. */
async function multiSecretCycle(client: KubeClient, ns: string, newNamespace: string): Promise<void> {
  const [sample] = await readDocs("deploy/samples/multi_v1alpha1_multisecret.yaml");
  const secretName = sample.metadata.name!;
  // An unrelated Secret of the same name in one namespace: never taken over, never deleted.
  await client.create(CoreTypes.Secret, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: secretName, namespace: ns },
    data: { theirs: "eA==" },
  });
  const owner = await client.create<MultiSecret>(MultiSecretType, {
    ...sample,
    metadata: { ...sample.metadata, namespace: ns },
  } as MultiSecret, { namespace: ns });
  const children = async () =>
    (await client.list(CoreTypes.Secret)).items.filter((s) =>
      s.metadata.name === secretName && s.metadata.annotations?.[OWNER_UID] === owner.metadata.uid
    );
  const active = async () =>
    (await client.list<KubeObject & { status?: { phase?: string } }>(CoreTypes.Namespace)).items
      .filter((n) => n.status?.phase !== "Terminating" && n.metadata.name !== ns).map((n) => n.metadata.name!).sort();
  let diff = "";
  await poll("a child in every other namespace", async () => {
    const have = JSON.stringify((await children()).map((s) => s.metadata.namespace!).sort());
    const want = JSON.stringify(await active());
    diff = `have ${have}, want ${want}`;
    return have === want;
  }, { deadlineMs: 20_000 }).catch((err) => {
    throw new Error(`${err.message} (${diff})`);
  });
  for (const s of await children()) {
    assert.equal(s.metadata.annotations?.[OWNER_NAME], secretName);
    assert.equal(s.metadata.annotations?.[OWNER_NAMESPACE], ns);
    assert.deepEqual((s as KubeObject & { data?: Record<string, string> }).data, {
      username: "YWRtaW4=",
      password: btoa("s3cr3t"),
    });
  }
  const current = await client.get<MultiSecret>(MultiSecretType, secretName, { namespace: ns });
  assert.ok(current.metadata.finalizers?.includes(FINALIZER), "finalizer added");

  await client.create(CoreTypes.Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: newNamespace } });
  await poll(
    `child in the new namespace ${newNamespace}`,
    () => getOrUndefined(client, CoreTypes.Secret, secretName, newNamespace),
    { deadlineMs: 20_000 },
  );

  await client.delete(MultiSecretType, secretName, { namespace: ns });
  await poll(
    "MultiSecret gone (finalizer removed)",
    async () => !(await getOrUndefined(client, MultiSecretType, secretName, ns)),
    {
      deadlineMs: 20_000,
    },
  );
  assert.deepEqual(await children(), [], "every child deleted");
  const theirs = await client.get<KubeObject & { data?: Record<string, string> }>(CoreTypes.Secret, secretName, {
    namespace: ns,
  });
  assert.deepEqual(theirs.data, { theirs: "eA==" }, "the unrelated Secret survives");
  // Later cycles expect a child in this namespace: leave no conflicting Secret behind.
  await client.delete(CoreTypes.Secret, secretName, { namespace: ns });
}

/** Applies deploy/namespace.yaml and deploy/rbac/*.yaml; returns a kubeconfig for the ServiceAccount's token. */
async function serviceAccountKubeconfig(
  client: KubeClient,
  cluster: RealCluster,
  opts: { applyRbac?: boolean } = {},
): Promise<string> {
  for (const file of opts.applyRbac === false ? [] : ["deploy/namespace.yaml", ...await yamlFiles("deploy/rbac")]) {
    for (const doc of await readDocs(file)) {
      const rt = DEPLOY_TYPES[doc.kind!];
      assert.ok(rt, `no ResourceType for ${doc.kind} in ${file}`);
      await client.create(rt, doc, { namespace: doc.metadata.namespace });
    }
  }
  const sa = (await readDocs("deploy/rbac/service_account.yaml"))[0];
  const res = await client.request(
    "POST",
    `/api/v1/namespaces/${sa.metadata.namespace}/serviceaccounts/${sa.metadata.name}/token`,
    {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
      throwOnError: true,
    },
  );
  const token = JSON.parse(new TextDecoder().decode(res.body)).status?.token;
  assert.ok(typeof token === "string" && token.length > 0, "TokenRequest returned a token");
  return rewriteKubeconfig(cluster.kubeconfig, { token });
}

Deno.test({
  name: "real cluster: machine and multisecret operators, as admin and under the least-privilege RBAC",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startRealCluster({ binDir });
    const admin = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath) });
    try {
      await t.step("CRDs from crds/*.yaml are accepted and Established", async () => {
        const names = await installCrds(admin);
        assert.equal(names.length, 5);
      });

      await t.step("as admin: Machine stage 1, stage 2 (ownerRefs, scale, GC cascade), MultiSecret", async (t) => {
        const metrics = new Metrics();
        const client = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath), metrics });
        const running = runControllers(client, metrics);
        try {
          await t.step("stage 1: seenAt set, ≥ 5 s later the switch goes down", async () => {
            await machineStage1(admin, "default");
          });
          await t.step("stage 2: switches owned, scaled, cascaded by the real garbage collector", async () => {
            await machineStage2(admin, "default");
          });
          await t.step("MultiSecret: children everywhere, new namespace, finalizer-driven cleanup", async () => {
            await admin.create(CoreTypes.Namespace, {
              apiVersion: "v1",
              kind: "Namespace",
              metadata: { name: "ms-admin" },
            });
            await multiSecretCycle(admin, "ms-admin", "ms-admin-late");
          });
          await t.step("At: past schedule → owned Pod → (test as kubelet) Succeeded → DONE", async () => {
            await atCycle(admin, "default");
          });
          assert.equal(await requestsWithCode(metrics, ["401", "403"]), 0, "no request refused");
        } finally {
          await running.stop();
          client.close();
        }
      });

      await t.step("as the kubeop-controller ServiceAccount (deploy/rbac/): same behaviour, no 403", async () => {
        const kubeconfig = await serviceAccountKubeconfig(admin, cluster);
        const metrics = new Metrics();
        const client = new KubeClient({ config: await parseKubeconfig(kubeconfig), metrics });
        // With leader election in kubeop-system: the leader-election Role is exercised too.
        const running = runControllers(client, metrics, { id: "kubeop", namespace: "kubeop-system" });
        try {
          await poll("leader", () => running.manager.isLeader(), { deadlineMs: 30_000 });
          for (const ns of ["sa-machines", "sa-secrets"]) {
            await admin.create(CoreTypes.Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
          }
          await machineStage1(admin, "sa-machines");
          await machineStage2(admin, "sa-machines");
          await multiSecretCycle(admin, "sa-secrets", "sa-secrets-late");
          await atCycle(admin, "sa-machines");
          const lease = await admin.get<KubeObject & { spec: { holderIdentity?: string } }>(CoreTypes.Lease, "kubeop", {
            namespace: "kubeop-system",
          });
          assert.equal(lease.spec.holderIdentity, running.manager.identity);
          assert.equal(await requestsWithCode(metrics, ["403"]), 0, "no request forbidden under deploy/rbac/");
          assert.equal(await requestsWithCode(metrics, ["401"]), 0, "the token authenticated every request");
          assert.ok(await metrics.value("rest_client_requests_total", { code: "201" }) > 0, "writes went through");
        } finally {
          await running.stop();
          client.close();
        }
        assert.equal(await requestsWithCode(metrics, ["403"]), 0, "no request forbidden, shutdown included");
      });

      await t.step(
        "`kubeop run` as a subprocess with the ServiceAccount token: works, no 403, SIGTERM → 0",
        async () => {
          const kubeconfig = await serviceAccountKubeconfig(admin, cluster, { applyRbac: false });
          const dir = await Deno.makeTempDir({ prefix: "kubeop-real-run-" });
          await Deno.writeTextFile(`${dir}/sa.kubeconfig`, kubeconfig);
          const [metricsPort, probePort] = [freePort(), freePort()];
          const child = new Deno.Command(Deno.execPath(), {
            args: [
              "run",
              "-A",
              new URL("main.ts", ROOT).pathname,
              "run",
              "--kubeconfig",
              `${dir}/sa.kubeconfig`,
              "--controllers",
              "machine,multisecret",
              "--leader-elect",
              "--leader-election-id",
              "kubeop-cli",
              "--leader-election-namespace",
              "kubeop-system",
              "--metrics-bind-address",
              `127.0.0.1:${metricsPort}`,
              "--health-probe-bind-address",
              `127.0.0.1:${probePort}`,
              // multisecret's webhook is served (its Secret and RBAC exist); loopback only, like the others.
              "--webhook-bind-address",
              "127.0.0.1:0",
            ],
            stdout: "piped",
            stderr: "piped",
          }).spawn();
          const out = collectText(child.stdout);
          const err = collectText(child.stderr);
          const scrape = async () => {
            const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
            return await res.text();
          };
          try {
            await poll("kubeop run /readyz", async () => {
              const res = await fetch(`http://127.0.0.1:${probePort}/readyz`);
              await res.body?.cancel();
              return res.ok;
            }, { deadlineMs: 60_000, intervalMs: 250 }).catch((e) => {
              throw new Error(`${e.message}\n${err.text().slice(-3000)}`);
            });
            await poll("CLI leader", async () => /leader_election_master_status\{[^}]*\} 1/.test(await scrape()), {
              deadlineMs: 30_000,
            });
            await admin.create(CoreTypes.Namespace, {
              apiVersion: "v1",
              kind: "Namespace",
              metadata: { name: "cli-run" },
            });
            await machineStage2(admin, "cli-run");
            await multiSecretCycle(admin, "cli-run", "cli-run-late");
            const text = await scrape();
            const refused = text.split("\n").filter((l) =>
              l.startsWith("rest_client_requests_total{") && /code="40[13]"/.test(l)
            );
            assert.deepEqual(refused, [], "no request refused");
            assert.match(text, /rest_client_requests_total\{[^}]*code="201"[^}]*\} [1-9]/);
          } catch (e) {
            throw new Error(`${(e as Error).message}\nkubeop run stderr:\n${err.text().slice(-4000)}`);
          } finally {
            try {
              child.kill("SIGTERM");
            } catch { /* already exited: reported by the catch above */ }
          }
          const status = await child.status;
          await Promise.all([out.done, err.done]);
          assert.equal(status.code, 0, `kubeop run exit code\n${err.text().slice(-3000)}`);
          assert.doesNotMatch(out.text() + err.text(), /\b403\b|[Ff]orbidden/, "no Forbidden in the logs");
          const lease = await admin.get<KubeObject & { spec: { holderIdentity?: string } }>(
            CoreTypes.Lease,
            "kubeop-cli",
            {
              namespace: "kubeop-system",
            },
          );
          assert.ok(!lease.spec.holderIdentity, `Lease released on SIGTERM: ${JSON.stringify(lease.spec)}`);
          await Deno.remove(dir, { recursive: true });
        },
      );
    } finally {
      admin.close();
      await cluster.stop();
    }
  },
});
