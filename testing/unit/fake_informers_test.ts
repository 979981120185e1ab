import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "../apiserver/unstructured.ts";
import { FakeCluster } from "./fake_cluster.ts";

function pod(name: string, namespace: string, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { name, namespace, labels }, spec: { containers: [{ name: "c", image: "busybox" }] } };
}

Deno.test("informers select as the server lists (namespace, labels, fields) and hand out frozen served objects", () => {
  const cluster = new FakeCluster({ namespaces: ["a", "b"] });
  cluster.create(CoreTypes.Pod, pod("web", "a", { app: "web" }));
  cluster.create(CoreTypes.Pod, pod("db", "a", { app: "db" }));
  cluster.create(CoreTypes.Pod, pod("web", "b", { app: "web" }));
  cluster.patch(CoreTypes.Pod, "b/web", { status: { phase: "Running" } }, "status");
  const web = cluster.informers.get(CoreTypes.Pod, { labelSelector: "app=web" });
  assert.deepEqual(web.store.list().map((p) => `${p.metadata.namespace}/${p.metadata.name}`), ["a/web", "b/web"]);
  assert.equal(web.store.get("a/db"), undefined, "get applies the selector too");
  const inA = cluster.informers.get(CoreTypes.Pod, { namespace: "a" });
  assert.deepEqual(inA.store.list("b"), []);
  assert.equal(inA.store.get("b/web"), undefined);
  const running = cluster.informers.get(CoreTypes.Pod, { fieldSelector: "status.phase=Running" });
  assert.deepEqual(running.store.list().map((p) => p.metadata.namespace), ["b"]);
  const got = web.store.get("a/web")!;
  assert.equal(got.kind, "Pod");
  assert.equal(got.apiVersion, "v1");
  assert.ok(Object.isFrozen(got) && Object.isFrozen(got.metadata.labels));
  assert.throws(() => {
    got.metadata.labels!.app = "changed";
  }, TypeError);
  assert.equal(cluster.get(CoreTypes.Pod, "a/web")?.metadata.labels?.app, "web", "the store is untouched");
  assert.equal(cluster.informers.get(CoreTypes.Pod, { labelSelector: "app=web" }), web, "shared per options");
  const meta = cluster.informers.get(CoreTypes.Pod, { metadataOnly: true }).store.get("a/db")!;
  assert.equal(meta.kind, "PartialObjectMetadata");
  assert.equal(meta.spec, undefined);
});

Deno.test("handlers: existing objects replayed then synced; commits become added, modified, deleted (leaving the selector too)", () => {
  const cluster = new FakeCluster();
  cluster.create(CoreTypes.ConfigMap, { metadata: { name: "one", namespace: "default", labels: { keep: "yes" } } });
  const seen: string[] = [];
  const informer = cluster.informers.get(CoreTypes.ConfigMap, { labelSelector: "keep=yes" });
  const remove = informer.addHandler({
    added: (o) => seen.push(`added ${o.metadata.name}`),
    modified: (old, o) => seen.push(`modified ${old.data?.v ?? "-"}→${o.data?.v ?? "-"}`),
    deleted: (o) => seen.push(`deleted ${o.metadata.name}`),
    synced: () => seen.push("synced"),
  });
  cluster.create(CoreTypes.ConfigMap, { metadata: { name: "two", namespace: "default", labels: { keep: "yes" } } });
  cluster.create(CoreTypes.ConfigMap, { metadata: { name: "other", namespace: "default" } });
  cluster.patch(CoreTypes.ConfigMap, "default/one", { data: { v: "1" } });
  cluster.patch(CoreTypes.ConfigMap, "default/two", { metadata: { labels: { keep: null } } });
  cluster.delete(CoreTypes.ConfigMap, "default/one");
  remove();
  cluster.create(CoreTypes.ConfigMap, { metadata: { name: "late", namespace: "default", labels: { keep: "yes" } } });
  assert.deepEqual(seen, ["added one", "synced", "added two", "modified -→1", "deleted two", "deleted one"]);
});

Deno.test("the store is the runtime's whole reader surface: byIndex, keys, getByUid and size over the selected objects", () => {
  const cluster = new FakeCluster({ namespaces: ["a", "b"] });
  cluster.create(CoreTypes.Pod, pod("web", "a", { app: "web" }));
  cluster.create(CoreTypes.Pod, pod("db", "a", { app: "db" }));
  cluster.create(CoreTypes.Pod, pod("web", "b", { app: "web" }));
  const web = cluster.informers.get(CoreTypes.Pod, { labelSelector: "app=web" });
  assert.equal(web.store.size, 2);
  assert.deepEqual(web.store.keys().sort(), ["a/web", "b/web"]);
  assert.deepEqual(web.store.byIndex("namespace", "a").map((p) => p.metadata.name), ["web"]);
  assert.deepEqual(web.store.byIndex("label", "app=db"), [], "the selector applies to the indexes too");
  const uid = cluster.get(CoreTypes.Pod, "b/web")!.metadata.uid!;
  assert.equal(web.store.getByUid(uid)?.metadata.namespace, "b");
  assert.ok(Object.isFrozen(web.store.getByUid(uid)));
  assert.equal(web.store.getByUid(cluster.get(CoreTypes.Pod, "a/db")!.metadata.uid!), undefined);
});

Deno.test("indexes: the runtime store's built-ins and added ones, over what the informer selects, kept current", () => {
  const cluster = new FakeCluster({ namespaces: ["a", "b"] });
  cluster.create(CoreTypes.Pod, pod("web", "a", { app: "web" }));
  cluster.create(CoreTypes.Pod, pod("db", "a", { app: "db" }));
  cluster.create(CoreTypes.Pod, pod("web", "b", { app: "web" }));
  const pods = cluster.informers.get(CoreTypes.Pod, { namespace: "a" });
  const names = (objs: KubeObject[]) => objs.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
  assert.deepEqual(names(pods.store.byIndex!("label", "app=web")), ["a/web"], "built-in label index, in scope only");
  pods.addIndex!("by-name", (p) => [p.metadata.name!]);
  assert.deepEqual(names(pods.store.byIndex!("by-name", "db")), ["a/db"]);
  cluster.patch(CoreTypes.Pod, "a/db", { metadata: { labels: { app: "web" } } });
  assert.deepEqual(names(pods.store.byIndex!("label", "app=web")), ["a/db", "a/web"], "reads the current objects");
  assert.ok(pods.store.byIndex!("by-name", "web").every((p) => Object.isFrozen(p)));
  assert.throws(() => pods.addIndex!("by-name", () => []), /index "by-name" already exists/);
  assert.throws(() => pods.addIndex!("owner", () => []), /index "owner" already exists/);
  assert.throws(() => pods.store.byIndex!("nope", "x"), /no index "nope"/);
});
