import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client.ts";
import { isAlreadyExists, isConflict } from "../runtime/errors.ts";
import { type LeaderElectionOutcome, LeaderElector } from "../runtime/leader.ts";
import { kubeLeaseLock, type LeaseObject } from "../runtime/lease_lock.ts";
import { CoreTypes } from "../runtime/types.ts";
import { startFakeEnv } from "./support/fake_env.ts";
import { eventually } from "../testing/eventually.ts";

Deno.test("two electors on a real Lease: one leads, the other takes over after release", async () => {
  const { server, config, close } = await startFakeEnv();
  const clients: KubeClient[] = [];
  try {
    const lease = () => server.store.get(CoreTypes.Lease, "kubeop", { namespace: "default" }) as LeaseObject;
    const leading = new Set<string>();
    const violations: string[] = [];
    const candidates = ["a", "b"].map((identity) => {
      const client = new KubeClient({ config });
      clients.push(client);
      const stop = new AbortController();
      const elector = new LeaderElector({
        lock: kubeLeaseLock({ client, namespace: "default", name: "kubeop" }),
        identity,
        // Short timings keep the test quick; the safety argument is the same as with 15/10/2.
        leaseSeconds: 6,
        renewDeadlineSeconds: 4,
        retryPeriodSeconds: 0.25,
        onStartedLeading: () => {
          if (leading.size > 0) violations.push(`${identity} started while ${[...leading]} lead`);
          leading.add(identity);
        },
        onStoppedLeading: () => leading.delete(identity),
      });
      return { identity, elector, stop, done: undefined as Promise<LeaderElectionOutcome> | undefined };
    });
    const [a, b] = candidates;
    a.done = a.elector.run(a.stop.signal);
    await eventually("a to lead", () => a.elector.isLeader());
    b.done = b.elector.run(b.stop.signal);
    await eventually("b to observe a", () => b.elector.observedLeader === "a");

    const held = lease();
    assert.equal(held.spec?.holderIdentity, "a");
    assert.equal(held.spec?.leaseDurationSeconds, 6);
    assert.match(held.spec?.renewTime ?? "", /\.\d{6}Z$/);
    const firstRenew = held.spec?.renewTime;
    await eventually("a renewal", () => lease().spec?.renewTime !== firstRenew);
    assert.equal(b.elector.isLeader(), false);

    // A stale update (an old resourceVersion) is refused by the server: the lock's precondition is real.
    const lock = kubeLeaseLock({ client: clients[1], namespace: "default", name: "kubeop" });
    await assert.rejects(() => lock.update({ holderIdentity: "intruder" }, held.metadata.resourceVersion!), isConflict);
    await assert.rejects(() => lock.create({ holderIdentity: "intruder" }), isAlreadyExists);

    a.stop.abort();
    assert.equal(await a.done, "released");
    await eventually("b to take over", () => b.elector.isLeader());
    const after = lease();
    assert.equal(after.spec?.holderIdentity, "b");
    assert.equal(after.spec?.leaseTransitions, 1);

    b.stop.abort();
    assert.equal(await b.done, "released");
    assert.equal(lease().spec?.holderIdentity, "");
    assert.deepEqual(violations, []);
  } finally {
    clients.forEach((c) => c.close());
    await close();
  }
});
