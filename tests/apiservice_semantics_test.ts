// The farm aggregated API against k8s.io/apiserver semantics, over HTTP with the fake API server behind it:
// dryRun on every write, deletecollection, and limit/continue paging from a consistent snapshot.
import assert from "node:assert/strict";
import { readWatch } from "./support/farm_fixture.ts";
import type { ConfigMap } from "../runtime/builtin_types.ts";
import { LLAMAS, postLlama, startFarmOnFake } from "./support/farm_on_fake.ts";

type Llama = { metadata: { name: string; resourceVersion?: string; uid?: string }; spec: { weight: number } };
const names = (list: { items: Llama[] }) => list.items.map((l) => l.metadata.name);

Deno.test("dryRun=All: create, update, patch and delete validate and answer, but persist nothing and emit no event", async () => {
  const env = await startFarmOnFake({ storage: "configmap" });
  const [fx] = env.replicas;
  try {
    const before = await (await fx.call(LLAMAS)).json();
    const watch = await fx.call(`${LLAMAS}?watch=true&resourceVersion=${before.metadata.resourceVersion}`);

    const created = await fx.call(`${LLAMAS}?dryRun=All`, postLlama("ghost"));
    assert.equal(created.status, 201);
    const ghost = await created.json();
    assert.equal(ghost.metadata.name, "ghost");
    assert.ok(ghost.metadata.uid, "answered as the create would");
    assert.equal(ghost.metadata.resourceVersion, undefined, "nothing versioned");
    assert.equal((await fx.call(`${LLAMAS}/ghost`)).status, 404);

    const invalid = await fx.call(`${LLAMAS}?dryRun=All`, postLlama("bad", {}, -1));
    assert.equal(invalid.status, 422, "validated like a real create");
    await invalid.body?.cancel();

    const dolly = await (await fx.call(`${LLAMAS}/dolly`)).json();
    const put = await fx.call(`${LLAMAS}/dolly?dryRun=All`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...dolly, spec: { ...dolly.spec, weight: 99 } }),
    });
    assert.equal(put.status, 200);
    const putBody = await put.json();
    assert.equal(putBody.spec.weight, 99);
    assert.equal(putBody.metadata.resourceVersion, dolly.metadata.resourceVersion);
    const patched = await fx.call(`${LLAMAS}/dolly?dryRun=All`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { weight: 77 } }),
    });
    assert.equal((await patched.json()).spec.weight, 77);
    const deleted = await fx.call(`${LLAMAS}/dolly?dryRun=All`, { method: "DELETE" });
    assert.equal(deleted.status, 200);
    await deleted.body?.cancel();
    const bodyDryRun = await fx.call(`${LLAMAS}/dolly`, {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", dryRun: ["All"] }),
    });
    assert.equal(bodyDryRun.status, 200);
    await bodyDryRun.body?.cancel();

    const after = await (await fx.call(`${LLAMAS}/dolly`)).json();
    assert.deepEqual(after, dolly, "dolly unchanged");
    const list = await (await fx.call(LLAMAS)).json();
    assert.equal(list.metadata.resourceVersion, before.metadata.resourceVersion, "no write happened");
    const cm = await env.client.get<ConfigMap>(
      { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true },
      "farm-llamas",
      { namespace: "kube-system" },
    );
    assert.equal(cm.data?.resourceVersion, before.metadata.resourceVersion, "the ConfigMap was not written");

    // A real write after the dry runs is the first event the watch sees.
    (await fx.call(LLAMAS, postLlama("real"))).body?.cancel();
    const events = await readWatch(watch, (e) => e.length >= 1);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [["ADDED", "real"]]);

    const bad = await fx.call(`${LLAMAS}?dryRun=Some`, postLlama("x"));
    assert.equal(bad.status, 422);
    const status = await bad.json();
    assert.equal(status.details.kind, "CreateOptions");
    assert.equal(status.details.causes[0].field, "dryRun");
  } finally {
    await env.close();
  }
});

