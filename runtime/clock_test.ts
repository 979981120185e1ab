import assert from "node:assert/strict";
import { VirtualClock } from "./clock.ts";

Deno.test("virtual clock fires timers in due order only when advanced", async () => {
  const clock = new VirtualClock(1_000);
  const fired: string[] = [];
  clock.setTimer(200, () => fired.push("b"));
  clock.setTimer(100, () => fired.push("a"));
  const cancel = clock.setTimer(150, () => fired.push("cancelled"));
  cancel();
  await clock.advance(99);
  assert.deepEqual(fired, []);
  await clock.advance(101);
  assert.deepEqual(fired, ["a", "b"]);
  assert.equal(clock.now(), 1_200);
});

Deno.test("virtual sleep resolves after advance and rejects on abort", async () => {
  const clock = new VirtualClock(0);
  let woke = false;
  const p = clock.sleep(1_000).then(() => woke = true);
  await clock.advance(999);
  assert.equal(woke, false);
  await clock.advance(1);
  await p;
  assert.equal(woke, true);
  const ac = new AbortController();
  const q = clock.sleep(10, ac.signal);
  ac.abort(new Error("stop"));
  await assert.rejects(q, /stop/);
  assert.equal(clock.pendingTimers, 0);
});
