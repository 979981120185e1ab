/**
 * Event → reconcile-start latency: a stub informer delivers `modified` events at a steady 1 000 events/s over 200
 * objects into a real {@link Controller} (real clock, 1 worker); each reconcile records how long ago the oldest
 * not-yet-served event for its key was delivered. Reports p99 (p50 in `extra`); the peer is the goal, p99 < 5 ms.
 *
 * Run: deno run --allow-all bench/event_latency_bench.ts [--full]
 * @module
 */

import type { KubeClient } from "../runtime/client/client.ts";
import { RealClock } from "../runtime/clock.ts";
import type { InformerHandler, InformerLike } from "../runtime/cache/cache.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { StoreWriter } from "../runtime/cache/store.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { type KubeObject, objectKey, type ResourceType } from "../runtime/types.ts";
import { fullMode, lowerIsBetter, median, percentile, recordResult, round } from "./result.ts";

const GOAL_P99_MS = 5;
const WidgetType: ResourceType = {
  group: "bench.kubeop.dev",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

/** An always-synced informer the benchmark drives by hand. */
class StubInformer implements InformerLike {
  readonly resource = WidgetType;
  readonly #items = new StoreWriter({ freeze: false });
  readonly handlers = new Set<InformerHandler>();
  readonly store = this.#items.reader;
  addHandler(h: InformerHandler): () => void {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }
  hasSynced(): boolean {
    return true;
  }
  waitForSync(): Promise<void> {
    return Promise.resolve();
  }
  modify(obj: KubeObject): void {
    const key = objectKey(obj);
    const old = this.#items.get(key) ?? obj;
    this.#items.remove(old);
    this.#items.upsert(obj);
    for (const h of this.handlers) h.modified?.(old, obj);
  }
}

/** Runs one measurement; returns per-event latencies in ms. */
async function measure(eventsPerSecond: number, durationMs: number, objects: number): Promise<number[]> {
  const informer = new StubInformer();
  const oldestPending = new Map<string, number>();
  const latencies: number[] = [];
  const controller = new Controller({
    name: "bench",
    for: WidgetType,
    reconcile: (ctx) => {
      const since = oldestPending.get(ctx.key);
      if (since !== undefined) {
        latencies.push(performance.now() - since);
        oldestPending.delete(ctx.key);
      }
      return Promise.resolve(done());
    },
    deps: {
      client: {} as KubeClient,
      informers: { get: <T extends KubeObject>() => informer as unknown as InformerLike<T> },
      recorder: { event() {} },
      clock: new RealClock(),
      metrics: new Metrics(),
    },
  });
  const ac = new AbortController();
  const running = controller.start(ac.signal);
  const start = performance.now();
  let sent = 0;
  let rv = 1;
  while (performance.now() - start < durationMs) {
    const due = Math.floor(((performance.now() - start) / 1000) * eventsPerSecond);
    for (; sent < due; sent++) {
      const name = `w-${sent % objects}`;
      const key = `bench/${name}`;
      if (!oldestPending.has(key)) oldestPending.set(key, performance.now());
      informer.modify({ metadata: { name, namespace: "bench", resourceVersion: String(++rv) } });
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await new Promise((r) => setTimeout(r, 20));
  ac.abort();
  await running;
  return latencies;
}

if (import.meta.main) {
  const full = fullMode();
  const rate = 1000;
  const durationMs = full ? 10_000 : 2_000;
  const reps = full ? 5 : 3;
  const objects = 200;
  await measure(rate, 300, objects); // warm-up
  const p99s: number[] = [];
  const p50s: number[] = [];
  let events = 0;
  for (let r = 0; r < reps; r++) {
    const lat = await measure(rate, durationMs, objects);
    events += lat.length;
    p99s.push(percentile(lat, 99));
    p50s.push(percentile(lat, 50));
  }
  const p99 = round(median(p99s));
  await recordResult({
    name: "event-latency-p99",
    params: { eventsPerSecond: rate, durationMs, reps, objects, workers: 1, mode: full ? "full" : "quick" },
    unit: "ms",
    kubeop: p99,
    peer: GOAL_P99_MS,
    peerName: "goal",
    ratio: lowerIsBetter(p99, GOAL_P99_MS),
    extra: { p50Ms: round(median(p50s)), p99Samples: p99s.map(round), measuredEvents: events },
  });
}
