import assert from "node:assert/strict";
import { randomInt, seededRandom } from "../../runtime/random.ts";
import { ObjectStore } from "./object_storage.ts";
import type { Unstructured } from "./unstructured.ts";

const cm = (name: string, ns = "default") => ({ metadata: { name, namespace: ns, uid: `uid-${ns}-${name}` } });

Deno.test("every commit gets the next resourceVersion and history replays per bucket after an RV", () => {
  const store = new ObjectStore();
  const start = store.rv;
  store.put("/configmaps", cm("a"));
  store.put("/secrets", cm("s"));
  store.put("/configmaps", cm("b"));
  store.remove("/configmaps", "default", "a");
  assert.equal(store.rv, start + 4);
  const since = store.since("/configmaps", start + 1);
  assert.ok(Array.isArray(since));
  assert.deepEqual(since.map((e) => `${e.type} ${e.object.metadata.name} ${e.rv}`), [
    `ADDED b ${start + 3}`,
    `DELETED a ${start + 4}`,
  ]);
  assert.equal(store.since("/configmaps", store.rv + 1), "too-large");
});

Deno.test("history beyond the compaction window expires; compact() expires everything older than now", () => {
  const store = new ObjectStore({ compactionWindow: 2 });
  const start = store.rv;
  for (const n of ["a", "b", "c"]) store.put("/configmaps", cm(n));
  assert.equal(store.since("/configmaps", start), "expired");
  assert.ok(Array.isArray(store.since("/configmaps", start + 1)));
  store.compact();
  assert.equal(store.since("/configmaps", start + 2), "expired");
  assert.deepEqual(store.since("/configmaps", store.rv), []);
});

