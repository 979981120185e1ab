// Two farm replicas sharing configmap storage on the fake API server: each follows the backing ConfigMap, so a
// write through one replica reaches the other's watches and lists without the other writing anything.
import assert from "node:assert/strict";
import { readWatch } from "./support/farm_fixture.ts";
import { eventually } from "../testing/eventually.ts";
import { LLAMAS, postLlama, startFarmOnFake } from "./support/farm_on_fake.ts";

Deno.test("configmap storage, two replicas: each one's watches see the other's creates, updates and deletes", async () => {
  const env = await startFarmOnFake({ replicas: 2, storage: "configmap" });
  const [a, b] = env.replicas;
  try {
    const start = (await (await b.call(LLAMAS)).json()).metadata.resourceVersion;
    const watchB = await b.call(`${LLAMAS}?watch=true&resourceVersion=${start}`);
    const seenByB = readWatch(watchB, (e) => e.some((x) => x.type === "DELETED"));

    const created = await a.call(LLAMAS, postLlama("kuzco"));
    assert.equal(created.status, 201);
    const kuzco = await created.json();
    const patched = await a.call(`${LLAMAS}/kuzco`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { weight: 42 } }),
    });
    assert.equal(patched.status, 200);
    await patched.body?.cancel();
    const onB = await eventually("kuzco on b", async () => {
      const res = await b.call(`${LLAMAS}/kuzco`);
      if (res.status !== 200) return await res.body?.cancel();
      const l = await res.json();
      return l.spec.weight === 42 && l;
    });
    assert.equal(onB.metadata.uid, kuzco.metadata.uid, "the same object, not a copy");
    (await a.call(`${LLAMAS}/kuzco`, { method: "DELETE" })).body?.cancel();

    const events = await seenByB;
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [
      ["ADDED", "kuzco"],
      ["MODIFIED", "kuzco"],
      ["DELETED", "kuzco"],
    ]);
    assert.equal((events[1].object as unknown as { spec: { weight: number } }).spec.weight, 42);

    // And the other way round: b writes, a's list shows it; both agree on the collection's resourceVersion.
    (await b.call(LLAMAS, postLlama("pacha"))).body?.cancel();
    await eventually("pacha on a", async () => {
      const res = await a.call(`${LLAMAS}/pacha`);
      await res.body?.cancel();
      return res.status === 200;
    });
    const [listA, listB] = await Promise.all([a.call(LLAMAS), b.call(LLAMAS)].map(async (r) => (await r).json()));
    assert.equal(listA.metadata.resourceVersion, listB.metadata.resourceVersion);
  } finally {
    await env.close();
  }
});
