/**
 * A controller under sharding (runtime/shard/shard_gate.ts): only keys whose uid lies in an active bucket are reconciled,
 * a bucket that becomes active has its cached keys queued, writes pass the bucket's fence and carry the dispatch
 * uid, and deletes are reconciled by the owner of the deleted uid's bucket.
 */
import assert from "node:assert/strict";
import { bucketOf, shardHash } from "../apimachinery/shard_selector.ts";
import { flushMicrotasks, type VirtualClock } from "../clock.ts";
import { done } from "../controller/controller.ts";
import { NotLeaderError } from "../client/errors.ts";
import { ShardGate } from "./shard_gate.ts";
import { harness, machine, MachineType, stubClient, until } from "../../testing/unit/controller_harness.ts";
import { LeaderFence } from "../leader/write_fence.ts";

/** A uid (`<prefix>-<n>`) whose bucket among 2 is `bucket`. */
function uidIn(bucket: number, prefix: string): string {
  for (let n = 0;; n++) if (bucketOf(shardHash(`${prefix}-${n}`), 2) === bucket) return `${prefix}-${n}`;
}

/** A gate over 2 buckets and an open fence per bucket on `clock`. */
function gateOn(clock: VirtualClock) {
  const gate = new ShardGate({ buckets: 2, clock });
  const fences = [0, 1].map((b) =>
    new LeaderFence({ clock, renewDeadlineMs: 10_000, lease: `ns/kubeop-bucket-${b}`, identity: "me" })
  );
  const gain = (b: number) => {
    fences[b].open(clock.nowMonotonic());
    gate.hold(b, fences[b]);
    gate.activate(b);
  };
  return { gate, fences, gain };
}

Deno.test("sharded: only keys whose uid is in an active bucket are reconciled; gaining a bucket queues its keys", async () => {
  let g!: ReturnType<typeof gateOn>;
  const h = harness(() => done(), undefined, undefined, { shards: (clock) => (g = gateOn(clock)).gate });
  const machines = h.registry.of(MachineType);
  machines.set(machine("a", "1", { uid: uidIn(0, "a") }));
  machines.set(machine("b", "1", { uid: uidIn(1, "b") }));
  g.gain(0);
  h.registry.syncAll();
  await until(() => h.calls.length === 1, h.clock, "the reconcile of ns/a");
  await flushMicrotasks();
  assert.deepEqual(h.calls.map((c) => c.key), ["ns/a"]);
  g.gain(1);
  await until(() => h.calls.length === 2, h.clock, "the reconcile of ns/b once bucket 1 is active");
  assert.equal(h.calls[1].key, "ns/b");
  await h.stop();
});

Deno.test("sharded: writes to the reconciled object carry its uid and stop when the bucket's fence closes", async () => {
  const patched: unknown[] = [];
  const deleted: unknown[] = [];
  const client = stubClient({
    patch: (_rt, _name, body) => (patched.push(body), Promise.resolve(machine("a"))),
    delete: (_rt, _name, opts) => (deleted.push(opts?.preconditions), Promise.resolve()),
  });
  let g!: ReturnType<typeof gateOn>;
  const errors: unknown[] = [];
  const uid = uidIn(0, "a");
  const h = harness(
    async (ctx) => {
      try {
        await ctx.client.patch(MachineType, "a", { status: { ok: true } }, { namespace: "ns", type: "merge" });
        await ctx.client.patch(MachineType, "a", [{ op: "remove", path: "/x" }], { namespace: "ns", type: "json" });
        await ctx.client.delete(MachineType, "a", { namespace: "ns" });
        g.fences[0].close(new Error("bucket 0 lost"));
        await ctx.client.patch(MachineType, "a", { status: { ok: false } }, { namespace: "ns", type: "merge" });
      } catch (err) {
        errors.push(err);
      }
      return done();
    },
    undefined,
    client,
    { shards: (clock) => (g = gateOn(clock)).gate },
  );
  h.registry.of(MachineType).set(machine("a", "1", { uid }));
  g.gain(0);
  h.registry.syncAll();
  await until(() => errors.length === 1, h.clock, "the fenced write");
  assert.deepEqual(patched, [
    { status: { ok: true }, metadata: { uid } },
    [{ op: "test", path: "/metadata/uid", value: uid }, { op: "remove", path: "/x" }],
  ]);
  assert.deepEqual(deleted, [{ uid }]);
  assert.ok(errors[0] instanceof NotLeaderError, String(errors[0]));
  await h.stop();
});

Deno.test("sharded: a delete is reconciled by the owner of the old uid; a recreate under another bucket's uid is not", async () => {
  let g!: ReturnType<typeof gateOn>;
  const h = harness(() => done(), undefined, undefined, { shards: (clock) => (g = gateOn(clock)).gate });
  const machines = h.registry.of(MachineType);
  const old = machine("a", "1", { uid: uidIn(0, "old") });
  machines.set(old);
  g.gain(0);
  h.registry.syncAll();
  await until(() => h.calls.length === 1, h.clock, "the first reconcile");
  machines.remove(old);
  await until(() => h.calls.length === 2, h.clock, "the reconcile of the delete");
  assert.equal(h.calls[1].object, undefined);
  machines.set(machine("a", "3", { uid: uidIn(1, "new") })); // same name, new uid in bucket 1 (not held here)
  for (let i = 0; i < 5; i++) await h.clock.advanceToNext();
  await flushMicrotasks();
  assert.equal(h.calls.length, 2, "the new uid belongs to another replica");
  await h.stop();
});

Deno.test("sharded: draining a bucket waits for its in-flight reconcile and admits nothing new meanwhile", async () => {
  let g!: ReturnType<typeof gateOn>;
  let release!: () => void;
  const h = harness(
    (ctx) => ctx.name === "a" ? new Promise((resolve) => release = () => resolve(done())) : done(),
    undefined,
    undefined,
    { shards: (clock) => (g = gateOn(clock)).gate, maxConcurrentReconciles: 2 },
  );
  const machines = h.registry.of(MachineType);
  machines.set(machine("a", "1", { uid: uidIn(0, "a") }));
  g.gain(0);
  h.registry.syncAll();
  await until(() => h.calls.length === 1, h.clock, "the slow reconcile");
  let drained: boolean | undefined;
  g.gate.drain(0, 60_000).then((d) => drained = d);
  machines.set(machine("c", "1", { uid: uidIn(0, "c") }));
  await flushMicrotasks();
  assert.equal(drained, undefined, "still in flight");
  assert.equal(h.calls.length, 1, "nothing new admitted while draining");
  release();
  await until(() => drained !== undefined, h.clock, "the drain");
  assert.equal(drained, true);
  await h.stop();
});
