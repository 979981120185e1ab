/**
 * Issue 11 item 1 over HTTP: a leader whose Lease renewals stall must not write once its renew deadline has passed —
 * neither a reconcile's write nor an Event: they are refused in the process and the fake API server never sees them.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { kubeLeaseLock } from "../runtime/leader/lease_lock.ts";
import { LeadershipLostError, Manager } from "../runtime/manager/manager.ts";
import { CoreTypes } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";
import { startFakeEnv } from "./support/fake_env.ts";
import { partitionableLock, shortLeaseElection } from "./support/partitioned_lease_lock.ts";

Deno.test("a leader whose renewals stalled writes nothing after its renew deadline: the server records no write", async () => {
  const { server, client, close } = await startFakeEnv();
  const clock = new VirtualClock(); // the manager's: the Lease timings move only when the test advances it
  try {
    const { lock, partition } = partitionableLock(
      kubeLeaseLock({ client, namespace: "default", name: "kubeop" }),
      "hang",
    );
    let entered = false;
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => openGate = resolve);
    let outcome: unknown;
    const controller = new Controller({
      name: "configmaps",
      for: CoreTypes.ConfigMap,
      reconcile: async (ctx) => {
        if (ctx.name !== "target") return done();
        entered = true;
        await gate; // resumes after the renew deadline, as a process resumed from SIGSTOP would
        try {
          await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { metadata: { annotations: { late: "write" } } }, {
            namespace: ctx.namespace,
            type: "merge",
          });
          outcome = "written";
        } catch (err) {
          outcome = err;
        }
        ctx.recorder.event(ctx.object!, { type: "Normal", reason: "Late", action: "Test", note: "after the deadline" });
        return done();
      },
    });
    const manager = new Manager({
      client,
      clock,
      namespaces: ["default"],
      leaderElection: { ...shortLeaseElection("replica-1", lock), exitOnLostLeadership: true },
    }).add(controller);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    let finished = false;
    const result = running.then(() => "resolved", (err) => err).finally(() => finished = true);

    await eventually("replica-1 to lead", () => manager.isLeader());
    await client.create(CoreTypes.ConfigMap, { metadata: { name: "target", namespace: "default" } });
    await eventually("the reconcile of target to start", () => entered);
    const before = server.store.get(CoreTypes.ConfigMap, "target", { namespace: "default" });

    partition(true); // renewals hang from now on
    for (let ms = 0; manager.isLeader(); ms += 100) {
      assert.ok(ms <= 15_000, "leadership should end within the renew deadline");
      await clock.advance(100);
    }
    openGate();
    await eventually("the late write attempt", () => outcome !== undefined);
    assert.notEqual(outcome, "written", "the deposed leader's write went out");
    assert.equal((outcome as Error).name, "NotLeaderError", String(outcome));

    const after = server.store.get(CoreTypes.ConfigMap, "target", { namespace: "default" });
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, "the server recorded no write");
    assert.equal(after.metadata.annotations?.late, undefined);

    for (let i = 0; i < 100 && !finished; i++) await clock.advance(500); // the lost-leadership grace, then stop
    assert.ok((await result) instanceof LeadershipLostError);
    const events = server.store.list(CoreTypes.Event, { namespace: "default" }).items;
    assert.deepEqual(events.filter((e) => e.reason === "Late"), [], "the Event recorder's write was fenced too");
  } finally {
    await close();
  }
});
