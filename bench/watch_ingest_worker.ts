/**
 * One isolated informer run for bench/watch_ingest_bench.ts, on its own thread and V8 heap. Message in:
 * `{ who: "kubeop" | "client-node", url, events, warmupEvents }`; out: `{ rate }` (events/s of the timed run) or
 * `{ error }`. Warm-up run, full GC (when exposed), timed run.
 * @module
 */

import { clientNodeRun, kubeopRun } from "./watch_ingest_bench.ts";

declare const self: {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(m: unknown): void;
};

self.onmessage = async (e: MessageEvent) => {
  const { who, url, events, warmupEvents } = e.data as {
    who: "kubeop" | "client-node";
    url: string;
    events: number;
    warmupEvents: number;
  };
  try {
    const run = who === "kubeop" ? kubeopRun : clientNodeRun;
    await run(url, warmupEvents);
    (globalThis as { gc?: () => void }).gc?.();
    const rate = await run(url, events);
    self.postMessage({ rate });
  } catch (err) {
    self.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
};
