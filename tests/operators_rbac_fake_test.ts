// The seed operators under their least-privilege identity, without a cluster: deploy/rbac/ applied to the fake API
// server (RBAC on), the controllers run with a TokenRequest token of the kubeop-controller ServiceAccount — the
// default-tier twin of tests/real/operators_real_test.ts's least-privilege step. Removing one rule shows up as 403s
// in the operator's metrics, so the RBAC the test exercises is real.
import assert from "node:assert/strict";
import YAML from "yaml";
import { type At, AtType } from "../controllers/at/schema.ts";
import { type Machine, MachineType, type Switch, SwitchType } from "../controllers/machine/schema.ts";
import { CONTROLLERS, crdManifests } from "../controllers/mod.ts";
import { OWNER_UID } from "../controllers/multisecret/controller.ts";
import { type MultiSecret, MultiSecretType } from "../controllers/multisecret/schema.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import type { Lease } from "../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";
import { type FakeApiServer, startFakeApiServer } from "../testing/mod.ts";

const ROOT = new URL("../", import.meta.url);
const POLL = { timeoutMs: 20_000, intervalMs: 20 };
const RBAC_GROUP = "rbac.authorization.k8s.io";
const TYPES: Record<string, ResourceType> = {
  Namespace: CoreTypes.Namespace,
  ServiceAccount: { group: "", version: "v1", plural: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
  ClusterRole: { group: RBAC_GROUP, version: "v1", plural: "clusterroles", kind: "ClusterRole", namespaced: false },
  ClusterRoleBinding: {
    group: RBAC_GROUP,
    version: "v1",
    plural: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  },
  Role: { group: RBAC_GROUP, version: "v1", plural: "roles", kind: "Role", namespaced: true },
  RoleBinding: { group: RBAC_GROUP, version: "v1", plural: "rolebindings", kind: "RoleBinding", namespaced: true },
};

async function readDocs(relative: string): Promise<KubeObject[]> {
  const text = await Deno.readTextFile(new URL(relative, ROOT));
  return YAML.parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter((d) => d && d.kind);
}

/** deploy/namespace.yaml and every deploy/rbac/*.yaml, as their documents. */
async function deployRbac(): Promise<KubeObject[]> {
  const files: string[] = [];
  for await (const e of Deno.readDir(new URL("deploy/rbac", ROOT))) {
    if (e.name.endsWith(".yaml")) files.push(`deploy/rbac/${e.name}`);
  }
  const docs: KubeObject[] = [];
  for (const f of ["deploy/namespace.yaml", ...files.sort()]) docs.push(...await readDocs(f));
  return docs;
}

interface Env {
  server: FakeApiServer;
  admin: KubeClient;
  sa: KubeClient;
  metrics: Metrics;
  close(): Promise<void>;
}

/** A fake server with the CRDs and deploy/rbac/ applied (each doc passed through `edit`), and the SA's client. */
async function startEnv(edit: (doc: KubeObject) => KubeObject = (d) => d): Promise<Env> {
  const server = await startFakeApiServer({ anonymousAdmin: true, kubelet: true });
  const admin = new KubeClient({ config: { server: server.url } });
  for (const crd of crdManifests()) await admin.create(CoreTypes.CustomResourceDefinition, crd);
  let account: KubeObject | undefined;
  for (const doc of await deployRbac()) {
    const rt = TYPES[doc.kind!];
    assert.ok(rt, `no ResourceType for ${doc.kind}`);
    await admin.create(rt, edit(doc), { namespace: doc.metadata.namespace });
    if (doc.kind === "ServiceAccount") account = doc;
  }
  assert.ok(account, "deploy/rbac has the ServiceAccount");
  const res = await admin.request(
    "POST",
    `/api/v1/namespaces/${account.metadata.namespace}/serviceaccounts/${account.metadata.name}/token`,
    {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
      throwOnError: true,
    },
  );
  const token = JSON.parse(new TextDecoder().decode(res.body)).status.token;
  const metrics = new Metrics();
  const sa = new KubeClient({ config: { server: server.url, token }, metrics });
  return {
    server,
    admin,
    sa,
    metrics,
    async close() {
      sa.close();
      admin.close();
      await server.stop();
    },
  };
}

function runControllers(env: Env, names: Array<"machine" | "multisecret" | "at">): () => Promise<void> {
  const manager = new Manager({
    client: env.sa,
    metrics: env.metrics,
    cacheSyncTimeoutMs: 10_000,
    leaderElection: { id: "kubeop", namespace: "kubeop-system" },
  });
  for (const name of names) for (const c of CONTROLLERS[name]({ informers: manager.informers })) manager.add(c);
  const ctrl = new AbortController();
  const running = manager.start(ctrl.signal);
  return async () => {
    ctrl.abort();
    await running;
  };
}

const requests = (metrics: Metrics, code: string) => metrics.value("rest_client_requests_total", { code });

Deno.test({
  name: "operators as the kubeop-controller ServiceAccount under deploy/rbac/ on the fake: reconciles, no 401/403",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const env = await startEnv();
    const stop = runControllers(env, ["machine", "multisecret", "at"]);
    const { admin } = env;
    try {
      await admin.create(CoreTypes.Namespace, { metadata: { name: "sa-work" } });
      // Machine: three owned Switches, scaled to one.
      const [machine] = await readDocs("deploy/samples/useless_v1alpha1_machine_switches.yaml");
      const created = await admin.create<Machine>(MachineType, {
        ...machine,
        metadata: { ...machine.metadata, namespace: "sa-work" },
      } as Machine, { namespace: "sa-work" });
      const switches = () =>
        admin.list<Switch>(SwitchType, { namespace: "sa-work", labelSelector: `machine=${created.metadata.name}` });
      await eventually("three switches", async () => (await switches()).items.length === 3, POLL);
      await admin.patch(MachineType, created.metadata.name!, { spec: { switches: 1 } }, {
        namespace: "sa-work",
        type: "merge",
      });
      await eventually("one switch", async () => (await switches()).items.length === 1, POLL);

      // MultiSecret: a child in every other namespace, removed with the owner (finalizer).
      const [ms] = await readDocs("deploy/samples/multi_v1alpha1_multisecret.yaml");
      const owner = await admin.create<MultiSecret>(MultiSecretType, {
        ...ms,
        metadata: { ...ms.metadata, namespace: "sa-work" },
      } as MultiSecret, { namespace: "sa-work" });
      const children = async () =>
        (await admin.list(CoreTypes.Secret)).items.filter((s) =>
          s.metadata.annotations?.[OWNER_UID] === owner.metadata.uid
        );
      const namespaces = (await admin.list(CoreTypes.Namespace)).items.length;
      await eventually("a child per namespace", async () => (await children()).length === namespaces, POLL);
      await admin.delete(MultiSecretType, ms.metadata.name!, { namespace: "sa-work" });
      await eventually("children deleted", async () => (await children()).length === 0, POLL);

      // At: a past schedule runs a Pod (the fake kubelet runs it to Succeeded) and ends DONE.
      const [at] = await readDocs("deploy/samples/cnat_v1alpha1_at.yaml");
      await admin.create<At>(AtType, { ...at, metadata: { ...at.metadata, namespace: "sa-work" } } as At, {
        namespace: "sa-work",
      });
      await eventually("At DONE", async () => {
        const a = await admin.get<At>(AtType, at.metadata.name!, { namespace: "sa-work" });
        return a.status?.phase === "DONE";
      }, POLL);

      const lease = await admin.get<Lease>(CoreTypes.Lease, "kubeop", { namespace: "kubeop-system" });
      assert.ok(lease.spec?.holderIdentity, "the leader-election Role let the SA hold the Lease");
      assert.equal(await requests(env.metrics, "403"), 0, "no request forbidden under deploy/rbac/");
      assert.equal(await requests(env.metrics, "401"), 0, "the token authenticated every request");
      assert.ok(await requests(env.metrics, "201") > 0, "writes went through");
    } finally {
      await stop();
      await env.close();
    }
  },
});