Deno.test("deletecollection: deletes what the label selector matches (a DELETED each), answers them; dryRun keeps them", async () => {
  const env = await startFarmOnFake();
  const [fx] = env.replicas;
  try {
    for (const [name, herd] of [["a1", "a"], ["a2", "a"], ["b1", "b"]]) {
      (await fx.call(LLAMAS, postLlama(name, { herd }))).body?.cancel();
    }
    const start = (await (await fx.call(LLAMAS)).json()).metadata.resourceVersion;
    const dry = await fx.call(`${LLAMAS}?labelSelector=herd%3Da&dryRun=All`, { method: "DELETE" });
    assert.deepEqual(names(await dry.json()), ["a1", "a2"]);
    assert.equal((await fx.call(`${LLAMAS}/a1`)).status, 200);

    const watch = await fx.call(`${LLAMAS}?watch=true&resourceVersion=${start}`);
    const res = await fx.call(`${LLAMAS}?labelSelector=herd%3Da`, { method: "DELETE" });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.kind, "LlamaList");
    assert.deepEqual(names(body), ["a1", "a2"]);
    const events = await readWatch(watch, (e) => e.length >= 2);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [["DELETED", "a1"], ["DELETED", "a2"]]);
    const left = names(await (await fx.call(LLAMAS)).json());
    assert.ok(left.includes("b1") && !left.includes("a1") && !left.includes("a2"));

    const discovery = await (await fx.call("/apis/farm.example.com/v1alpha")).json();
    const llamas = discovery.resources.find((r: { name: string }) => r.name === "llamas");
    assert.ok(llamas.verbs.includes("deletecollection"));
  } finally {
    await env.close();
  }
});

Deno.test("limit/continue: pages of a consistent snapshot, remainingItemCount, 400 for a bad token, rv=0 ignores limit", async () => {
  const env = await startFarmOnFake();
  const [fx] = env.replicas;
  try {
    for (const name of ["p1", "p2", "p3", "p4"]) (await fx.call(LLAMAS, postLlama(name))).body?.cancel();
    const all = names(await (await fx.call(LLAMAS)).json());
    assert.ok(all.length >= 5, "the seeded llamas and ours");

    const first = await (await fx.call(`${LLAMAS}?limit=2`)).json();
    assert.deepEqual(names(first), all.slice(0, 2));
    assert.ok(first.metadata.continue);
    assert.equal(first.metadata.remainingItemCount, all.length - 2);

    // Writes between pages do not show: every page is read at the first page's resourceVersion.
    (await fx.call(`${LLAMAS}/${all[3]}`, { method: "DELETE" })).body?.cancel();
    (await fx.call(LLAMAS, postLlama("aaa-late"))).body?.cancel();
    (await fx.call(`${LLAMAS}/${all[2]}`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { weight: 55 } }),
    })).body?.cancel();

    const seen = [...names(first)];
    let token: string | undefined = first.metadata.continue;
    let pages = 1;
    while (token) {
      const page = await (await fx.call(`${LLAMAS}?limit=2&continue=${encodeURIComponent(token)}`)).json();
      assert.equal(page.metadata.resourceVersion, first.metadata.resourceVersion);
      if (pages === 1) assert.notEqual(page.items[0].spec.weight, 55, "the snapshot's state, not the patched one");
      seen.push(...names(page));
      token = page.metadata.continue;
      pages++;
    }
    assert.deepEqual(seen, all, "every item once, as of the first page");
    assert.equal(pages, Math.ceil(all.length / 2));

    const bad = await fx.call(`${LLAMAS}?limit=2&continue=not-a-token`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /continue key is not valid/);
    const cached = await (await fx.call(`${LLAMAS}?limit=1&resourceVersion=0`)).json();
    assert.equal(cached.items.length, all.length, "resourceVersion=0 ignores limit");
    assert.equal(cached.metadata.continue, undefined);
    const selected = await (await fx.call(`${LLAMAS}?limit=1&labelSelector=none%3Dx`)).json();
    assert.equal(selected.metadata.remainingItemCount, undefined);
  } finally {
    await env.close();
  }
});
