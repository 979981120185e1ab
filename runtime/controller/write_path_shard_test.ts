/**
 * The sharded reconcile's write chain (fence, then uid guard): the bucket fence is checked inside KubeClient right
 * before the request is sent (after throttling), and writes to the reconciled object carry the dispatch uid as a
 * precondition the API server enforces.
 */
import assert from "node:assert/strict";
import { KubeClient } from "../client/client.ts";
import { VirtualClock } from "../clock.ts";
import { NotLeaderError } from "../client/errors.ts";
import type { ControllerClient } from "./controller_client.ts";
import { fenceWrites, type WriteFence } from "../leader/write_fence.ts";
import { guardUid, WriteChainClient } from "./write_path.ts";
import { CoreTypes, type KubeObject } from "../types.ts";
import { LeaderFence } from "../leader/write_fence.ts";

/** What a sharded reconcile writes through: the bucket fence, then the uid guard. */
function shardFencedClient(
  o: {
    client: ControllerClient;
    fence: WriteFence;
    forType: typeof CoreTypes.ConfigMap;
    namespace: string;
    name: string;
    uid: string;
  },
): ControllerClient {
  return new WriteChainClient(o.client, [fenceWrites(o.fence), guardUid(o)]);
}

function recordingServer() {
  const received: { method: string; path: string; body: unknown }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = await req.text();
    received.push({ method: req.method, path: new URL(req.url).pathname, body: text ? JSON.parse(text) : undefined });
    return Response.json({ metadata: { name: "a", namespace: "ns", uid: "u1", resourceVersion: "2" } });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, received, close: () => server.shutdown() };
}

Deno.test("shard write chain: writes pass the bucket fence inside KubeClient and carry the reconciled uid", async () => {
  const clock = new VirtualClock();
  const fence = new LeaderFence({ clock, renewDeadlineMs: 1_000, lease: "ns/kubeop-bucket-3", identity: "me" });
  fence.open(clock.nowMonotonic());
  const server = recordingServer();
  const kube = new KubeClient({ config: { server: server.url } });
  const client = shardFencedClient({
    client: kube,
    fence,
    forType: CoreTypes.ConfigMap,
    namespace: "ns",
    name: "a",
    uid: "u1",
  });
  try {
    const cm: KubeObject = { metadata: { name: "a", namespace: "ns", resourceVersion: "1" } };
    await client.update(CoreTypes.ConfigMap, cm);
    await client.patch(CoreTypes.ConfigMap, "a", { data: { k: "v" } }, { namespace: "ns", type: "merge" });
    await client.patch(CoreTypes.ConfigMap, "other", { data: { k: "v" } }, { namespace: "ns", type: "merge" });
    assert.deepEqual(received(server).map((r) => (r.body as KubeObject).metadata?.uid), ["u1", "u1", undefined]);

    // Passing the wrapper's own check is not enough: KubeClient checks again right before the send.
    const passOnce = { n: 0 };
    const flaky = {
      check: (call: Parameters<LeaderFence["check"]>[0]) => {
        if (passOnce.n++ > 0) fence.check(call);
      },
      get signal() {
        return fence.signal;
      },
    };
    const late = shardFencedClient({
      client: kube,
      fence: flaky,
      forType: CoreTypes.ConfigMap,
      namespace: "ns",
      name: "a",
      uid: "u1",
    });
    await clock.advance(1_000); // the renew deadline passed
    const refused = await late.delete(CoreTypes.ConfigMap, "a", { namespace: "ns" }).then(() => undefined, (e) => e);
    assert.ok(refused instanceof NotLeaderError, `expected NotLeaderError, got ${refused}`);
    assert.equal(server.received.length, 3, "the refused write never reached the server");
    // Reads pass no fence check, but the chain binds them to the fence's signal: the term ended, so they are aborted.
    const aborted = await client.get(CoreTypes.ConfigMap, "a", { namespace: "ns" }).then(() => undefined, (e) => e);
    assert.ok(aborted instanceof NotLeaderError, `expected the term's NotLeaderError, got ${aborted}`);
    await kube.get(CoreTypes.ConfigMap, "a", { namespace: "ns" }); // the client itself is not fenced
    assert.equal(server.received.length, 4);
  } finally {
    kube.close();
    await server.close();
  }
});

function received(server: ReturnType<typeof recordingServer>) {
  return server.received.filter((r) => r.method !== "GET");
}

Deno.test("shard write chain: a write naming another uid of the reconciled object is refused locally", async () => {
  const clock = new VirtualClock();
  const fence = new LeaderFence({ clock, renewDeadlineMs: 1_000, lease: "ns/kubeop-bucket-0", identity: "me" });
  fence.open(0);
  const calls: unknown[] = [];
  const inner = {
    update: (_rt: unknown, obj: unknown) => (calls.push(obj), Promise.resolve(obj)),
  } as unknown as ControllerClient;
  const client = shardFencedClient({
    client: inner,
    fence,
    forType: CoreTypes.ConfigMap,
    namespace: "ns",
    name: "a",
    uid: "old",
  });
  const recreated: KubeObject = { metadata: { name: "a", namespace: "ns", uid: "new", resourceVersion: "5" } };
  await assert.rejects(client.update(CoreTypes.ConfigMap, recreated), /Precondition failed: UID in precondition: old/);
  assert.equal(calls.length, 0);
});
