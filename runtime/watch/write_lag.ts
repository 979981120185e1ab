/**
 * How far a cache is behind the writes its own controllers made (KEP-5647's staleness, seen from the client): the
 * highest resourceVersion a write through a controller returned for the cached resource, against the last one the
 * cache has seen (list, event or bookmark). Resource versions are compared only when both are decimal integers, as
 * read-your-own-writes compares them (runtime/controller/own_writes.ts).
 * @module
 */

const DECIMAL = /^[0-9]{1,30}$/;

/** A cache behind its own writes: by how many resource versions, and since when (ms). */
export interface WriteLagReport {
  /** The highest written resourceVersion minus the last one seen (0: caught up). */
  resourceVersions: number;
  /** ms since the oldest write the cache has not shown yet (0: caught up). */
  behindMs: number;
}

/**
 * The highest resourceVersion written, and since when the cache is behind it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WriteLag } from "./write_lag.ts";
 * const lag = new WriteLag();
 * lag.noteWrite("120", 1_000);
 * assert.deepEqual(lag.measure("100", 1_500), { resourceVersions: 20, behindMs: 500 });
 * assert.deepEqual(lag.measure("120", 1_600), { resourceVersions: 0, behindMs: 0 });
 * ```
 */
export class WriteLag {
  #written: bigint | undefined;
  #behindSinceMs: number | undefined;

  /**
   * Records a write the server answered with `resourceVersion` at `nowMs`, the cache having seen
   * `seenResourceVersion` so far (non-decimal versions are ignored).
   */
  noteWrite(resourceVersion: string | undefined, nowMs: number, seenResourceVersion?: string): void {
    if (resourceVersion === undefined || !DECIMAL.test(resourceVersion)) return;
    const rv = BigInt(resourceVersion);
    if (this.#written !== undefined && rv <= this.#written) return;
    // Caught up with every earlier write: the lag starts now.
    if (this.measure(seenResourceVersion, nowMs)?.resourceVersions === 0) this.#behindSinceMs = undefined;
    this.#written = rv;
    this.#behindSinceMs ??= nowMs;
  }

  /** The lag of a cache that has seen `seenResourceVersion`; undefined when there is nothing to compare. */
  measure(seenResourceVersion: string | undefined, nowMs: number): WriteLagReport | undefined {
    if (this.#written === undefined) return undefined;
    if (seenResourceVersion === undefined || !DECIMAL.test(seenResourceVersion)) return undefined;
    const seen = BigInt(seenResourceVersion);
    if (seen >= this.#written) {
      this.#behindSinceMs = undefined;
      return { resourceVersions: 0, behindMs: 0 };
    }
    const behindSince = this.#behindSinceMs ?? nowMs;
    return { resourceVersions: Number(this.#written - seen), behindMs: Math.max(0, nowMs - behindSince) };
  }
}
