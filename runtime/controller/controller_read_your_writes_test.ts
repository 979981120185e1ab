/**
 * Controller read-your-writes: after the controller's own write (or delete) the next reconcile of that key waits until
 * the cache shows it, bounded, with timeouts counted.
 */
import assert from "node:assert/strict";
import { flushMicrotasks } from "../clock.ts";
import { done } from "./controller.ts";
import { harness, machine, MachineType, stubClient, until } from "../../testing/unit/controller_harness.ts";

/**
 * Read-your-writes setup: Machine ns/a at resourceVersion 5 is listed and reconciled once (the reconcile that makes
 * the controller's own write); returns the Machine cache for the test to change next.
 */
async function firstReconcileOfA(h: ReturnType<typeof harness>) {
  const machines = h.registry.of(MachineType);
  machines.set(machine("a", "5"));
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  await flushMicrotasks();
  return machines;
}

Deno.test("the next reconcile waits until the cache shows the controller's own write", async () => {
  const seen: string[] = [];
  const client = stubClient({
    update: (_rt, obj) => Promise.resolve({ ...obj, metadata: { ...obj.metadata, resourceVersion: "10" } }),
  });
  let writes = 1;
  const h = harness(
    async (ctx) => {
      seen.push(ctx.object!.metadata.resourceVersion!);
      if (writes-- > 0) await ctx.client.update(MachineType, ctx.object!);
      return done();
    },
    undefined,
    client,
  );
  const machines = await firstReconcileOfA(h);
  // Something else triggers the key before our write reached the cache: the reconcile must wait.
  machines.set(machine("a", "9"));
  await flushMicrotasks();
  await h.clock.advance(1000);
  assert.equal(h.calls.length, 1, "waiting for RV ≥ 10");
  machines.set(machine("a", "10"));
  await until(() => h.calls.length >= 2);
  assert.deepEqual(seen.slice(0, 2), ["5", "10"], "the reconcile after our write saw it");
  assert.equal(await h.metrics.value("kubeop_read_your_writes_timeouts_total"), 0);
  await h.stop();
});

Deno.test("the read-your-writes wait is bounded and counts timeouts", async () => {
  const client = stubClient({
    patch: (_rt, name) => Promise.resolve({ metadata: { name, namespace: "ns", uid: "uid-a", resourceVersion: "99" } }),
  });
  let writes = 1;
  const h = harness(
    async (ctx) => {
      if (writes-- > 0) await ctx.client.patch(MachineType, "a", {}, { namespace: "ns", type: "merge" });
      return done();
    },
    undefined,
    client,
  );
  const machines = await firstReconcileOfA(h);
  machines.set(machine("a", "6"));
  await until(() => h.calls.length === 2, h.clock, "timeout then reconcile");
  assert.equal(h.clock.now(), 5000);
  assert.equal(await h.metrics.value("kubeop_read_your_writes_timeouts_total", { controller: "machine" }), 1);
  await h.stop();
});

Deno.test("a delete is settled by that uid's DELETED event", async () => {
  const client = stubClient({ delete: () => Promise.resolve() });
  let deletes = 1;
  const h = harness(
    async (ctx) => {
      if (deletes-- > 0) await ctx.client.delete(MachineType, "a", { namespace: "ns" });
      return done();
    },
    undefined,
    client,
  );
  const machines = await firstReconcileOfA(h);
  machines.set(machine("a", "6"));
  await h.clock.advance(100);
  assert.equal(h.calls.length, 1);
  machines.remove(machine("a", "6"));
  await until(() => h.calls.length >= 2);
  assert.equal(h.calls[1].object, undefined);
  await h.stop();
});
