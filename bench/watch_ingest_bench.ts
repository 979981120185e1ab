/**
 * Watch ingestion: events/s from one watch stream (one ~1.5 KB event per HTTP chunk) into the informer cache —
 * kubeop's Informer (raw-socket transport, chunked + JSON-lines decoder, indexed frozen store) against
 * @kubernetes/client-node's Informer on the same stream, and against bare JSON.parse of the same lines (the
 * ceiling). Goals: ≥ 3× client-node, ≥ 50 % of JSON.parse.
 *
 * Run: deno run --allow-all bench/watch_ingest_bench.ts [--full]
 * @module
 */

import * as k8s from "@kubernetes/client-node";
import { Informer } from "../runtime/cache.ts";
import { KubeClient } from "../runtime/client.ts";
import { LineSplitter } from "../runtime/json_lines.ts";
import { CoreTypes } from "../runtime/types.ts";
import { fullMode, higherIsBetter, median, recordResult, round } from "./result.ts";
import { encodeWatchBody } from "./watch_stream_server.ts";

/** Starts the stream server on a worker thread. */
export async function startServerWorker(
  opts: { events: number; objectBytes: number; listItems: number },
): Promise<{ url: string; close(): void }> {
  const worker = new Worker(new URL("./watch_stream_worker.ts", import.meta.url), { type: "module" });
  const url = await new Promise<string>((resolve) => {
    worker.onmessage = (e) => resolve(e.data.url);
    worker.postMessage(opts);
  });
  return {
    url,
    close() {
      worker.postMessage("close");
    },
  };
}

const quiet = { debug() {}, info() {}, warn() {} };
const RUN_TIMEOUT_MS = 120_000;

function deadline<T>(p: Promise<T>, what: string): Promise<T> {
  let id: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => id = setTimeout(() => reject(new Error(`${what} timed out`)), RUN_TIMEOUT_MS)),
  ]).finally(() => clearTimeout(id));
}

async function kubeopRun(url: string, events: number): Promise<number> {
  const client = new KubeClient({ config: { server: url } });
  const informer = new Informer({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "bench",
    logger: quiet,
    watchList: false,
  });
  let count = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => done = r);
  informer.addHandler({ added: () => void (++count === events && done()) });
  const ctrl = new AbortController();
  const start = performance.now();
  const running = informer.start(ctrl.signal);
  await deadline(finished, "kubeop ingest");
  const seconds = (performance.now() - start) / 1000;
  ctrl.abort();
  await running;
  client.close();
  return events / seconds;
}

async function clientNodeRun(url: string, events: number): Promise<number> {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "bench", server: url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const list = () =>
    Promise.resolve({ apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "1" }, items: [] });
  const informer = k8s.makeInformer(kc, "/api/v1/namespaces/bench/configmaps", list);
  let count = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => done = r);
  informer.on("add", () => void (++count === events && done()));
  informer.on("error", () => {});
  const start = performance.now();
  await informer.start();
  await deadline(finished, "client-node ingest");
  const seconds = (performance.now() - start) / 1000;
  await informer.stop();
  return events / seconds;
}

/** Transport alone (decode + JSON.parse, no cache): kubeop's raw-socket watchStream. */
async function rawTransportRun(url: string, events: number): Promise<number> {
  const client = new KubeClient({ config: { server: url } });
  let n = 0;
  const start = performance.now();
  await client.watchStream(CoreTypes.ConfigMap, { namespace: "bench" }, () => n++);
  const seconds = (performance.now() - start) / 1000;
  client.close();
  if (n !== events) throw new Error(`raw transport saw ${n} events`);
  return n / seconds;
}

/** Transport alone through fetch's body reader with the same line splitter (the simple alternative). */
async function fetchTransportRun(url: string, events: number): Promise<number> {
  let n = 0;
  const splitter = new LineSplitter((line) => JSON.parse(line) && n++);
  const start = performance.now();
  const res = await fetch(`${url}/api/v1/namespaces/bench/configmaps?watch=true`);
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    splitter.push(value);
  }
  const seconds = (performance.now() - start) / 1000;
  if (n !== events) throw new Error(`fetch transport saw ${n} events`);
  return n / seconds;
}

function jsonParseRun(lines: string[]): number {
  const start = performance.now();
  let n = 0;
  for (const line of lines) if (JSON.parse(line).object) n++;
  return n / ((performance.now() - start) / 1000);
}

if (import.meta.main) {
  const full = fullMode();
  const events = full ? 200_000 : 40_000;
  const reps = full ? 5 : 3;
  const objectBytes = 1_500;
  const { lines } = encodeWatchBody(events, objectBytes);
  const server = await startServerWorker({ events, objectBytes, listItems: 0 });
  try {
    // warm-up
    await kubeopRun(server.url, events);
    jsonParseRun(lines.slice(0, 5_000));
    const kubeop: number[] = [];
    const peer: number[] = [];
    const parse: number[] = [];
    const raw: number[] = [];
    const viaFetch: number[] = [];
    for (let r = 0; r < reps; r++) {
      kubeop.push(await kubeopRun(server.url, events));
      peer.push(await clientNodeRun(server.url, events));
      parse.push(jsonParseRun(lines));
      raw.push(await rawTransportRun(server.url, events));
      viaFetch.push(await fetchTransportRun(server.url, events));
    }
    // Why the watch transport is a raw socket: decode + parse alone, raw socket vs fetch's body reader.
    const transport = { rawSocketEventsPerSec: round(median(raw)), fetchEventsPerSec: round(median(viaFetch)) };
    const params = { events, objectBytes, reps, mode: full ? "full" : "quick", eventsPerChunk: 1 };
    const k = median(kubeop);
    const c = median(peer);
    const j = median(parse);
    await recordResult({
      name: "watch-ingest",
      params,
      unit: "events/s",
      kubeop: round(k),
      peer: round(c),
      peerName: "client-node",
      ratio: higherIsBetter(k, c),
      extra: transport,
    });
    await recordResult({
      name: "watch-ingest",
      params,
      unit: "events/s",
      kubeop: round(k),
      peer: round(j),
      peerName: "json-parse",
      ratio: higherIsBetter(k, j),
    });
  } finally {
    server.close();
  }
  Deno.exit(0);
}
