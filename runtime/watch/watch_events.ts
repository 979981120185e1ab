/**
 * Turns a callback-driven watch (`KubeClient.watchStream`-style) into an async iterable of its events.
 * @module
 */

import type { KubeObject, WatchEvent } from "../types.ts";

/**
 * Runs `start` with a callback that buffers events, and yields them in order until the watch ends; rethrows the
 * watch's failure after the buffered events. Convenient, slower than the callback: one promise per event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { watchEvents } from "./watch_events.ts";
 * import type { WatchEvent } from "../types.ts";
 * // `start` runs a callback-style stream to its end (KubeClient.watchStream does; KubeClient.watch wraps it like this).
 * const events = watchEvents(async (onEvent: (event: WatchEvent) => void) => {
 *   onEvent({ type: "ADDED", object: { metadata: { name: "a" } } });
 *   await Promise.resolve();
 *   onEvent({ type: "DELETED", object: { metadata: { name: "a" } } });
 * });
 * const types: string[] = [];
 * for await (const ev of events) types.push(ev.type);
 * assert.deepEqual(types, ["ADDED", "DELETED"]);
 * ```
 */
export async function* watchEvents<T extends KubeObject = KubeObject>(
  start: (onEvent: (event: WatchEvent<T>) => void) => Promise<void>,
): AsyncIterable<WatchEvent<T>> {
  const buffered: WatchEvent<T>[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: unknown;
  const done = start((ev) => {
    buffered.push(ev);
    wake?.();
  }).then(() => finished = true, (err) => {
    failure = err;
    finished = true;
  }).finally(() => wake?.());
  for (;;) {
    while (buffered.length > 0) yield buffered.shift()!;
    if (finished) break;
    await new Promise<void>((resolve) => wake = resolve);
    wake = undefined;
  }
  await done;
  if (failure) throw failure;
}
