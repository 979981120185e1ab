/**
 * The work queue under backlog (issue 26): 1 000 000 low-priority keys queued (an initial list or a resync) and one
 * worker.
 *
 * - `queue-backlog-fresh-p99`: a newly created object's first reconcile, on a VirtualClock: the worker takes a fixed
 *   virtual time per key, fresh keys arrive at a steady rate behind the backlog; from add to the end of their first
 *   reconcile, p99 in virtual ms (deterministic: the machine's load does not enter). Goal ≤ 1 000 ms.
 * - `queue-backoff-fresh-p99`: the same with 10 000 more keys that fail every reconcile (in error backoff under the
 *   controller's default rate limiter, retried as the controller retries them); peer = the same run without them
 *   ("the other keys' latency unchanged": ratio ≥ 1).
 * - `queue-backlog-enqueue`: real-clock µs per `add` of a new key at a depth of 1 000 000 (goal ≤ 10 µs), with the
 *   V8 heap per queued key in `extra`. CPU timing: read the `load1` beside it.
 *
 * Run: deno run --allow-all --v8-flags=--expose-gc bench/queue_backlog_bench.ts [--full]
 * @module
 */

import { RealClock, VirtualClock } from "../runtime/clock.ts";
import { WorkQueue } from "../runtime/queue/queue.ts";
import { defaultControllerRateLimiter } from "../runtime/queue/rate_limiter.ts";
import { fullMode, lowerIsBetter, median, percentile, recordResult, round } from "./result.ts";

const GOAL_FRESH_P99_MS = 1000;
const GOAL_ENQUEUE_US = 10;

interface Scenario {
  backlog: number;
  failing: number;
  workMs: number;
  freshEveryMs: number;
  freshCount: number;
}

interface Outcome {
  latenciesMs: number[];
  reconciles: number;
  retries: number;
  virtualSeconds: number;
}

/** One worker on a VirtualClock until every fresh key has had its first reconcile. */
async function simulate(s: Scenario): Promise<Outcome> {
  const clock = new VirtualClock(0);
  const start = clock.now();
  const queue = new WorkQueue({ clock, rateLimiter: defaultControllerRateLimiter(clock) });
  for (let i = 0; i < s.backlog; i++) queue.add(`backlog/obj-${i}`, "low");
  for (let i = 0; i < s.failing; i++) queue.addRateLimited(`failing/obj-${i}`); // each failed once already
  const addedAt = new Map<string, number>();
  for (let i = 0; i < s.freshCount; i++) {
    clock.setTimer(i * s.freshEveryMs, () => {
      const key = `fresh/obj-${i}`;
      addedAt.set(key, clock.now());
      queue.add(key, "high");
    });
  }
  const latenciesMs: number[] = [];
  let reconciles = 0;
  let retries = 0;
  while (latenciesMs.length < s.freshCount) {
    const key = queue.tryGet();
    if (key === undefined) {
      await clock.advance(1); // idle: let timers (fresh arrivals, retries) fire
      continue;
    }
    await clock.advance(s.workMs);
    reconciles++;
    const added = addedAt.get(key);
    if (added !== undefined) {
      latenciesMs.push(clock.now() - added);
      addedAt.delete(key);
    }
    if (key.startsWith("failing/")) {
      queue.addRateLimited(key);
      retries++;
    } else queue.forget(key);
    queue.done(key);
  }
  await queue.shutdown();
  return { latenciesMs, reconciles, retries, virtualSeconds: (clock.now() - start) / 1000 };
}

/** µs per add of a new key once `depth` keys are queued, and V8 heap bytes per queued key. */
function enqueueAtDepth(depth: number, measured: number): { addUs: number; fillUs: number; heapBytesPerKey: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  const keys = Array.from({ length: depth + measured }, (_, i) => `namespace-${i % 100}/object-${i}`);
  gc?.();
  const heapBefore = Deno.memoryUsage().heapUsed;
  const queue = new WorkQueue({ clock: new RealClock() });
  let t = performance.now();
  for (let i = 0; i < depth; i++) queue.add(keys[i], "low");
  const fillUs = ((performance.now() - t) * 1000) / depth;
  gc?.();
  const heapBytesPerKey = (Deno.memoryUsage().heapUsed - heapBefore) / depth;
  t = performance.now();
  for (let i = depth; i < depth + measured; i++) queue.add(keys[i], "high");
  const addUs = ((performance.now() - t) * 1000) / measured;
  void queue.shutdown();
  return { addUs, fillUs, heapBytesPerKey };
}

if (import.meta.main) {
  const full = fullMode();
  const backlog = 1_000_000;
  const scenario: Scenario = { backlog, failing: 0, workMs: 1, freshEveryMs: 50, freshCount: full ? 2000 : 600 };
  const alone = await simulate(scenario);
  const withFailing = await simulate({ ...scenario, failing: 10_000 });
  const p99 = percentile(alone.latenciesMs, 99);
  const p99Failing = percentile(withFailing.latenciesMs, 99);
  const params = { ...scenario, clock: "virtual", mode: full ? "full" : "quick" };
  await recordResult({
    name: "queue-backlog-fresh-p99",
    params,
    unit: "virtual ms",
    kubeop: p99,
    peer: GOAL_FRESH_P99_MS,
    peerName: "goal",
    ratio: lowerIsBetter(Math.max(p99, 1e-9), GOAL_FRESH_P99_MS),
    extra: {
      p50: percentile(alone.latenciesMs, 50),
      max: Math.max(...alone.latenciesMs),
      reconciles: alone.reconciles,
      virtualSeconds: round(alone.virtualSeconds),
    },
  });
  await recordResult({
    name: "queue-backoff-fresh-p99",
    params: { ...params, failing: 10_000, rateLimiter: "controller default (5 ms·2^n, 10/s burst 100)" },
    unit: "virtual ms",
    kubeop: p99Failing,
    peer: p99,
    peerName: "same run, no failing keys",
    ratio: lowerIsBetter(Math.max(p99Failing, 1e-9), p99),
    extra: {
      p50: percentile(withFailing.latenciesMs, 50),
      max: Math.max(...withFailing.latenciesMs),
      retries: withFailing.retries,
      reconciles: withFailing.reconciles,
    },
  });
  const reps = full ? 5 : 3;
  const samples = Array.from({ length: reps }, () => enqueueAtDepth(backlog, 100_000));
  const addUs = round(median(samples.map((s) => s.addUs)));
  await recordResult({
    name: "queue-backlog-enqueue",
    params: { depth: backlog, measured: 100_000, reps, clock: "real", note: "CPU timing on a shared, loaded box" },
    unit: "µs/add",
    kubeop: addUs,
    peer: GOAL_ENQUEUE_US,
    peerName: "goal",
    ratio: lowerIsBetter(addUs, GOAL_ENQUEUE_US),
    extra: {
      samples: samples.map((s) => round(s.addUs)),
      fillUsPerAdd: round(median(samples.map((s) => s.fillUs))),
      heapBytesPerQueuedKey: round(median(samples.map((s) => s.heapBytesPerKey))),
    },
  });
}
