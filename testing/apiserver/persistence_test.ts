import assert from "node:assert/strict";
import { loadSnapshot, Persistence } from "./persistence.ts";
import { ObjectStore, type StoreSnapshot } from "./object_storage.ts";
import { StoredRecord } from "./stored_record.ts";
import type { Unstructured } from "./unstructured.ts";

const obj = (name: string, data = "v") => ({ metadata: { name, namespace: "ns" }, data: { k: data } });

/** A loaded snapshot with every record parsed (what the store would serve). */
function parsed(snapshot: StoreSnapshot | undefined) {
  if (!snapshot) return undefined;
  const buckets: Record<string, Unstructured[]> = {};
  for (const [key, items] of Object.entries(snapshot.buckets)) {
    buckets[key] = items.map((o) => o instanceof StoredRecord ? o.parse() : o);
  }
  return { rv: snapshot.rv, buckets };
}

Deno.test("loadSnapshot reads the earlier format: one JSON snapshot and JSON log lines replayed over it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const snapshot = { rv: 10, buckets: { "/configmaps": [obj("a"), obj("b")], "/secrets": [obj("s")] } };
    Deno.writeTextFileSync(`${dir}/snapshot.json`, JSON.stringify(snapshot));
    assert.deepEqual(parsed(loadSnapshot(dir)), snapshot, "no log: the snapshot");
    const log = [
      { rv: 11, k: "/configmaps", t: "MODIFIED", o: obj("a", "changed") },
      { rv: 12, k: "/configmaps", t: "DELETED", o: obj("b") },
      { rv: 13, k: "/pods", t: "ADDED", o: obj("p") },
    ];
    Deno.writeTextFileSync(`${dir}/objects.log`, log.map((l) => JSON.stringify(l)).join("\n") + "\n{torn");
    assert.deepEqual(parsed(loadSnapshot(dir)), {
      rv: 13,
      buckets: { "/configmaps": [obj("a", "changed")], "/secrets": [obj("s")], "/pods": [obj("p")] },
    });
    Deno.removeSync(`${dir}/snapshot.json`);
    assert.deepEqual(parsed(loadSnapshot(dir)), {
      rv: 13,
      buckets: { "/configmaps": [obj("a", "changed")], "/pods": [obj("p")] },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("persistence: the log and the snapshot bring back every object, index and resourceVersion", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new ObjectStore();
    const persistence = new Persistence(dir, store);
    const owner = { metadata: { name: "o", namespace: "ns", uid: "u-o", labels: { app: "é" } }, data: { k: "ü😀" } };
    store.put("/configmaps", owner);
    store.put("/configmaps", obj("gone"));
    store.remove("/configmaps", "ns", "gone");
    const child = {
      metadata: {
        name: "c",
        namespace: "ns",
        uid: "u-c",
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", uid: "u-o", name: "o" }],
      },
    };
    store.put("/secrets", child);
    const check = (loaded: StoreSnapshot | undefined, how: string) => {
      const again = new ObjectStore({ snapshot: loaded });
      assert.equal(again.rv, store.rv, how);
      assert.deepEqual(again.list("/configmaps"), [owner], how);
      assert.deepEqual(again.list("/secrets"), [child], how);
      assert.deepEqual(again.dependentsOf("u-o"), [{ storageKey: "/secrets", namespace: "ns", name: "c" }], how);
      assert.equal(again.byUid("u-c")?.name, "c", how);
    };
    check(loadSnapshot(dir), "from the log (a crash)");
    persistence.close();
    assert.equal(Deno.readTextFileSync(`${dir}/objects.log`), "");
    assert.ok(!/[\u0080-\uffff]/.test(Deno.readTextFileSync(`${dir}/snapshot.json`)), "the snapshot is ASCII");
    check(loadSnapshot(dir), "from the snapshot (a clean stop)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("persistence: a torn last log line is cut off before appending, so later writes are read back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = new ObjectStore();
    const before = new Persistence(dir, first);
    first.put("/configmaps", obj("a"));
    // A crash in the middle of an append: half a line at the end of the log.
    const log = Deno.readTextFileSync(`${dir}/objects.log`);
    Deno.writeTextFileSync(`${dir}/objects.log`, log + log.slice(0, log.length >> 1));
    const second = new ObjectStore({ snapshot: loadSnapshot(dir) });
    const after = new Persistence(dir, second); // the restart: appends from here on (then crashes again)
    second.put("/configmaps", obj("b"));
    assert.deepEqual(parsed(loadSnapshot(dir))?.buckets["/configmaps"].map((o) => o.metadata.name), ["a", "b"]);
    after.discard();
    before.discard();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("persistence: a log read in pieces brings back lines across piece ends and a line longer than a piece", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new ObjectStore();
    const persistence = new Persistence(dir, store);
    // ~3 MiB objects cross the 8 MiB read pieces at arbitrary points; one of 17 MiB is longer than two pieces.
    const sizes = [3, 3, 3, 17, 3, 1].map((mib, i) => ({ name: `cm-${i}`, data: `${i}`.repeat(mib << 20) }));
    for (const { name, data } of sizes) store.put("/configmaps", obj(name, data));
    const loaded = parsed(loadSnapshot(dir))?.buckets["/configmaps"] ?? [];
    assert.deepEqual(
      loaded.map((o) => [o.metadata.name, (o.data as { k: string }).k.length]),
      sizes.map((s) => [s.name, s.data.length]),
    );
    assert.ok(loaded.every((o, i) => (o.data as { k: string }).k === sizes[i].data));
    persistence.discard();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
