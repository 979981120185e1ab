// Every route and verb of the farm aggregated API server over real HTTPS (127.0.0.1), as the front proxy.
import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { readWatch, startFarmFixture } from "./support/farm_fixture.ts";
import { nestedField } from "../runtime/unstructured.ts";

const NS = "/apis/farm.example.com/v1alpha/namespaces/default/llamas";
const TABLE_ACCEPT =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

function json(body: unknown): RequestInit {
  return { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } };
}

Deno.test("health endpoints and discovery documents", async () => {
  const fx = await startFarmFixture();
  try {
    for (const p of ["/healthz", "/livez", "/readyz"]) {
      const res = await fx.call(p, { as: { cert: "none" } });
      assert.equal(res.status, 200, p);
      assert.equal(await res.text(), "ok");
    }
    const groups = await (await fx.call("/apis")).json();
    assert.equal(groups.kind, "APIGroupList");
    assert.equal(groups.groups[0].name, "farm.example.com");
    assert.equal(groups.groups[0].preferredVersion.groupVersion, "farm.example.com/v1alpha");

    const agg = await fx.call("/apis", {
      headers: { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json" },
    });
    assert.match(agg.headers.get("content-type")!, /g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList/);
    const aggBody = await agg.json();
    assert.equal(aggBody.items[0].versions[0].resources[0].responseKind.kind, "Llama");
    assert.equal(aggBody.items[0].versions[0].resources[0].scope, "Namespaced");

    const group = await (await fx.call("/apis/farm.example.com")).json();
    assert.equal(group.kind, "APIGroup");
    const list = await (await fx.call("/apis/farm.example.com/v1alpha")).json();
    assert.equal(list.kind, "APIResourceList");
    const llamas = list.resources.find((r: { name: string }) => r.name === "llamas");
    assert.deepEqual(llamas.verbs.toSorted(), [
      "create",
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ]);
    assert.equal(llamas.kind, "Llama");
    assert.equal(llamas.namespaced, true);
    const farmpods = list.resources.find((r: { name: string }) => r.name === "farmpods");
    assert.deepEqual(farmpods.verbs, ["get", "list", "watch"]);
  } finally {
    await fx.close();
  }
});

Deno.test("OpenAPI v3 index and document carry GVK and fieldValidation; v2 is JSON or 406", async () => {
  const fx = await startFarmFixture();
  try {
    const index = await (await fx.call("/openapi/v3")).json();
    const url = index.paths["apis/farm.example.com/v1alpha"].serverRelativeURL as string;
    assert.match(url, /^\/openapi\/v3\/apis\/farm.example.com\/v1alpha\?hash=/);
    const doc = await (await fx.call(url)).json();
    const item = doc.paths["/apis/farm.example.com/v1alpha/namespaces/{namespace}/llamas/{name}"];
    assert.deepEqual(item.patch["x-kubernetes-group-version-kind"], {
      group: "farm.example.com",
      version: "v1alpha",
      kind: "Llama",
    });
    assert.ok(item.patch.parameters.some((p: { name: string }) => p.name === "fieldValidation"));
    assert.deepEqual(doc.components.schemas["com.example.farm.v1alpha.Llama"].properties.spec.required, [
      "weight",
      "height",
    ]);
    const v2 = await fx.call("/openapi/v2", { headers: { accept: "application/json" } });
    assert.equal((await v2.json()).swagger, "2.0");
    const proto = await fx.call("/openapi/v2", {
      headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
    });
    assert.equal(proto.status, 406);
    assert.equal((await proto.json()).kind, "Status");
  } finally {
    await fx.close();
  }
});

Deno.test("seeded dolly; LlamaList kind; 404 Status body", async () => {
  const fx = await startFarmFixture();
  try {
    const dolly = await (await fx.call(`${NS}/dolly`)).json();
    assert.equal(dolly.kind, "Llama");
    assert.equal(dolly.apiVersion, "farm.example.com/v1alpha");
    assert.deepEqual(dolly.spec, { weight: 31.4, height: 0.5 });
    assert.match(dolly.metadata.resourceVersion, /^\d+$/);
    const list = await (await fx.call(NS)).json();
    assert.equal(list.kind, "LlamaList");
    assert.equal(list.items.length, 1);
    const all = await (await fx.call("/apis/farm.example.com/v1alpha/llamas")).json();
    assert.equal(all.items[0].metadata.namespace, "default");
    const missing = await fx.call(`${NS}/nope`);
    assert.equal(missing.status, 404);
    const status = await missing.json();
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "NotFound");
    assert.equal(status.message, 'llamas.farm.example.com "nope" not found');
    const unknown = await fx.call("/apis/farm.example.com/v1alpha/namespaces/default/cows");
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).kind, "Status");
  } finally {
    await fx.close();
  }
});

