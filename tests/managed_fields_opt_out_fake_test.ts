// KEP-5958 (`Accept: application/json;drop=metadata.managedFields`, kube-apiserver's ManagedFieldsOptOut gate, alpha
// in v1.38): the fake serves it behind the gate and ignores it without, as kube-apiserver does; the client asks for it
// on an informer's lists and watches, and falls back when a server answers 406.
import assert from "node:assert/strict";
import { Informer } from "../runtime/cache/cache.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";
import { WatchReader } from "../testing/apiserver/watch_reader.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const DROP = "application/json;drop=metadata.managedFields";
const quiet = { debug() {}, info() {}, warn() {} };

async function serverWithConfigMaps(managedFieldsOptOut: boolean) {
  const server = await startFakeApiServer({
    anonymousAdmin: true,
    featureGates: { ManagedFieldsOptOut: managedFieldsOptOut },
  });
  const client = new KubeClient({ config: { server: server.url } });
  for (const name of ["a", "b"]) {
    await client.create(CoreTypes.ConfigMap, { metadata: { name, namespace: "default" }, data: { k: name } });
  }
  return { server, client, [Symbol.asyncDispose]: async () => (client.close(), await server.stop()) };
}

const hasManagedFields = (o: KubeObject) =>
  Array.isArray(o.metadata.managedFields) && o.metadata.managedFields.length > 0;

async function getJson(url: string, accept?: string) {
  const res = await fetch(url, { headers: accept ? { accept } : {} });
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test("fake with ManagedFieldsOptOut: get, list and watch leave managedFields out only for drop=metadata.managedFields", async () => {
  await using env = await serverWithConfigMaps(true);
  const url = `${env.server.url}${CM}`;
  assert.ok(hasManagedFields(await getJson(`${url}/a`)), "stored objects keep them");
  assert.ok(!hasManagedFields(await getJson(`${url}/a`, DROP)));
  assert.ok((await getJson(url)).items.every(hasManagedFields));
  const dropped = await getJson(url, `${DROP},*/*;drop=metadata.managedFields`);
  assert.equal(dropped.items.length, 2);
  assert.ok(dropped.items.every((o: KubeObject) => !hasManagedFields(o) && o.metadata.name && o.data));
  // Several targets joined by '+', unknown ones ignored; metadata-only lists too.
  assert.ok((await getJson(url, "application/json;drop=spec.x+metadata.managedFields")).items.every(
    (o: KubeObject) => !hasManagedFields(o),
  ));
  const partial = await getJson(
    url,
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1;" +
      "drop=metadata.managedFields",
  );
  assert.equal(partial.kind, "PartialObjectMetadataList");
  assert.ok(partial.items.every((o: KubeObject) => !hasManagedFields(o)));
  // Two watchers of one collection, with and without the parameter: each gets its own form.
  const [plain, drop] = await Promise.all(
    [undefined, DROP].map(async (accept) => {
      const res = await fetch(`${url}?watch=true`, { headers: accept ? { accept } : {} });
      assert.equal(res.status, 200);
      return new WatchReader(res.body!);
    }),
  );
  assert.ok((await plain.take(2)).every((e) => hasManagedFields(e.object)));
  assert.ok((await drop.take(2)).every((e) => !hasManagedFields(e.object)));
  await env.client.create(CoreTypes.ConfigMap, { metadata: { name: "c", namespace: "default" }, data: { k: "c" } });
  assert.ok(hasManagedFields((await plain.next())!.object));
  assert.ok(!hasManagedFields((await drop.next())!.object));
  await plain.cancel();
  await drop.cancel();
});

Deno.test("fake without the gate ignores drop=metadata.managedFields, as kube-apiserver v1.37 does", async () => {
  await using env = await serverWithConfigMaps(false);
  const list = await getJson(`${env.server.url}${CM}`, DROP);
  assert.ok(list.items.every(hasManagedFields));
  const page = await env.client.list(CoreTypes.ConfigMap, { namespace: "default", dropManagedFields: true });
  assert.ok(page.items.every(hasManagedFields), "the client's option asks; the server decides");
});

Deno.test("an informer asks the server to drop managedFields: fewer bytes where served, the same cache either way", async () => {
  const received: Record<string, number> = {};
  const cached: Record<string, KubeObject[]> = {};
  for (const gate of [false, true]) {
    await using env = await serverWithConfigMaps(gate);
    const informer = new Informer({
      client: env.client,
      resource: CoreTypes.ConfigMap,
      namespace: "default",
      logger: quiet,
    });
    const ctrl = new AbortController();
    const running = informer.start(ctrl.signal);
    await informer.waitForSync();
    await env.client.create(CoreTypes.ConfigMap, { metadata: { name: "c", namespace: "default" }, data: { k: "c" } });
    await eventually("the watch delivers c", () => informer.store.get("default/c"));
    received[String(gate)] = informer.receivedBytes();
    cached[String(gate)] = informer.store.list().map((o) => ({ ...o, metadata: { name: o.metadata.name } }));
    assert.ok(informer.store.list().every((o) => !hasManagedFields(o)), "the transform drops them where not served");
    ctrl.abort();
    await running;
  }
  assert.deepEqual(cached.true, cached.false);
  assert.ok(received.true < received.false, `bytes with the gate ${received.true} < without ${received.false}`);
});

Deno.test("a server answering 406 to the drop parameter is asked again without it, and not asked with it again", async () => {
  const accepts: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const accept = req.headers.get("accept") ?? "";
    accepts.push(accept);
    if (accept.includes("drop=")) {
      return Response.json(
        { kind: "Status", apiVersion: "v1", status: "Failure", code: 406, reason: "NotAcceptable" },
        {
          status: 406,
        },
      );
    }
    const url = new URL(req.url);
    if (url.searchParams.get("watch") === "true") {
      return new Response(JSON.stringify({ type: "ADDED", object: { metadata: { name: "w" } } }) + "\n");
    }
    return Response.json({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] });
  });
  const client = new KubeClient({ config: { server: `http://127.0.0.1:${server.addr.port}` } });
  try {
    const list = await client.list(CoreTypes.ConfigMap, { namespace: "default", dropManagedFields: true });
    assert.equal(list.kind, "ConfigMapList");
    const events: string[] = [];
    await client.watchStream(CoreTypes.ConfigMap, { namespace: "default", dropManagedFields: true }, (e) => {
      events.push(e.object.metadata.name!);
    });
    assert.deepEqual(events, ["w"]);
    assert.deepEqual(accepts, [DROP, "application/json", "application/json"]);
  } finally {
    client.close();
    await server.shutdown();
  }
});
