// ConfigMap storage across restarts, concurrent writers, and the persisted serving certificate.
import assert from "node:assert/strict";
import { MemoryFarmCluster } from "../apiservice/memory_cluster.ts";
import { readWatch, startFarmFixture } from "../apiservice/test_support.ts";
import { createCA } from "../apiservice/pki.ts";

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

Deno.test("configmap storage: a failing cluster answers 500 Status and keeps serving", async () => {
  const cluster = new MemoryFarmCluster();
  const fx = await startFarmFixture({ cluster, storage: "configmap" });
  try {
    cluster.failConfigMaps = 500;
    const res = await fx.call(NS, create("lost"));
    assert.equal(res.status, 500);
    assert.equal((await res.json()).kind, "Status");
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