Deno.test("listing is sorted by namespace then name and continues after a position", () => {
  const store = new ObjectStore();
  for (const [n, ns] of [["b", "x"], ["a", "y"], ["c", "x"], ["a", "x"]]) store.put("/configmaps", cm(n, ns));
  const key = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace}/${o.metadata.name}`;
  assert.deepEqual(store.list("/configmaps").map(key), ["x/a", "x/b", "x/c", "y/a"]);
  assert.deepEqual([...store.iterate("/configmaps", undefined, { ns: "x", name: "b" })].map(key), ["x/c", "y/a"]);
  assert.equal(store.count("/configmaps", "x"), 3);
});

Deno.test("owner and uid indexes follow puts and removals", () => {
  const store = new ObjectStore();
  store.put("/configmaps", cm("owner"));
  const child = {
    metadata: {
      name: "c",
      namespace: "default",
      uid: "c1",
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "uid-default-owner" }],
    },
  };
  store.put("/secrets", child);
  assert.deepEqual(store.dependentsOf("uid-default-owner"), [{
    storageKey: "/secrets",
    namespace: "default",
    name: "c",
  }]);
  assert.equal(store.byUid("c1")?.name, "c");
  store.remove("/secrets", "default", "c");
  assert.deepEqual(store.dependentsOf("uid-default-owner"), []);
  assert.equal(store.byUid("c1"), undefined);
});

Deno.test("iterateAt rebuilds every past state of a bucket (random puts and removes), after a position too", () => {
  const store = new ObjectStore();
  const random = seededRandom(7);
  const rand = (n: number) => randomInt(random, n);
  const view = (objs: Iterable<{ metadata: { namespace?: string; name?: string; resourceVersion?: string } }>) =>
    [...objs].map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);
  const past: Array<[number, string[]]> = [];
  for (let i = 0; i < 300; i++) {
    const ns = ["a", "b", "c"][rand(3)];
    const name = `o${rand(12)}`;
    if (rand(4) === 0) store.remove("/configmaps", ns, name);
    else store.put(rand(5) === 0 ? "/secrets" : "/configmaps", cm(name, ns));
    past.push([store.rv, view(store.iterate("/configmaps"))]);
  }
  for (const [rv, expected] of past) {
    const all = store.iterateAt("/configmaps", undefined, rv);
    assert.notEqual(all, "expired");
    assert.deepEqual(view(all as Iterable<never>), expected, `state at ${rv}`);
    const inB = store.iterateAt("/configmaps", "b", rv);
    assert.deepEqual(view(inB as Iterable<never>), expected.filter((k) => k.startsWith("b/")));
    const after = store.iterateAt("/configmaps", undefined, rv, { ns: "b", name: "o5" });
    assert.deepEqual(view(after as Iterable<never>), expected.filter((k) => k.split("@")[0] > "b/o5"));
  }
  store.compact();
  assert.equal(store.iterateAt("/configmaps", undefined, past[0][0]), "expired");
});

Deno.test("countAfter counts objects after a position, now and as of an earlier RV, and agrees with iterateAt", () => {
  const store = new ObjectStore();
  for (const ns of ["a", "b"]) for (const n of ["x1", "x2", "x3", "x4"]) store.put("/configmaps", cm(n, ns));
  const then = store.rv;
  const names = (it: Iterable<{ metadata: { namespace?: string; name?: string } }> | "expired") =>
    it === "expired" ? [] : [...it].map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  assert.equal(store.countAfter("/configmaps", undefined), 8);
  assert.equal(store.countAfter("/configmaps", undefined, { ns: "a", name: "x2" }), 6);
  assert.equal(store.countAfter("/configmaps", "b", { ns: "a", name: "x2" }), 4);
  assert.equal(store.countAfter("/configmaps", "a", { ns: "a", name: "x2" }), 2);
  assert.equal(store.countAfter("/configmaps", "a", { ns: "b", name: "" }), 0);
  assert.equal(store.countAfter("/configmaps", undefined, { ns: "a", name: "x2" }, then), 6, "unchanged bucket");
  store.remove("/configmaps", "a", "x3");
  store.put("/configmaps", cm("x25", "a"));
  store.put("/configmaps", { ...cm("x4", "b"), data: { v: "2" } } as never);
  store.remove("/configmaps", "b", "x1");
  store.put("/configmaps", cm("x0", "b"));
  const after = { ns: "a", name: "x2" };
  assert.equal(store.countAfter("/configmaps", undefined, after), 6);
  assert.equal(store.countAfter("/configmaps", undefined, after, then), 6);
  assert.equal(
    store.countAfter("/configmaps", "b", after, then),
    names(store.iterateAt("/configmaps", "b", then, after)).length,
  );
  for (const pos of [undefined, after, { ns: "a", name: "x3" }, { ns: "b", name: "x0" }]) {
    for (const ns of [undefined, "a", "b"]) {
      assert.equal(
        store.countAfter("/configmaps", ns, pos, then),
        names(store.iterateAt("/configmaps", ns, then, pos)).length,
        `ns ${ns} after ${JSON.stringify(pos)}`,
      );
      assert.equal(store.countAfter("/configmaps", ns, pos), [...store.iterate("/configmaps", ns, pos)].length);
    }
  }
  assert.deepEqual(names(store.iterateAt("/configmaps", "a", then, after)), ["a/x3", "a/x4"]);
});

Deno.test("put stores a record of the object: equal as JSON, the caller's object stays the caller's, parts never aliased", () => {
  const store = new ObjectStore();
  const labels = { app: "web" };
  const a: Unstructured = {
    metadata: { ...cm("a").metadata, labels },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels } } },
    data: { k: "a", u: "é😀" },
  };
  const ev = store.put("/configmaps", a);
  assert.deepEqual(ev.object, a, "equal, resourceVersion included");
  assert.equal(a.metadata.resourceVersion, ev.object.metadata.resourceVersion);
  assert.equal(store.get("/configmaps", "default", "a"), ev.object, "a recent parse is shared between readers");
  assert.ok(!/[\u0080-\uffff]/.test(ev.record.json), "stored as ASCII JSON");
  (a.data as { k: string }).k = "changed by the caller";
  labels.app = "changed by the caller";
  const stored = store.get("/configmaps", "default", "a")!;
  assert.equal((stored.data as { k: string }).k, "a");
  assert.deepEqual(ev.record.labels, { app: "web" });
  const spec = stored.spec as { selector: { matchLabels: object }; template: { metadata: { labels: object } } };
  assert.notEqual(spec.selector.matchLabels, spec.template.metadata.labels, "equal parts of one object stay apart");
  assert.notEqual(stored.metadata.labels, spec.template.metadata.labels);
  assert.deepEqual(store.byUid("uid-default-a"), { storageKey: "/configmaps", namespace: "default", name: "a" });
});

Deno.test("recent parses are bounded: an object read long ago is parsed again (equal, not the same value)", () => {
  const store = new ObjectStore();
  store.put("/configmaps", cm("first"));
  const first = store.get("/configmaps", "default", "first");
  for (let i = 0; i < 2000; i++) store.get("/configmaps", "default", "first") && store.put("/configmaps", cm(`x${i}`));
  for (let i = 0; i < 2000; i++) store.get("/configmaps", "default", `x${i}`);
  const again = store.get("/configmaps", "default", "first");
  assert.deepEqual(again, first);
  assert.notEqual(again, first);
});
