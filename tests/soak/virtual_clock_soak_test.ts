/**
 * The compressed soak (issue 25 item 3): days of one leader's life on a VirtualClock, in seconds. A Manager with
 * leader election and a ConfigMap controller runs against the fake API server (real HTTP, real watches); the server,
 * the client and the manager share the clock, so Lease renewals, the server's bookmarks (every 60 s) and watch
 * timeouts (300–600 s), the watches' read-idle deadlines and every backoff run on virtual time. Each virtual hour the
 * harness changes ConfigMaps behind the operator's back and, in turn, cuts every watch, compacts (410 on resume) or
 * fails a few Lease updates with 500. The test steps the clock one retry period at a time and, before the next step,
 * waits (on a condition, in real time) until the renewal that period asked for was answered.
 *
 * Checked: the Lease was renewed every period and never changed hands (no lost leadership, no transition); bookmarks
 * reached the quiet watch (at each hour's end, its last frame is minutes old, not an hour) and watch windows kept
 * ending (the server's timeout or the window's deadline) without costing a relist beyond the compactions'; the
 * clock's pending timers stay bounded (nothing leaks a timer per renewal, bookmark, backoff or relist); every hour
 * the informer's cache equals the server's objects and every change was reconciled.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../runtime/clock.ts";
import { Controller, done } from "../../runtime/controller/controller.ts";
import { kubeLeaseLock, type LeaseLock } from "../../runtime/leader/lease_lock.ts";
import { Manager } from "../../runtime/manager/manager.ts";
import { Metrics } from "../../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { startFakeEnv } from "../support/fake_env.ts";

const DAYS = 2;
const RETRY_SECONDS = 20;
const HOUR_MS = 3_600_000;
const NS = "default";

/** The Lease lock on the server, counting the elector's finished attempts (a settled write, or a failed read). */
function countingLock(inner: LeaseLock): { lock: LeaseLock; attempts: () => number } {
  let attempts = 0;
  const count = () => void attempts++;
  return {
    lock: {
      get: (signal) => inner.get(signal).catch((err) => (count(), Promise.reject(err))),
      create: (spec, signal) => inner.create(spec, signal).finally(count),
      update: (spec, rv, signal) => inner.update(spec, rv, signal).finally(count),
      describe: () => inner.describe(),
    },
    attempts: () => attempts,
  };
}

/** The Lease's renewTime in epoch ms (0: no Lease yet). */
function renewTimeMs(lease: KubeObject | undefined): number {
  const t = (lease?.spec as { renewTime?: string } | undefined)?.renewTime;
  return t ? Date.parse(t) : 0;
}

