/**
 * The one deadline poll for tests: call a check until it answers, or fail naming what was awaited. Tests wait on
 * conditions this way instead of sleeping (see the "no sleeps as synchronisation" rule); a test driven by a
 * VirtualClock advances the clock instead.
 * @module
 */

/** Options of {@link eventually}. */
export interface EventuallyOptions {
  /** Give up after this many milliseconds (real time). Default 10 000. */
  timeoutMs?: number;
  /** Wait this long between checks. Default 10. */
  intervalMs?: number;
  /**
   * Treat an error thrown by the check as "not yet" (the last one is reported at the deadline) instead of failing
   * at once. Default false.
   */
  retryErrors?: boolean;
  /** Runs between checks, before the pause: e.g. `() => clock.advance(250)` to move a VirtualClock along. */
  step?: () => unknown;
}

/** The deadline passed before the check answered (its message names what was awaited and the last error). */
export class EventuallyTimeoutError extends Error {
  /** Always "EventuallyTimeoutError". */
  override name = "EventuallyTimeoutError";
}

/** What a check answers while the awaited state is not there yet. */
export type NotYet = undefined | null | false;

/**
 * Calls `check` every `intervalMs` until it returns a value other than undefined, null or false, and returns that
 * value; throws an {@link EventuallyTimeoutError} `timed out after N ms waiting for <what>` at the deadline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CoreTypes, KubeClient } from "../runtime/mod.ts";
 * import { eventually } from "./eventually.ts";
 * import { startFakeApiServer } from "./mod.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true, kubelet: true }); // the fake kubelet runs pods
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const spec = { containers: [{ name: "web", image: "nginx" }], nodeName: "fake-node" };
 * await client.create(CoreTypes.Pod, { metadata: { name: "web", namespace: "default" }, spec });
 * const pod = await eventually("the pod to be Running", async () => {
 *   const p = await client.get<{ metadata: { name?: string }; status?: { phase?: string } }>(CoreTypes.Pod, "web", {
 *     namespace: "default",
 *   });
 *   return p.status?.phase === "Running" && p;
 * }, { timeoutMs: 5_000, retryErrors: true });
 * assert.equal(pod.metadata.name, "web");
 * client.close();
 * await cluster.stop();
 * ```
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  opts: EventuallyOptions = {},
): Promise<Exclude<T, NotYet>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, NotYet>;
    } catch (err) {
      if (!opts.retryErrors) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError === undefined ? "" : `: last error: ${(lastError as Error)?.message ?? lastError}`;
      throw new EventuallyTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await opts.step?.();
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 10)); // poll interval, bounded by the deadline
  }
}
