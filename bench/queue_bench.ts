/**
 * Work-queue throughput: one op = add + get + done of a key, through the same async `get` workers use, over a
 * rotating set of keys so dedup and the single-flight bookkeeping are exercised. Goal ≥ 1 M ops/s; the peer is that
 * goal (no other TypeScript operator library has a keyed dedup queue to compare with).
 *
 * Run: deno run --allow-all bench/queue_bench.ts [--full]
 * @module
 */

import { RealClock } from "../runtime/clock.ts";
import { WorkQueue } from "../runtime/queue/queue.ts";
import { fullMode, higherIsBetter, median, recordResult, round } from "./result.ts";

const GOAL_OPS_PER_SEC = 1_000_000;

/** add N keys (one batch), then get+done each; repeated. Returns ops/s. */
async function run(ops: number, batch: number, keys: string[]): Promise<number> {
  const queue = new WorkQueue({ clock: new RealClock() });
  const start = performance.now();
  let i = 0;
  while (i < ops) {
    const n = Math.min(batch, ops - i);
    for (let j = 0; j < n; j++) queue.add(keys[(i + j) % keys.length]);
    for (let j = 0; j < n; j++) {
      const key = await queue.get();
      queue.done(key!);
    }
    i += n;
  }
  const seconds = (performance.now() - start) / 1000;
  await queue.shutdown();
  return ops / seconds;
}

if (import.meta.main) {
  const full = fullMode();
  const ops = full ? 5_000_000 : 500_000;
  const reps = full ? 9 : 5;
  const batch = 100;
  const keys = Array.from({ length: 10_000 }, (_, i) => `namespace-${i % 50}/object-${i}`);
  await run(100_000, batch, keys); // warm-up (JIT)
  const samples: number[] = [];
  for (let r = 0; r < reps; r++) samples.push(await run(ops, batch, keys));
  const kubeop = round(median(samples));
  await recordResult({
    name: "queue",
    params: { ops, reps, batch, distinctKeys: keys.length, get: "async", mode: full ? "full" : "quick" },
    unit: "ops/s",
    kubeop,
    peer: GOAL_OPS_PER_SEC,
    peerName: "goal",
    ratio: higherIsBetter(kubeop, GOAL_OPS_PER_SEC),
    extra: { samples: samples.map(round) },
  });
}