Deno.test(`${DAYS} virtual days: the Lease renewed every period, watch windows end without relists, no leaked timer, caches consistent`, async () => {
  const clock = new VirtualClock();
  const { server, client, close } = await startFakeEnv({ clock });
  const metrics = new Metrics();
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    let reconciles = 0;
    const controller = new Controller({
      name: "soak-configmaps",
      for: CoreTypes.ConfigMap,
      forOptions: { namespace: NS },
      reconcile: async (ctx) => {
        reconciles++;
        const v = (ctx.object?.data as Record<string, string> | undefined)?.v;
        if (!ctx.object || v === undefined || ctx.object.metadata.annotations?.seen === v) return done();
        await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { metadata: { annotations: { seen: v } } }, {
          namespace: NS,
          type: "merge",
        });
        return done();
      },
    });
    const { lock, attempts } = countingLock(kubeLeaseLock({ client, namespace: NS, name: "kubeop-soak" }));
    const manager = new Manager({
      client,
      clock,
      metrics,
      namespaces: [NS],
      leaderElection: {
        id: "kubeop-soak",
        namespace: NS,
        identity: "soak-1",
        lock,
        // One failed renewal (the injected 500) leaves a gap of two periods: within the deadline.
        leaseSeconds: 3 * RETRY_SECONDS,
        renewDeadlineSeconds: 2.5 * RETRY_SECONDS,
        retryPeriodSeconds: RETRY_SECONDS,
        random: () => 0.5,
      },
    }).add(controller);
    let exited: string | undefined;
    running = manager.start(stop.signal).then(() => void (exited = "resolved"), (err) => void (exited = String(err)));
    const lease = () => server.store.get(CoreTypes.Lease, "kubeop-soak", { namespace: NS }) as KubeObject;
    await eventually("soak-1 to lead", async () => {
      await clock.advance(0);
      return manager.isLeader();
    });

    const cache = () => manager.informers.get(CoreTypes.ConfigMap, { namespace: NS }).store;
    let changed = 0;
    const churn = (hour: number) => {
      for (let i = 0; i < 5; i++) {
        const name = `cm-${(hour * 3 + i) % 12}`;
        let current: KubeObject | undefined;
        try {
          current = server.store.get(CoreTypes.ConfigMap, name, { namespace: NS }) as KubeObject;
        } catch {
          current = undefined;
        }
        if (!current) {
          server.store.create(CoreTypes.ConfigMap, { metadata: { name }, data: { v: `${hour}` } }, { namespace: NS });
        } else if (i === 4) server.store.delete(CoreTypes.ConfigMap, name, { namespace: NS });
        else server.store.update(CoreTypes.ConfigMap, { ...current, data: { v: `${hour}` } }, { namespace: NS, name });
        changed++;
      }
    };
    const faults = [
      () => server.faults.dropWatches(),
      () => {
        server.faults.compact();
        server.faults.dropWatches();
      },
      () => server.faults.inject({ verb: "update", resource: "leases.coordination.k8s.io", code: 500, times: 1 }),
    ];

    const timers: number[] = [];
    const holder = (lease().spec as { holderIdentity?: string }).holderIdentity;
    const transitions = (lease().spec as { leaseTransitions?: number }).leaseTransitions ?? 0;
    let maxRenewGapMs = 0;
    let maxSilenceMs = 0;
    let lastRenew = renewTimeMs(lease());
    const steps = (DAYS * 24 * HOUR_MS) / (RETRY_SECONDS * 1000);
    const stepsPerHour = HOUR_MS / (RETRY_SECONDS * 1000);
    for (let step = 1; step <= steps; step++) {
      if (step % stepsPerHour === 1) {
        const hour = Math.floor(step / stepsPerHour);
        churn(hour);
        faults[hour % faults.length]();
      }
      const before = attempts();
      await clock.advance(RETRY_SECONDS * 1000);
      // The renewal this period asked for went over HTTP and was answered (renewed, or refused by the injected 500).
      await eventually(`renewal at step ${step}`, () => attempts() > before, { timeoutMs: 30_000, intervalMs: 1 });
      await clock.advance(0); // the elector takes the answer in
      const renewed = renewTimeMs(lease());
      if (renewed > lastRenew) {
        maxRenewGapMs = Math.max(maxRenewGapMs, renewed - lastRenew);
        lastRenew = renewed;
      }
      assert.ok(manager.isLeader(), `leadership lost at virtual hour ${(step / stepsPerHour).toFixed(2)}`);
      if (step % stepsPerHour === 0) {
        timers.push(clock.pendingTimers);
        // The last churn was an hour ago: only the server's bookmarks (every 60 s) keep the watch's last frame recent.
        const scraped = /^kubeop_watch_last_event_seconds\{resource="configmaps"\} (\S+)$/m.exec(
          await metrics.render(),
        );
        maxSilenceMs = Math.max(maxSilenceMs, scraped ? Number(scraped[1]) * 1000 : Infinity);
        // Every change reconciled and the cache equal to the server (keys and resourceVersions).
        await eventually(`hour ${step / stepsPerHour}: cache consistent and every change reconciled`, async () => {
          await clock.advance(10); // lets queue rate-limit delays, if any, pass
          const want = server.store.list(CoreTypes.ConfigMap, { namespace: NS }).items as KubeObject[];
          const have = new Map(cache().list().map((o) => [o.metadata.name!, o.metadata.resourceVersion]));
          return want.length === have.size &&
            want.every((o) =>
              have.get(o.metadata.name!) === o.metadata.resourceVersion &&
              o.metadata.annotations?.seen === (o.data as Record<string, string>).v
            );
        }, { timeoutMs: 30_000, intervalMs: 5 });
      }
    }

    assert.equal(exited, undefined, "the manager exited");
    assert.equal((lease().spec as { holderIdentity?: string }).holderIdentity, holder);
    assert.equal((lease().spec as { leaseTransitions?: number }).leaseTransitions ?? 0, transitions);
    // Two periods (and the hourly checks' few ms) after a refused renewal; never the renew deadline.
    assert.ok(maxRenewGapMs < 2.5 * RETRY_SECONDS * 1000, `a renewal gap of ${maxRenewGapMs} ms`);
    // A bookmark a minute, and one stream timing out before its next bookmark: at most about two minutes of silence.
    assert.ok(maxSilenceMs <= 150_000, `a watch went ${maxSilenceMs} ms without an event or bookmark`);
    // Watch windows are 15–22 s with a deadline 5 s past them (dead connections noticed within 27 s). The clock moves
    // 20 s per step while the stream's end travels over real HTTP, so a window often meets its deadline here before its
    // end is read: either way the watch resumes from its last resourceVersion. What must hold: windows keep ending (no
    // watch stuck for good) and none of those ends costs a relist — only the compactions' 410s do.
    const ended = await metrics.value("kubeop_watch_restarts_total", { reason: "stream-ended" }) +
      await metrics.value("kubeop_watch_restarts_total", { reason: "idle-deadline" });
    assert.ok(ended >= DAYS * 24 * 60, `only ${ended} watch windows ended in ${DAYS} days`);
    const compactions = Math.floor((DAYS * 24 + faults.length - 2) / faults.length);
    const relists = await metrics.value("kubeop_watch_relists_total");
    assert.ok(relists <= 2 * compactions + 2, `${relists} relists for ${compactions} compactions`);
    const firstDay = Math.max(...timers.slice(0, 24));
    assert.ok(Math.max(...timers) <= firstDay + 5, `pending timers per hour: ${timers.join(",")}`);
    assert.ok(changed >= DAYS * 24 * 5 && reconciles > 0);
  } finally {
    stop.abort();
    await clock.advance(0);
    await running;
    await close();
  }
});
