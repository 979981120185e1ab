import assert from "node:assert/strict";
import { stopOnSignals } from "./signals.ts";

/** Resolves when `signal` aborts; rejects after `deadlineMs` (a deadline, not a synchronisation sleep). */
function aborted(signal: AbortSignal, deadlineMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not aborted within ${deadlineMs} ms`)), deadlineMs);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

Deno.test("stopOnSignals aborts the controller on SIGTERM and logs which signal arrived", async () => {
  const stop = new AbortController();
  const logged: string[] = [];
  const log = {
    info: (msg: string, props?: Record<string, unknown>) => void logged.push(`${msg} ${props?.signal}`),
    error: () => {},
  };
  const remove = stopOnSignals(stop, { log: log as never });
  try {
    assert.equal(stop.signal.aborted, false);
    Deno.kill(Deno.pid, "SIGTERM");
    await aborted(stop.signal, 10_000);
    assert.deepEqual(logged, ["received {signal}: shutting down SIGTERM"]);
  } finally {
    remove();
  }
});