Deno.test("create, update with RV precondition, merge and JSON patch, delete", async () => {
  const fx = await startFarmFixture();
  try {
    const created = await fx.call(
      NS,
      json({
        apiVersion: "farm.example.com/v1alpha",
        kind: "Llama",
        metadata: { name: "kuzco", labels: { farm: "north" } },
        spec: { weight: 90, height: 1.7 },
      }),
    );
    assert.equal(created.status, 201);
    const kuzco = await created.json();
    assert.equal(kuzco.metadata.namespace, "default");
    assert.equal(kuzco.metadata.generation, 1);
    const again = await fx.call(NS, json({ metadata: { name: "kuzco" }, spec: { weight: 1, height: 1 } }));
    assert.equal(again.status, 409);
    assert.equal((await again.json()).reason, "AlreadyExists");

    const put = await fx.call(`${NS}/kuzco`, {
      ...json({ ...kuzco, spec: { weight: 95, height: 1.7 } }),
      method: "PUT",
    });
    assert.equal(put.status, 200);
    const updated = await put.json();
    assert.ok(Number(updated.metadata.resourceVersion) > Number(kuzco.metadata.resourceVersion));
    assert.equal(updated.metadata.generation, 2);
    assert.equal(updated.metadata.uid, kuzco.metadata.uid);
    const stale = await fx.call(`${NS}/kuzco`, {
      ...json({ ...kuzco, spec: { weight: 96, height: 1.7 } }),
      method: "PUT",
    });
    assert.equal(stale.status, 409);
    assert.equal((await stale.json()).reason, "Conflict");

    const merge = await fx.call(`${NS}/kuzco`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { height: 1.8 }, metadata: { labels: { farm: null } } }),
    });
    assert.equal(merge.status, 200);
    const merged = await merge.json();
    assert.deepEqual(merged.spec, { weight: 95, height: 1.8 });
    assert.equal(merged.metadata.labels?.farm, undefined);
    const jp = await fx.call(`${NS}/kuzco`, {
      method: "PATCH",
      headers: { "content-type": "application/json-patch+json" },
      body: JSON.stringify([{ op: "test", path: "/spec/weight", value: 95 }, {
        op: "replace",
        path: "/spec/weight",
        value: 80,
      }]),
    });
    assert.equal(jp.status, 200);
    assert.equal((await jp.json()).spec.weight, 80);
    const smp = await fx.call(`${NS}/kuzco`, {
      method: "PATCH",
      headers: { "content-type": "application/strategic-merge-patch+json" },
      body: "{}",
    });
    assert.equal(smp.status, 415);
    assert.equal((await smp.json()).reason, "UnsupportedMediaType");

    const apply = await fx.call(`${NS}/pacha?fieldManager=kubectl`, {
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml" },
      body:
        "apiVersion: farm.example.com/v1alpha\nkind: Llama\nmetadata:\n  name: pacha\nspec:\n  weight: 70\n  height: 1.6\n",
    });
    assert.equal(apply.status, 201);

    const del = await fx.call(`${NS}/kuzco`, {
      method: "DELETE",
      body: JSON.stringify({ propagationPolicy: "Background" }),
    });
    assert.equal(del.status, 200);
    assert.equal((await del.json()).metadata.name, "kuzco");
    assert.equal((await fx.call(`${NS}/kuzco`)).status, 404);
    const delAgain = await fx.call(`${NS}/kuzco`, { method: "DELETE" });
    assert.equal(delAgain.status, 404);
    await delAgain.body?.cancel();
  } finally {
    await fx.close();
  }
});

