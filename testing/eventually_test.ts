import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { eventually } from "./eventually.ts";

Deno.test("eventually: returns the first answer that is not undefined, null or false", async () => {
  let calls = 0;
  const answers = [undefined, null, false, 0];
  const value = await eventually("a value", () => answers[calls++], { intervalMs: 1 });
  assert.equal(value, 0);
  assert.equal(calls, 4);
});

Deno.test("eventually: times out naming what it waited for, with the last retried error", async () => {
  await assert.rejects(
    () => eventually("never", () => false, { timeoutMs: 20, intervalMs: 1 }),
    /timed out after 20 ms waiting for never$/,
  );
  await assert.rejects(
    () =>
      eventually("a server", () => Promise.reject(new Error("connection refused")), {
        timeoutMs: 20,
        intervalMs: 1,
        retryErrors: true,
      }),
    /waiting for a server: last error: connection refused/,
  );
});

Deno.test("eventually: an error fails at once unless retryErrors", async () => {
  let calls = 0;
  await assert.rejects(() =>
    eventually("x", () => {
      calls++;
      throw new Error("boom");
    }), /boom/);
  assert.equal(calls, 1);
});

Deno.test("eventually: step runs between checks (moving a VirtualClock)", async () => {
  const clock = new VirtualClock(0);
  let fired = false;
  clock.setTimer(1_000, () => fired = true);
  await eventually("the timer", () => fired, { intervalMs: 1, step: () => clock.advance(250) });
  assert.equal(clock.now(), 1_000);
});
