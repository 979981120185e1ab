/**
 * A campaigning candidate's watch of the Lease it waits for (runtime/leader/leader.ts `watchForRelease`): client-go's
 * candidates only poll, so after a graceful release the successor takes over at its next jittered poll — up to 2.2
 * retry periods later. Watching the Lease lets it try at once.
 * @module
 */

import type { Clock } from "../clock.ts";
import { isForbidden } from "../client/errors.ts";
import type { LeaseLock, LeaseRecord } from "./lease_lock.ts";
import type { Logger } from "../observe/log.ts";

/** What the candidate's acquire loop shares with the watch. */
export interface ReleaseWake {
  /** Set when the Lease was seen free (released or deleted); the loop clears it before each attempt. */
  released: boolean;
  /** The loop's current wait between attempts; a release aborts it. */
  nap?: AbortController;
}

/** What {@link watchLeaseForRelease} needs. */
export interface ReleaseWatchOptions {
  /** The Lease; without {@link LeaseLock.watch} nothing is watched. */
  lock: LeaseLock;
  /** Paces re-opening the watch. */
  clock: Clock;
  /** Wait between one watch's end or failure and the next. */
  retryMs: number;
  /** Says why the watch was given up. */
  logger: Logger;
}

/**
 * Watches `opts.lock` until `signal` aborts — each stream re-opened `retryMs` after it ends or fails, given up after
 * a 403 (the role lacks the `watch` verb; polling alone remains) — and flags every release or deletion on the
 * returned {@link ReleaseWake}, ending its current nap.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import { MemoryLeaseStore } from "./lease_lock.ts";
 * import { watchLeaseForRelease } from "./lease_release_watch.ts";
 * import { kubeopLogger } from "../observe/log.ts";
 * const store = new MemoryLeaseStore();
 * const held = await store.lock().create({ holderIdentity: "a" });
 * const stop = new AbortController();
 * const wake = watchLeaseForRelease(
 *   { lock: store.lock(), clock: new VirtualClock(), retryMs: 2_000, logger: kubeopLogger("example") },
 *   stop.signal,
 * );
 * assert.equal(wake.released, false);
 * await store.lock().update({ holderIdentity: "" }, held.rv);
 * assert.equal(wake.released, true);
 * stop.abort();
 * ```
 */
export function watchLeaseForRelease(opts: ReleaseWatchOptions, signal: AbortSignal): ReleaseWake {
  const wake: ReleaseWake = { released: false };
  const watch = opts.lock.watch?.bind(opts.lock);
  if (!watch) return wake;
  const onChange = (record: LeaseRecord | undefined) => {
    if (record && record.spec.holderIdentity) return;
    wake.released = true;
    wake.nap?.abort();
  };
  (async () => {
    while (!signal.aborted) {
      try {
        await watch(signal, onChange);
      } catch (err) {
        if (signal.aborted) return;
        if (isForbidden(err)) {
          opts.logger.info("cannot watch lease {lease} ({error}); polling it only", {
            lease: opts.lock.describe(),
            error: String(err),
          });
          return;
        }
        opts.logger.debug("watch of lease {lease} failed: {error}", {
          lease: opts.lock.describe(),
          error: String(err),
        });
      }
      try {
        await opts.clock.sleep(opts.retryMs, signal);
      } catch {
        return;
      }
    }
  })();
  return wake;
}