Deno.test("malformed bodies → 400, invalid llamas → 422 with field causes", async () => {
  const fx = await startFarmFixture();
  try {
    const broken = await fx.call(NS, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(broken.status, 400);
    assert.equal((await broken.json()).reason, "BadRequest");
    const array = await fx.call(NS, json([1, 2]));
    assert.equal(array.status, 400);
    await array.body?.cancel();
    const wrongKind = await fx.call(NS, json({ kind: "Cow", metadata: { name: "x" }, spec: { weight: 1, height: 1 } }));
    assert.equal(wrongKind.status, 400);
    await wrongKind.body?.cancel();
    const wrongNs = await fx.call(
      NS,
      json({ metadata: { name: "x", namespace: "other" }, spec: { weight: 1, height: 1 } }),
    );
    assert.equal(wrongNs.status, 400);
    await wrongNs.body?.cancel();

    const res = await fx.call(NS, json({ metadata: { name: "Bad_Name" }, spec: { weight: -1, height: "tall" } }));
    assert.equal(res.status, 422);
    const status = await res.json();
    assert.equal(status.reason, "Invalid");
    assert.equal(status.details.kind, "Llama");
    assert.deepEqual(
      status.details.causes.map((c: { field: string }) => c.field).sort(),
      ["metadata.name", "spec.height", "spec.weight"],
    );
    const noSpec = await fx.call(NS, json({ metadata: { name: "nospec" } }));
    assert.equal(noSpec.status, 422);
    assert.equal((await noSpec.json()).details.causes[0].field, "spec");
    const badPatch = await fx.call(`${NS}/dolly`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { weight: 0 } }),
    });
    assert.equal(badPatch.status, 422);
    await badPatch.body?.cancel();
    const badJsonPatch = await fx.call(`${NS}/dolly`, {
      method: "PATCH",
      headers: { "content-type": "application/json-patch+json" },
      body: JSON.stringify({ op: "add" }),
    });
    assert.equal(badJsonPatch.status, 400);
    await badJsonPatch.body?.cancel();
    const badSelector = await fx.call(`${NS}?labelSelector=${encodeURIComponent("a in (b")}`);
    assert.equal(badSelector.status, 400);
    await badSelector.body?.cancel();
  } finally {
    await fx.close();
  }
});

Deno.test("label and field selectors filter lists", async () => {
  const fx = await startFarmFixture();
  try {
    for (const [name, farm] of [["a", "north"], ["b", "south"], ["c", "north"]]) {
      const r = await fx.call(NS, json({ metadata: { name, labels: { farm } }, spec: { weight: 1, height: 1 } }));
      assert.equal(r.status, 201);
      await r.body?.cancel();
    }
    const north = await (await fx.call(`${NS}?labelSelector=farm%3Dnorth`)).json();
    assert.deepEqual(north.items.map((l: { metadata: { name: string } }) => l.metadata.name), ["a", "c"]);
    const notIn = await (await fx.call(`${NS}?labelSelector=${encodeURIComponent("farm notin (north)")}`)).json();
    assert.deepEqual(notIn.items.map((l: { metadata: { name: string } }) => l.metadata.name), ["b", "dolly"]);
    const byName = await (await fx.call(`${NS}?fieldSelector=metadata.name%3Ddolly`)).json();
    assert.deepEqual(byName.items.map((l: { metadata: { name: string } }) => l.metadata.name), ["dolly"]);
  } finally {
    await fx.close();
  }
});

