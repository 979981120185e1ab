/**
 * Watch ingestion: events/s and bytes/s from one watch stream (one event per HTTP chunk; ~1 KB objects, then ~10 KB
 * ones as `watch-ingest-10k`) into the informer cache —
 * kubeop's Informer (raw-socket transport, chunked + JSON-lines decoder, indexed frozen store) against
 * @kubernetes/client-node's Informer on the same stream, and against bare JSON.parse of the same lines (the
 * ceiling). Goals: ≥ 3× client-node, ≥ 50 % of JSON.parse. Both informers feed the same consumer, which reads each
 * object's body and labels as a controller's handler and predicate would; kubeop's store also maintains the owner
 * and label indexes a controller's watches query.
 *
 * Fairness: both informers get the same bytes from the same worker-thread server, in the same process; each timed
 * informer run happens on a fresh worker thread (own heap) after a same-length warm-up there (a short one leaves kubeop's run ~2× slower: JIT and young-generation sizing) and a full GC (with
 * `--v8-flags=--expose-gc`, as bench/all.ts passes); the order alternates per rep; medians are reported. Fresh
 * heaps matter: client-node's Informer keeps its cache reachable after stop(), growing the shared heap by ~63 MB
 * per run and slowing every later run's GC. Also reported: JSON.parse of the same lines *keeping* the objects
 * (`jsonParseRetainEventsPerSec`) — the floor cost of any cache that holds parsed objects.
 *
 * Run: deno run --allow-all --v8-flags=--expose-gc bench/watch_ingest_bench.ts [--full]
 * @module
 */

import * as k8s from "@kubernetes/client-node";
import { Informer } from "../runtime/cache/cache.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { LineSplitter } from "../runtime/http/json_lines.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
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

/**
 * Materializes the store indexes a controller's watches use (`owns` → owner uid, label selectors → label): from then
 * on they are maintained on every event (an index nobody queried costs nothing, which would flatter the benchmark).
 */
export function useControllerIndexes(informer: Informer): void {
  informer.store.byIndex("owner", "none");
  informer.store.byIndex("label", "app=bench");
}

/**
 * The consumer every timed informer run feeds (kubeop's and client-node's alike): it reads each object's body
 * (`data`, a ConfigMap's spec) and its labels, as a controller's handler and predicate do, then counts it.
 */
export function benchConsumer(count: () => void): { added(obj: KubeObject): void } {
  return {
    added(obj: KubeObject) {
      const body = (obj as KubeObject & { data?: Record<string, string> }).data;
      if (body?.payload === undefined || obj.metadata.labels?.app !== "bench") throw new Error("bench object unread");
      count();
    },
  };
}
const RUN_TIMEOUT_MS = 120_000;

function deadline<T>(p: Promise<T>, what: string): Promise<T> {
  let id: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => id = setTimeout(() => reject(new Error(`${what} timed out`)), RUN_TIMEOUT_MS)),
  ]).finally(() => clearTimeout(id));
}

/** kubeop's Informer ingesting the first `events` events of the stream; events/s. */
export async function kubeopRun(url: string, events: number): Promise<number> {
  const client = new KubeClient({ config: { server: url } });
  const informer = new Informer({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "bench",
    logger: quiet,
    watchList: false,
  });
  useControllerIndexes(informer);
  let count = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => done = r);
  informer.addHandler(benchConsumer(() => void (++count === events && done())));
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

