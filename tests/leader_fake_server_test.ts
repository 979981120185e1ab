import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client/client.ts";
import { isAlreadyExists, isConflict } from "../runtime/client/errors.ts";
import { type LeaderElectionOutcome, LeaderElector } from "../runtime/leader/leader.ts";
import { kubeLeaseLock, type LeaseObject } from "../runtime/leader/lease_lock.ts";
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

Deno.test("watchForRelease over HTTP: a standby with a 30 s retry period takes a released Lease without polling", async () => {
  const { config, close } = await startFakeEnv();
  const clients: KubeClient[] = [];
  try {
    const elector = (identity: string) => {
      const client = new KubeClient({ config });
      clients.push(client);
      // A poll would come 30–66 s after the release; `eventually` gives up after 10 s, so only the watch can pass.
      return new LeaderElector({
        lock: kubeLeaseLock({ client, namespace: "default", name: "handover" }),
        identity,
        leaseSeconds: 120,
        renewDeadlineSeconds: 90,
        retryPeriodSeconds: 30,
        watchForRelease: true,
      });
    };
    const a = elector("a");
    const stopA = new AbortController();
    const doneA = a.run(stopA.signal);
    await eventually("a to lead", () => a.isLeader());
    const b = elector("b");
    const stopB = new AbortController();
    const doneB = b.run(stopB.signal);
    await eventually("b to observe a", () => b.observedLeader === "a");

    stopA.abort();
    assert.equal(await doneA, "released");
    await eventually("b to lead after the release", () => b.isLeader());
    stopB.abort();
    assert.equal(await doneB, "released");
  } finally {
    for (const c of clients) c.close();
    await close();
  }
});

Deno.test("kubeLeaseLock.watch streams the Lease: as it is, each change, and its deletion", async () => {
  const { config, close } = await startFakeEnv();
  const client = new KubeClient({ config });
  try {
    const lock = kubeLeaseLock({ client, namespace: "default", name: "watched" });
    const created = await lock.create({ holderIdentity: "a" });
    const seen: (string | undefined)[] = [];
    const stop = new AbortController();
    const watching = lock.watch!(stop.signal, (record) => seen.push(record ? record.spec.holderIdentity : undefined));
    await eventually("the current Lease", () => seen.length === 1);
    await lock.update({ holderIdentity: "" }, created.rv);
    await eventually("the release", () => seen.length === 2);
    await client.delete(CoreTypes.Lease, "watched", { namespace: "default" });
    await eventually("the deletion", () => seen.length === 3);
    assert.deepEqual(seen, ["a", "", undefined]);
    stop.abort();
    await watching;
  } finally {
    client.close();
    await close();
  }
});