Deno.test("Table output has NAME WEIGHT HEIGHT AGE and PartialObjectMetadata rows", async () => {
  const fx = await startFarmFixture();
  try {
    const table = await (await fx.call(NS, { headers: { accept: TABLE_ACCEPT } })).json();
    assert.equal(table.kind, "Table");
    assert.equal(table.apiVersion, "meta.k8s.io/v1");
    assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), ["Name", "Weight", "Height", "Age"]);
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ["dolly", 31.4, 0.5]);
    assert.equal(table.rows[0].object.kind, "PartialObjectMetadata");
    assert.equal(table.rows[0].object.metadata.namespace, "default");
    assert.match(table.metadata.resourceVersion, /^\d+$/);
    const one = await (await fx.call(`${NS}/dolly`, { headers: { accept: TABLE_ACCEPT } })).json();
    assert.equal(one.rows.length, 1);
  } finally {
    await fx.close();
  }
});

Deno.test("watch delivers ADDED, MODIFIED, DELETED from a list RV, and 410 for a too-old RV", async () => {
  const fx = await startFarmFixture();
  try {
    const list = await (await fx.call(NS)).json();
    const rv = list.metadata.resourceVersion;
    const res = await fx.call(`${NS}?watch=true&resourceVersion=${rv}`);
    assert.equal(res.status, 200);
    const created = await fx.call(NS, json({ metadata: { name: "w" }, spec: { weight: 2, height: 2 } }));
    await created.body?.cancel();
    const patched = await fx.call(`${NS}/w`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { weight: 3 } }),
    });
    await patched.body?.cancel();
    const deleted = await fx.call(`${NS}/w`, { method: "DELETE" });
    await deleted.body?.cancel();
    const events = await readWatch(res, (e) => e.length >= 3);
    assert.deepEqual(events.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED"]);
    assert.equal(nestedField(events[1].object, "spec", "weight"), 3);
    assert.equal(events[0].object.kind, "Llama");

    const old = await fx.call(`${NS}?watch=true&resourceVersion=1`);
    assert.equal(old.status, 200);
    const err = await readWatch(old, (e) => e.length >= 1);
    assert.equal(err[0].type, "ERROR");
    assert.equal(err[0].object.code, 410);
    assert.equal(err[0].object.reason, "Expired");
  } finally {
    await fx.close();
  }
});