/** client-node's Informer ingesting the first `events` events of the stream; events/s. */
export async function clientNodeRun(url: string, events: number): Promise<number> {
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
  const consumer = benchConsumer(() => void (++count === events && done()));
  informer.on("add", (obj) => consumer.added(obj as KubeObject));
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

/** JSON.parse of the same lines, keeping every object in a Map (what any cache must at least pay). */
function jsonParseRetainRun(lines: string[]): number {
  const kept = new Map<string, unknown>();
  const start = performance.now();
  for (const line of lines) {
    const ev = JSON.parse(line);
    kept.set(ev.object.metadata.name, ev.object);
  }
  const seconds = (performance.now() - start) / 1000;
  if (kept.size !== lines.length) throw new Error(`kept ${kept.size} objects`);
  return lines.length / seconds;
}

/** A full GC when exposed (`--v8-flags=--expose-gc`), so one run's garbage is not collected inside the next. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * One informer run on a fresh worker thread (its own V8 heap): a same-length warm-up, a full GC, then the timed run.
 * Isolation matters: client-node's Informer keeps its whole cache reachable after stop() (measured: the heap grows
 * by the cache size, ~63 MB per 40k-event run), which would slow every later run's GC — kubeop's included.
 */
async function isolatedRun(who: "kubeop" | "client-node", url: string, events: number): Promise<number> {
  const worker = new Worker(new URL("./watch_ingest_worker.ts", import.meta.url), { type: "module" });
  try {
    return await deadline(
      new Promise<number>((resolve, reject) => {
        worker.onmessage = (e) => e.data.error ? reject(new Error(e.data.error)) : resolve(e.data.rate);
        worker.onerror = (e) => reject(new Error(`${who} worker: ${e.message}`));
        worker.postMessage({ who, url, events, warmupEvents: events });
      }),
      `${who} isolated run`,
    );
  } finally {
    worker.terminate();
  }
}

/** Runs `fn` after a full GC. */
async function timed<T>(fn: () => T | Promise<T>): Promise<T> {
  collectGarbage();
  return await fn();
}

function jsonParseRun(lines: string[]): number {
  const start = performance.now();
  let n = 0;
  for (const line of lines) if (JSON.parse(line).object) n++;
  return n / ((performance.now() - start) / 1000);
}

/** One size's runs: the informers, the parse baselines and the transports, `reps` times; writes its two rows. */
async function benchSize(name: string, events: number, objectBytes: number, reps: number, full: boolean) {
  const { body, lines } = encodeWatchBody(events, objectBytes);
  // Bytes on the wire per event (chunk framing included), so every events/s figure also reads as bytes/s.
  const bytesPerEvent = body.length / events;
  const bytesPerSec = (eventsPerSec: number) => round(eventsPerSec * bytesPerEvent);
  const server = await startServerWorker({ events, objectBytes, listItems: 0 });
  try {
    // Informers run on fresh worker threads (own heap, own warm-up); the transport and parse baselines here.
    jsonParseRun(lines.slice(0, 5_000));
    await rawTransportRun(server.url, events);
    const kubeop: number[] = [];
    const peer: number[] = [];
    const parse: number[] = [];
    const parseRetain: number[] = [];
    const raw: number[] = [];
    const viaFetch: number[] = [];
    for (let r = 0; r < reps; r++) {
      if (r % 2 === 0) {
        kubeop.push(await isolatedRun("kubeop", server.url, events));
        peer.push(await isolatedRun("client-node", server.url, events));
      } else {
        peer.push(await isolatedRun("client-node", server.url, events));
        kubeop.push(await isolatedRun("kubeop", server.url, events));
      }
      parse.push(await timed(() => jsonParseRun(lines)));
      parseRetain.push(await timed(() => jsonParseRetainRun(lines)));
      raw.push(await timed(() => rawTransportRun(server.url, events)));
      viaFetch.push(await timed(() => fetchTransportRun(server.url, events)));
    }
    const k = median(kubeop);
    const c = median(peer);
    const j = median(parse);
    // Why the watch transport is a raw socket: decode + parse alone, raw socket vs fetch's body reader.
    const transport = {
      bytesPerEvent: round(bytesPerEvent),
      kubeopBytesPerSec: bytesPerSec(k),
      peerBytesPerSec: bytesPerSec(c),
      rawSocketEventsPerSec: round(median(raw)),
      fetchEventsPerSec: round(median(viaFetch)),
      jsonParseRetainEventsPerSec: round(median(parseRetain)),
      isolatedWorkerRuns: true,
      gcBetweenRuns: typeof (globalThis as { gc?: unknown }).gc === "function",
      kubeopSamples: kubeop.map(round),
      peerSamples: peer.map(round),
    };
    const params = { events, objectBytes, reps, mode: full ? "full" : "quick", eventsPerChunk: 1 };
    await recordResult({
      name,
      params,
      unit: "events/s",
      kubeop: round(k),
      peer: round(c),
      peerName: "client-node",
      ratio: higherIsBetter(k, c),
      extra: transport,
    });
    await recordResult({
      name,
      params,
      unit: "events/s",
      kubeop: round(k),
      peer: round(j),
      peerName: "json-parse",
      ratio: higherIsBetter(k, j),
      extra: {
        bytesPerEvent: transport.bytesPerEvent,
        kubeopBytesPerSec: transport.kubeopBytesPerSec,
        jsonParseBytesPerSec: bytesPerSec(j),
        jsonParseRetainEventsPerSec: transport.jsonParseRetainEventsPerSec,
        parseSamples: parse.map(round),
      },
    });
  } finally {
    server.close();
  }
}

if (import.meta.main) {
  const full = fullMode();
  const events = full ? 200_000 : 40_000;
  const reps = full ? 5 : 3;
  // ~1 KB objects (a small ConfigMap, a Machine) and ~10 KB ones (a Pod with its managedFields, a Deployment); the
  // 10 KB stream carries a fifth of the events, about twice the bytes.
  await benchSize("watch-ingest", events, 1_000, reps, full);
  await benchSize("watch-ingest-10k", events / 5, 10_000, reps, full);
  Deno.exit(0);
}
