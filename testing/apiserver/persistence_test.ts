import assert from "node:assert/strict";
import { loadSnapshot } from "./persistence.ts";

const obj = (name: string, data = "v") => ({ metadata: { name, namespace: "ns" }, data: { k: data } });

Deno.test("loadSnapshot: a clean stop's snapshot as written; the log replayed over the buckets it touches", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const snapshot = { rv: 10, buckets: { "/configmaps": [obj("a"), obj("b")], "/secrets": [obj("s")] } };
    Deno.writeTextFileSync(`${dir}/snapshot.json`, JSON.stringify(snapshot));
    assert.deepEqual(loadSnapshot(dir), snapshot, "no log: the snapshot");
    const log = [
      { rv: 11, k: "/configmaps", t: "MODIFIED", o: obj("a", "changed") },
      { rv: 12, k: "/configmaps", t: "DELETED", o: obj("b") },
      { rv: 13, k: "/pods", t: "ADDED", o: obj("p") },
    ];
    Deno.writeTextFileSync(`${dir}/objects.log`, log.map((l) => JSON.stringify(l)).join("\n") + "\n{torn");
    assert.deepEqual(loadSnapshot(dir), {
      rv: 13,
      buckets: { "/configmaps": [obj("a", "changed")], "/secrets": [obj("s")], "/pods": [obj("p")] },
    });
    Deno.removeSync(`${dir}/snapshot.json`);
    assert.deepEqual(loadSnapshot(dir), {
      rv: 13,
      buckets: { "/configmaps": [obj("a", "changed")], "/pods": [obj("p")] },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