Deno.test("watch without RV sends current state; sendInitialEvents ends with the initial-events-end bookmark", async () => {
  const fx = await startFarmFixture();
  try {
    const res = await fx.call(`${NS}?watch=true&fieldSelector=metadata.name%3Ddolly`);
    const first = await readWatch(res, (e) => e.length >= 1);
    assert.equal(first[0].type, "ADDED");
    assert.equal(first[0].object.metadata.name, "dolly");
    const wl = await fx.call(
      `${NS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    const events = await readWatch(wl, (e) => e.some((x) => x.type === "BOOKMARK"));
    assert.deepEqual(events.map((e) => e.type), ["ADDED", "BOOKMARK"]);
    assert.equal(events[1].object.metadata.annotations?.["k8s.io/initial-events-end"], "true");
    assert.equal(events[1].object.kind, "Llama");
    const tableWatch = await fx.call(`${NS}?watch=true`, { headers: { accept: TABLE_ACCEPT } });
    const rows = await readWatch(tableWatch, (e) => e.length >= 1);
    assert.equal(rows[0].object.kind, "Table");
    assert.equal((nestedField(rows[0].object, "columnDefinitions") as unknown[]).length, 4);
  } finally {
    await fx.close();
  }
});

Deno.test("farmpods mirror the pod cache: list, get, watch, read-only, 503 when unsynced", async () => {
  const fx = await startFarmFixture();
  const FP = "/apis/farm.example.com/v1alpha/namespaces/default/farmpods";
  try {
    fx.cluster.pods.put({
      metadata: { name: "web", namespace: "default", resourceVersion: "10" },
      spec: { containers: [{}, {}] },
    });
    const list = await (await fx.call(FP)).json();
    assert.equal(list.kind, "FarmPodList");
    assert.equal(list.items[0].metadata.name, "farm-web");
    assert.equal(list.items[0].spec.containers, 2);
    const one = await (await fx.call(`${FP}/farm-web`)).json();
    assert.equal(one.kind, "FarmPod");
    const missing = await fx.call(`${FP}/web`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const table = await (await fx.call(FP, { headers: { accept: TABLE_ACCEPT } })).json();
    assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), ["Name", "Containers", "Age"]);
    const post = await fx.call(FP, json({ metadata: { name: "x" } }));
    assert.equal(post.status, 405);
    await post.body?.cancel();

    const watch = await fx.call(`${FP}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    assert.equal(watch.status, 200);
    fx.cluster.pods.put({
      metadata: { name: "db", namespace: "default", resourceVersion: "11" },
      spec: { containers: [{}] },
    });
    fx.cluster.pods.delete("default", "web");
    const events = await readWatch(watch, (e) => e.length >= 2);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [["ADDED", "farm-db"], [
      "DELETED",
      "farm-web",
    ]]);

    fx.cluster.pods.synced = false;
    fx.cluster.pods.error = "list pods: 500 InternalError";
    const unavailable = await fx.call(FP);
    assert.equal(unavailable.status, 503);
    const status = await unavailable.json();
    assert.equal(status.kind, "Status");
    assert.match(status.message, /not synced/);
  } finally {
    await fx.close();
  }
});

Deno.test("allowWatchBookmarks: a BOOKMARK with the current resourceVersion every interval; timeoutSeconds ends the stream", async () => {
  const clock = new VirtualClock();
  const fx = await startFarmFixture({ clock, bookmarkIntervalMs: 1_000 });
  try {
    const rv = (await (await fx.call(NS)).json()).metadata.resourceVersion;
    const res = await fx.call(`${NS}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=5`);
    assert.equal(res.status, 200);
    await clock.advance(1_000);
    const created = await fx.call(NS, json({ metadata: { name: "b" }, spec: { weight: 1, height: 1 } }));
    const createdRV = (await created.json()).metadata.resourceVersion;
    await clock.advance(1_000);
    await clock.advance(3_000);
    const events = await readWatch(res, () => false);
    const kinds = events.map((e) => e.type);
    assert.deepEqual(kinds.slice(0, 3), ["BOOKMARK", "ADDED", "BOOKMARK"]);
    assert.equal(events[0].object.metadata.resourceVersion, rv);
    assert.equal(events[2].object.metadata.resourceVersion, createdRV);
    assert.equal(events[2].object.kind, "Llama");
  } finally {
    await fx.close();
  }
});

Deno.test("a label-selected watch sees a relabel out of the selector as DELETED and back in as ADDED", async () => {
  const fx = await startFarmFixture();
  const label = (farm: string) => ({
    method: "PATCH",
    headers: { "content-type": "application/merge-patch+json" },
    body: JSON.stringify({ metadata: { labels: { farm } } }),
  });
  try {
    const rv = (await (await fx.call(NS)).json()).metadata.resourceVersion;
    const res = await fx.call(`${NS}?watch=true&resourceVersion=${rv}&labelSelector=farm%3Dnorth`);
    for (const farm of ["north", "south", "north"]) {
      const r = await fx.call(`${NS}/dolly`, label(farm));
      assert.equal(r.status, 200);
      await r.body?.cancel();
    }
    const events = await readWatch(res, (e) => e.length >= 3);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.labels?.farm]), [
      ["ADDED", "north"],
      ["DELETED", "south"],
      ["ADDED", "north"],
    ]);
  } finally {
    await fx.close();
  }
});
