/**
 * How the long-running commands (`kubeop run`, `kubeop apiserver`) turn SIGTERM/SIGINT into a graceful stop.
 * @module
 */
import type { Logger } from "../runtime/observe/log.ts";

/** Options of {@link stopOnSignals}. */
export interface StopOnSignalsOptions {
  /** When set, each signal is logged (`received SIGTERM: shutting down`). */
  log?: Logger;
  /** Exit the process with code 1 on a second signal instead of waiting for the graceful stop to finish. */
  exitOnSecondSignal?: boolean;
}

/**
 * Aborts `stop` on SIGTERM or SIGINT. Returns the function that removes the listeners again (call it in `finally`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stopOnSignals } from "./signals.ts";
 * const stop = new AbortController();
 * const removeSignalListeners = stopOnSignals(stop, { exitOnSecondSignal: true });
 * try {
 *   // await manager.start(stop.signal);
 * } finally {
 *   removeSignalListeners();
 * }
 * assert.equal(stop.signal.aborted, false);
 * ```
 */
export function stopOnSignals(stop: AbortController, opts: StopOnSignalsOptions = {}): () => void {
  let received = 0;
  const handlers = (["SIGTERM", "SIGINT"] as const).map((signal) => {
    const handler = () => {
      if (++received > 1 && opts.exitOnSecondSignal) {
        opts.log?.error("second {signal}: exiting without draining", { signal });
        Deno.exit(1);
      }
      opts.log?.info("received {signal}: shutting down", { signal });
      stop.abort();
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
  };
}