Deno.test({
  name: "deploy/rbac/ minus secrets `create`: the MultiSecret operator's creates answer 403 (the RBAC test is real)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const env = await startEnv((doc) => {
      if (doc.kind !== "ClusterRole") return doc;
      const rules = (doc.rules as Array<{ resources?: string[]; verbs: string[] }>).map((r) =>
        r.resources?.includes("secrets") ? { ...r, verbs: r.verbs.filter((v) => v !== "create") } : r
      );
      return { ...doc, rules };
    });
    const stop = runControllers(env, ["multisecret"]);
    try {
      await env.admin.create(CoreTypes.Namespace, { metadata: { name: "sa-denied" } });
      const [ms] = await readDocs("deploy/samples/multi_v1alpha1_multisecret.yaml");
      await env.admin.create<MultiSecret>(MultiSecretType, {
        ...ms,
        metadata: { ...ms.metadata, namespace: "sa-denied" },
      } as MultiSecret, { namespace: "sa-denied" });
      await eventually("a 403 in the operator's metrics", async () => await requests(env.metrics, "403") > 0, POLL);
      const forbidden = await env.sa.create(CoreTypes.Secret, { metadata: { name: "probe", namespace: "default" } }, {
        namespace: "default",
      }).then(() => undefined, (err) => err);
      assert.equal(forbidden?.status?.code, 403);
      assert.equal(
        forbidden.status.message,
        'secrets is forbidden: User "system:serviceaccount:kubeop-system:kubeop-controller" cannot create resource "secrets" in API group "" in the namespace "default"',
      );
    } finally {
      await stop();
      await env.close();
    }
  },
});
