/**
 * Watch ingestion by stage, in process CPU time (immune to other processes on a shared box, unlike wall time):
 * the same pre-encoded chunked watch body is fed through kubeop's decode path in 64 KiB reads, with no sockets,
 * stage by stage — bare JSON.parse, JSON.parse keeping the objects (the floor of any cache), decode + split +
 * parse (the transport), and the whole path into the Informer (pure step → store → handler), with and without
 * deep freezing. Prints one line per stage; records nothing (watch_ingest_bench.ts is the reported benchmark).
 *
 * Run: deno run --allow-all --v8-flags=--expose-gc bench/watch_ingest_cpu_bench.ts [--full]
 * @module
 */

import process from "node:process";
import { Informer } from "../runtime/cache.ts";
import { ChunkedDecoder } from "../runtime/chunked_decoder.ts";
import { KubeClient } from "../runtime/client.ts";
import { dechunkInPlace } from "../runtime/http_transport.ts";
import { LineSplitter } from "../runtime/json_lines.ts";
import { CoreTypes } from "../runtime/types.ts";
import { initialState, step } from "../runtime/watch.ts";
import { fullMode, median } from "./result.ts";
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

function informerPath(body: Uint8Array, events: number, freeze: boolean): number {
  const client = new KubeClient({ config: { server: "http://127.0.0.1:1" } });
  const informer = new Informer({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "bench",
    logger: quiet,
    watchList: false,
    freeze,
  });
  let seen = 0;
  informer.addHandler({ added: () => void seen++ });
  const env = { now: () => performance.now(), random: Math.random };
  let state = step(initialState({ watchList: false }), { type: "start" }, env).state;
  state = step(state, { type: "listed", items: [], rv: "1" }, env).state;
  informer.replace([], "1");
  const start = cpuMs();
  feed(body, (line) => {
    const r = step(state, { type: "event", event: JSON.parse(line) }, env);
    state = r.state;
    for (const e of r.effects) if (e.type === "apply") informer.apply(e.eventType, e.object);
  });
  const ms = cpuMs() - start;
  client.close();
  if (seen !== events) throw new Error(`informer saw ${seen} of ${events} events`);
  return ms;
}

if (import.meta.main) {
  const full = fullMode();
  const events = full ? 200_000 : 40_000;
  const reps = full ? 5 : 9;
  const { body, lines } = encodeWatchBody(events, 1_500);
  const stages: Record<string, () => number> = {
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
    "informer": () => informerPath(body, events, true),
    "informer-no-freeze": () => informerPath(body, events, false),
  };
  const samples: Record<string, number[]> = {};
  for (let r = 0; r < reps; r++) {
    for (const [name, run] of Object.entries(stages)) {
      (globalThis as { gc?: () => void }).gc?.();
      (samples[name] ??= []).push(run());
    }
  }
  for (const [name, ms] of Object.entries(samples)) {
    console.log(`${name.padEnd(20)} ${Math.round(events / median(ms) * 1000)} events/s (CPU, median of ${reps})`);
  }
}
