import assert from "node:assert/strict";
import { DEFAULT_BOUNDS, type SoakSample, summarize } from "./summary.ts";

const MiB = 1024 * 1024;
const bounds = { ...DEFAULT_BOUNDS, warmupMs: 10 * 60_000 };

/** A sample every minute for `minutes`, RSS from `rssMiB(minute)`, fds from `fds(minute)`. */
function samples(minutes: number, rssMiB: (m: number) => number, fds: (m: number) => number = () => 40): SoakSample[] {
  return Array.from({ length: minutes }, (_, i) => ({
    time: new Date(i * 60_000).toISOString(),
    elapsedMs: (i + 1) * 60_000,
    check: i + 1,
    objects: {},
    lost: 0,
    missedEvents: 0,
    settleMs: 1_000,
    orphans: 0,
    rssBytes: rssMiB(i + 1) * MiB,
    fds: fds(i + 1),
    sockets: fds(i + 1) - 20,
    changes: i * 100,
    faults: {},
    operatorExits: 0,
  }));
}

Deno.test("flat memory after a warm-up climb passes; the warm-up is left out of the slope", () => {
  // Climbs 100 → 150 MiB in the first 10 minutes, then a GC sawtooth of ±4 MiB around 150 for 50 minutes.
  const s = summarize("fake", 3_600_000, samples(60, (m) => m <= 10 ? 100 + 5 * m : 150 + (m % 3 - 1) * 4), bounds);
  assert.deepEqual(s.failures, []);
  assert.ok(Math.abs(s.rssSlopeMiBPerHour!) < 2, `slope ${s.rssSlopeMiBPerHour}`);
  assert.deepEqual(s.notJudged, []);
});

Deno.test("a leak of 1 MiB a minute fails the RSS bound", () => {
  const s = summarize("real", 3_600_000, samples(60, (m) => 120 + m), bounds);
  assert.equal(s.rssSlopeMiBPerHour, 60);
  assert.deepEqual(s.failures, ["RSS slope 60 MiB/h > 16 MiB/h"]);
});

Deno.test("fds that keep growing fail; the RSS slope of a short run is not judged", () => {
  const s = summarize("fake", 20 * 60_000, samples(20, () => 130, (m) => 40 + 5 * m), bounds);
  assert.deepEqual(s.failures, ["fds grew 90 → 140 (> +32)", "sockets grew 70 → 120 (> +32)"]);
  assert.deepEqual(s.fds, { first: 90, last: 140, max: 140 });
  assert.equal(s.notJudged.length, 1, "an 11-minute post-warm-up window is too short for the RSS slope");
});

Deno.test("lost objects, missed events and operator exits fail the soak", () => {
  const xs = samples(3, () => 100);
  xs[1] = { ...xs[1], lost: 2, missedEvents: 1 };
  xs[2] = { ...xs[2], operatorExits: 1 };
  const s = summarize("fake", 180_000, xs, { ...bounds, warmupMs: 0 });
  assert.deepEqual(s.failures, ["lost 2", "missed events 1", "operator exited 1 time(s)"]);
});
