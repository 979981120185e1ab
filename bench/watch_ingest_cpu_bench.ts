/**
 * Watch ingestion by stage, in process CPU time (immune to other processes on a shared box, unlike wall time):
 * the same pre-encoded chunked watch body is fed through kubeop's decode path in 64 KiB reads, with no sockets,
 * stage by stage — bare JSON.parse, JSON.parse keeping the objects (the floor of any cache), decode + split +
 * parse (the transport), and the whole path into the Informer (pure step → store → handler), with and without
 * deep freezing. Prints one line per stage; records nothing (watch_ingest_bench.ts is the reported benchmark).
 * `--bytes=N` sets the ConfigMaps' size (1 500 by default; the event count scales so the frames total ~60 MB).
 *
 * Run: deno run --allow-all --v8-flags=--expose-gc bench/watch_ingest_cpu_bench.ts [--full] [--bytes=10000]
 * [--stages=informer,…]
 * @module
 */

import process from "node:process";
import { Informer } from "../runtime/cache/cache.ts";
import { ChunkedDecoder } from "../runtime/http/chunked_decoder.ts";
import type { KubeClient } from "../runtime/client/client.ts";
import { RealClock } from "../runtime/clock.ts";
import { dechunkInPlace } from "../runtime/http/http_transport.ts";
import { LineSplitter } from "../runtime/http/json_lines.ts";
import { CoreTypes, type KubeObject, type WatchEvent } from "../runtime/types.ts";
import { fullMode, median } from "./result.ts";
import { benchConsumer, useControllerIndexes } from "./watch_ingest_bench.ts";
import { encodeWatchBody } from "./watch_stream_server.ts";

const READ_BYTES = 64 * 1024;
const quiet = { debug() {}, info() {}, warn() {} };

/** Process CPU milliseconds (user + system, all threads — GC helpers included). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Feeds `body` in reads of READ_BYTES through the transport's de-chunk-in-place + line splitter path. */
function feed(body: Uint8Array, onLine: (line: string) => void): void {
  const dec = new ChunkedDecoder();
  const splitter = new LineSplitter(onLine);
  const buf = new Uint8Array(READ_BYTES);
  for (let off = 0; off < body.length; off += READ_BYTES) {
    const n = Math.min(READ_BYTES, body.length - off);
    buf.set(body.subarray(off, off + n));
    dechunkInPlace(dec, buf.subarray(0, n), (bytes) => splitter.push(bytes));
  }
}

/**
 * The informer's whole path (its own loop: pure step → store → handler) ingesting `body` as its one watch stream,
 * from a stub client whose list is empty; the CPU time of feeding the stream is returned.
 */
async function informerPath(
  body: Uint8Array,
  events: number,
  opts: { freeze: boolean },
): Promise<number> {
  let ms = -1;
  const ctrl = new AbortController();
  const client = {
    clock: new RealClock(),
    listAll: () => Promise.resolve({ items: [], metadata: { resourceVersion: "1" } }),
    async watchStream(
      _rt: unknown,
      opts: { signal?: AbortSignal; onOpen?: () => void },
      onEvent: (ev: WatchEvent<KubeObject>) => void,
    ): Promise<void> {
      opts.onOpen?.();
      const start = cpuMs();
      feed(body, (line) => onEvent(JSON.parse(line) as WatchEvent<KubeObject>));
      ms = cpuMs() - start;
      ctrl.abort();
      // The informer's abort reaches this stream's signal synchronously: it may already be aborted here.
      if (opts.signal?.aborted) return;
      await new Promise((resolve) => opts.signal?.addEventListener("abort", resolve, { once: true }));
    },
  } as unknown as KubeClient;
  const informer = new Informer({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "bench",
    logger: quiet,
    watchList: false,
    freeze: opts.freeze,
  });
  useControllerIndexes(informer);
  let seen = 0;
  informer.addHandler(benchConsumer(() => seen++));
  await informer.start(ctrl.signal);
  if (seen !== events || ms < 0) throw new Error(`informer saw ${seen} of ${events} events`);
  return ms;
}

if (import.meta.main) {
  const full = fullMode();
  const bytes = Number(Deno.args.find((a) => a.startsWith("--bytes="))?.slice("--bytes=".length) ?? 1_500);
  // The same ~60 MB of frames (300 MB in full mode) at any object size.
  const events = Math.round((full ? 200_000 : 40_000) * 1_500 / bytes);
  const reps = full ? 5 : 9;
  const { body, lines } = encodeWatchBody(events, bytes);
  const stages: Record<string, () => number | Promise<number>> = {
    "json-parse": () => {
      const start = cpuMs();
      let n = 0;
      for (const line of lines) if (JSON.parse(line).object) n++;
      if (n !== events) throw new Error("parse");
      return cpuMs() - start;
    },
    "json-parse-retain": () => {
      const kept = new Map<string, unknown>();
      const start = cpuMs();
      for (const line of lines) {
        const ev = JSON.parse(line);
        kept.set(ev.object.metadata.name, ev.object);
      }
      return cpuMs() - start;
    },
    "transport": () => {
      let n = 0;
      const start = cpuMs();
      feed(body, (line) => void (JSON.parse(line).object && n++));
      if (n !== events) throw new Error("transport");
      return cpuMs() - start;
    },
    "informer": () => informerPath(body, events, { freeze: true }),
    "informer-no-freeze": () => informerPath(body, events, { freeze: false }),
  };
  const only = Deno.args.find((a) => a.startsWith("--stages="))?.slice("--stages=".length).split(",");
  if (only) { for (const name of Object.keys(stages)) if (!only.includes(name)) delete stages[name]; }
  const samples: Record<string, number[]> = {};
  for (let r = 0; r < reps; r++) {
    for (const [name, run] of Object.entries(stages)) {
      (globalThis as { gc?: () => void }).gc?.();
      (samples[name] ??= []).push(await run());
    }
  }
  for (const [name, ms] of Object.entries(samples)) {
    console.log(`${name.padEnd(20)} ${Math.round(events / median(ms) * 1000)} events/s (CPU, median of ${reps})`);
  }
}
