// farmpod watches with k8s.io/apiserver semantics, over HTTP with the fake API server behind the farm server:
// resuming from a resourceVersion replays the changes after it; one older than the window is an in-stream 410.
import assert from "node:assert/strict";
import { readWatch } from "./support/farm_fixture.ts";
import { eventually } from "../testing/eventually.ts";
import { CoreTypes } from "../runtime/types.ts";
import { startFarmOnFake } from "./support/farm_on_fake.ts";

const FARMPODS = "/apis/farm.example.com/v1alpha/namespaces/default/farmpods";
const pod = (name: string) => ({
  metadata: { name, namespace: "default" },
  spec: { containers: [{ name: "a", image: "x" }] },
});

Deno.test("farmpod watch: resumes from a resourceVersion (replay), 410 Expired when older than the window, 400 when malformed", async () => {
  const env = await startFarmOnFake({ before: async (client) => void await client.create(CoreTypes.Pod, pod("old")) });
  const [fx] = env.replicas;
  try {
    const listed = await eventually("farm-old listed", async () => {
      const list = await (await fx.call(FARMPODS)).json();
      return list.items?.some((p: { metadata: { name: string } }) => p.metadata.name === "farm-old") && list;
    });
    const startRV = Number(listed.metadata.resourceVersion);
    assert.ok(startRV > 1);

    await env.client.create(CoreTypes.Pod, pod("web"));
    await env.client.patch(CoreTypes.Pod, "web", { metadata: { labels: { tier: "front" } } }, {
      namespace: "default",
      type: "merge",
    });
    await eventually("farm saw the relabel", async () => {
      const fp = await fx.call(`${FARMPODS}/farm-web`);
      return fp.status === 200 ? (await fp.json()).metadata.labels?.tier === "front" : await fp.body?.cancel();
    });

    // Resuming from the first list replays what happened since, in order, then goes on live.
    const resumed = await fx.call(`${FARMPODS}?watch=true&resourceVersion=${startRV}`);
    const replayed = await readWatch(resumed, (e) => e.length >= 2);
    assert.deepEqual(replayed.map((e) => [e.type, e.object.metadata.name]), [
      ["ADDED", "farm-web"],
      ["MODIFIED", "farm-web"],
    ]);
    const selected = await fx.call(`${FARMPODS}?watch=true&resourceVersion=${startRV}&labelSelector=tier%3Dfront`);
    const live = readWatch(selected, (e) => e.some((x) => x.type === "DELETED"));
    await env.client.delete(CoreTypes.Pod, "web", { namespace: "default" });
    const events = await live;
    // The relabel, then the Pod's deletion as kube-apiserver stores it: deletionTimestamp set (MODIFIED), then DELETED.
    assert.deepEqual(
      events.map((e) => e.type),
      ["MODIFIED", "MODIFIED", "DELETED"],
      "the selector applies to the replay",
    );

    // Older than anything the farm server recorded: an in-stream ERROR 410 Expired, as kube-apiserver answers.
    const old = await fx.call(`${FARMPODS}?watch=true&resourceVersion=1`);
    assert.equal(old.status, 200);
    const [error] = await readWatch(old, (e) => e.length >= 1);
    assert.equal(error.type, "ERROR");
    assert.equal((error.object as unknown as { code: number }).code, 410);
    assert.equal((error.object as unknown as { reason: string }).reason, "Expired");

    const bad = await fx.call(`${FARMPODS}?watch=true&resourceVersion=abc`);
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
  } finally {
    await env.close();
  }
});
