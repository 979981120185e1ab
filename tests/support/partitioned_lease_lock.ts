/**
 * A Lease lock whose calls the test can cut, standing in for a replica partitioned from the API server: while cut,
 * every call either hangs until its signal aborts (`hang`: a stalled connection, a process paused mid-call) or fails at
 * once (`refuse`: connection refused). The leader tests over the fake API server share it, with their timings.
 * @module
 */
import type { LeaseLock } from "../../runtime/leader/lease_lock.ts";
import { electionOptions } from "./manager_fakes.ts";

/** How a cut lock's calls end: never (until aborted), or at once with an error. */
export type PartitionMode = "hang" | "refuse";

/** Wraps `inner`; `partition(true)` cuts it, `partition(false)` heals it. */
export function partitionableLock(
  inner: LeaseLock,
  mode: PartitionMode,
): { lock: LeaseLock; partition(on: boolean): void } {
  let down = false;
  const cut = (signal?: AbortSignal): Promise<never> =>
    mode === "refuse"
      ? Promise.reject(new Error("connection refused (partitioned by the test)"))
      : new Promise<never>((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true })
      );
  return {
    lock: {
      get: (signal) => down ? cut(signal) : inner.get(signal),
      create: (spec, signal) => down ? cut(signal) : inner.create(spec, signal),
      update: (spec, rv, signal) => down ? cut(signal) : inner.update(spec, rv, signal),
      describe: () => inner.describe(),
    },
    partition: (on) => down = on,
  };
}

/** Leader election for these tests: Lease 15 s, renew deadline 10 s, retry every 2 s, no jitter. */
export function shortLeaseElection(identity: string, lock: LeaseLock) {
  return { ...electionOptions(identity, lock), leaseSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 };
}
