/**
 * Issue 25 item 1 over HTTP: a leader cut off from the API server past its renew deadline neither exits nor writes;
 * once the server answers again it leads again, and its controller (started anew, on the caches it kept) reconciles
 * what changed meanwhile. One reconcile of a key at a time throughout.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { kubeLeaseLock } from "../runtime/leader/lease_lock.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { CoreTypes } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";
import { startFakeEnv } from "./support/fake_env.ts";
import { partitionableLock, shortLeaseElection } from "./support/partitioned_lease_lock.ts";

Deno.test("a deposed leader stays up, writes nothing, leads again and reconciles what changed meanwhile", async () => {
  const { server, client, close } = await startFakeEnv();
  const clock = new VirtualClock(); // the manager's: Lease timings move only when the test advances it
  try {
    const { lock, partition } = partitionableLock(
      kubeLeaseLock({ client, namespace: "default", name: "kubeop" }),
      "refuse",
    );
    const reconciled: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const controller = new Controller({
      name: "configmaps",
      for: CoreTypes.ConfigMap,
      forOptions: { namespace: "default" },
      maxConcurrentReconciles: 4,
      reconcile: async (ctx) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          if (!ctx.object || ctx.object.metadata.annotations?.seen) return done();
          await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { metadata: { annotations: { seen: "yes" } } }, {
            namespace: ctx.namespace,
            type: "merge",
          });
          reconciled.push(ctx.name);
          return done();
        } finally {
          inFlight--;
        }
      },
    });
    const manager = new Manager({
      client,
      clock,
      namespaces: ["default"],
      leaderElection: shortLeaseElection("replica-1", lock),
    }).add(controller);
    const stop = new AbortController();
    let settled: string | undefined;
    const running = manager.start(stop.signal).then(() => settled = "resolved", (err) => settled = String(err));

    await eventually("replica-1 to lead", () => manager.isLeader());
    await client.create(CoreTypes.ConfigMap, { metadata: { name: "before", namespace: "default" } });
    await eventually("before to be reconciled", () => reconciled.includes("before"));

    partition(true);
    for (let ms = 0; manager.isLeader(); ms += 100) {
      assert.ok(ms <= 15_000, "leadership should end within the renew deadline");
      await clock.advance(100);
    }
    await client.create(CoreTypes.ConfigMap, { metadata: { name: "during", namespace: "default" } });
    const cached = () => manager.informers.get(CoreTypes.ConfigMap, { namespace: "default" }).store;
    await eventually("the cache (kept warm) to see during", () => cached().get("default/during") !== undefined);
    assert.equal(settled, undefined, "the manager exited on a lost Lease");
    assert.ok(!reconciled.includes("during"), "a replica that is not leader reconciled");
    const during = server.store.get(CoreTypes.ConfigMap, "during", { namespace: "default" });
    assert.equal(during.metadata.annotations?.seen, undefined, "a replica that is not leader wrote");

    partition(false);
    await eventually("replica-1 to lead again once the Lease answers", async () => {
      await clock.advance(500); // the retry period passes on the manager's clock; the Lease calls go over HTTP
      return manager.isLeader();
    });
    await eventually("during to be reconciled in the new term", () => reconciled.includes("during"));
    assert.equal(
      server.store.get(CoreTypes.ConfigMap, "during", { namespace: "default" }).metadata.annotations?.seen,
      "yes",
    );
    assert.equal(reconciled.filter((n) => n === "before").length, 1, "before was reconciled again to no effect");
    assert.ok(maxInFlight <= 4);

    stop.abort();
    await clock.advance(0);
    await running;
    assert.equal(settled, "resolved");
  } finally {
    await close();
  }
});
