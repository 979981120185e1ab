// ConfigMap storage across restarts, concurrent writers, and the persisted serving certificate.
import assert from "node:assert/strict";
import { MemoryFarmCluster } from "../apiservice/memory_cluster.ts";
import { readWatch, startFarmFixture } from "./support/farm_fixture.ts";
import { createCA } from "../runtime/http/pki.ts";
import { eventually } from "../testing/eventually.ts";

const NS = "/apis/farm.example.com/v1alpha/namespaces/default/llamas";

function create(name: string, weight = 10): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name }, spec: { weight, height: 1 } }),
  };
}

Deno.test("configmap storage: a restart keeps llamas and resourceVersions keep growing", async () => {
  const cluster = new MemoryFarmCluster();
  const frontProxyCA = await createCA({ commonName: "front-proxy-ca" });
  const first = await startFarmFixture({ cluster, frontProxyCA, storage: "configmap", storageNamespace: "farm" });
  let lastRV: number;
  let kuzcoUID: string;
  try {
    const res = await first.call(NS, create("kuzco", 90));
    assert.equal(res.status, 201);
    const kuzco = await res.json();
    kuzcoUID = kuzco.metadata.uid;
    const deleted = await first.call(`${NS}/dolly`, { method: "DELETE" });
    assert.equal(deleted.status, 200);
    lastRV = Number((await deleted.json()).metadata.resourceVersion);
    const cm = await cluster.getConfigMap("farm", "farm-llamas");
    assert.equal(cm?.data?.resourceVersion, String(lastRV));
  } finally {
    await first.close();
  }
  const second = await startFarmFixture({ cluster, frontProxyCA, storage: "configmap", storageNamespace: "farm" });
  try {
    const list = await (await second.call(NS)).json();
    assert.deepEqual(list.items.map((l: { metadata: { name: string } }) => l.metadata.name), ["kuzco"]);
    assert.equal(list.items[0].metadata.uid, kuzcoUID);
    assert.equal(list.items[0].spec.weight, 90);
    assert.equal(list.metadata.resourceVersion, String(lastRV));
    const res = await second.call(NS, create("pacha"));
    const pacha = await res.json();
    assert.ok(Number(pacha.metadata.resourceVersion) > lastRV, "RVs continue after a restart");
  } finally {
    await second.close();
  }
});

Deno.test("configmap storage: two servers sharing the ConfigMap retry on conflict and lose nothing", async () => {
  const cluster = new MemoryFarmCluster();
  const frontProxyCA = await createCA({ commonName: "front-proxy-ca" });
  const a = await startFarmFixture({ cluster, frontProxyCA, storage: "configmap" });
  const b = await startFarmFixture({ cluster, frontProxyCA, storage: "configmap" });
  try {
    const ra = await a.call(NS, create("from-a"));
    assert.equal(ra.status, 201);
    await ra.body?.cancel();
    const rb = await b.call(NS, create("from-b"));
    assert.equal(rb.status, 201, "b reloads after the conflict and retries");
    await rb.body?.cancel();
    const cm = await cluster.getConfigMap("kube-system", "farm-llamas");
    const names = JSON.parse(cm!.data!["llamas.json"]).map((l: { metadata: { name: string } }) => l.metadata.name);
    assert.deepEqual(names.sort(), ["dolly", "from-a", "from-b"]);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("configmap storage: a failing cluster answers 503 Status and keeps serving", async () => {
  const cluster = new MemoryFarmCluster();
  const fx = await startFarmFixture({ cluster, storage: "configmap" });
  try {
    cluster.failConfigMaps = 500;
    const res = await fx.call(NS, create("lost"));
    assert.equal(res.status, 503);
    const status = await res.json();
    assert.equal(status.kind, "Status");
    assert.match(status.message, /llama storage unavailable \(writing ConfigMap kube-system\/farm-llamas\)/);
    cluster.failConfigMaps = 403;
    const forbidden = await fx.call(NS, create("lost"));
    assert.equal(forbidden.status, 500, "the server's own RBAC problem is not the caller's 403");
    await forbidden.body?.cancel();
    cluster.failConfigMaps = undefined;
    const list = await (await fx.call(NS)).json();
    assert.deepEqual(list.items.map((l: { metadata: { name: string } }) => l.metadata.name), ["dolly"]);
  } finally {
    await fx.close();
  }
});

Deno.test("memory storage: a restarted server answers an old resourceVersion with 410", async () => {
  const frontProxyCA = await createCA({ commonName: "front-proxy-ca" });
  const certDir = await Deno.makeTempDir({ prefix: "farm-certs-" });
  const first = await startFarmFixture({ frontProxyCA, certDir });
  const firstCA = first.farm.caPEM;
  const oldRV = (await (await first.call(NS)).json()).metadata.resourceVersion;
  await first.close();
  // Memory RVs start from the wall clock, so every RV of the first process is older than the second's start.
  const second = await startFarmFixture({ frontProxyCA, certDir });
  try {
    assert.equal(second.farm.caPEM, firstCA, "the serving CA is reused from --cert-dir");
    const res = await second.call(`${NS}?watch=true&resourceVersion=${Number(oldRV) - 1}`);
    const events = await readWatch(res, (e) => e.length >= 1);
    assert.equal(events[0].type, "ERROR");
    assert.equal(events[0].object.code, 410);
  } finally {
    await second.close();
    await Deno.remove(certDir, { recursive: true });
  }
});

Deno.test("--cert-secret: the first server generates the cert, the next reuses its CA; caBundle is set", async () => {
  const cluster = new MemoryFarmCluster();
  const certSecret = { namespace: "kubeop-system", name: "kubeop-farm-serving-cert" };
  const a = await startFarmFixture({ cluster, certSecret, apiServiceName: "v1alpha.farm.example.com" });
  const caA = a.farm.caPEM;
  await a.close();
  const b = await startFarmFixture({ cluster, certSecret, apiServiceName: "v1alpha.farm.example.com" });
  try {
    assert.equal(b.farm.caPEM, caA);
    assert.equal(cluster.caBundles.get("v1alpha.farm.example.com"), btoa(caA));
    const secret = await cluster.getSecret("kubeop-system", "kubeop-farm-serving-cert");
    assert.equal(secret?.type, "kubernetes.io/tls");
    const res = await b.call("/healthz");
    assert.equal(res.status, 200, "served with the Secret's cert, trusted through its CA");
    await res.body?.cancel();
  } finally {
    await b.close();
  }
});

Deno.test("the serving cert is reloaded when its files change", async () => {
  const certDir = await Deno.makeTempDir({ prefix: "farm-certs-" });
  const fx = await startFarmFixture({ certDir, certReloadIntervalMs: 20 });
  try {
    const ca = await createCA({ commonName: "replacement-ca" });
    const leaf = await ca.issue({ commonName: "localhost", hosts: ["localhost", "127.0.0.1"], usage: "server" });
    await Deno.writeTextFile(`${certDir}/apiserver.key`, leaf.keyPEM);
    await Deno.writeTextFile(`${certDir}/apiserver.crt`, leaf.certPEM);
    const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
    try {
      await eventually(
        "the new certificate is served",
        () =>
          fetch(`${fx.farm.url}/healthz`, { client }).then(async (r) => {
            await r.body?.cancel();
            return r.status === 200;
          }, () => false),
        { timeoutMs: 10_000, intervalMs: 20 },
      );
    } finally {
      client.close();
    }
  } finally {
    await fx.close();
    await Deno.remove(certDir, { recursive: true });
  }
});
