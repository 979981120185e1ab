/**
 * Initial sync: time for an informer to list 100 k objects (~1 KB of JSON each) into its cache, and the heap each
 * cached object costs — kubeop's Informer (paginated list, limit 500, transform + frozen indexed store) against
 * @kubernetes/client-node's Informer (its generated CoreV1Api list). Goals: ≤ 0.5× client-node's time; cache
 * ≤ 2× the objects' JSON bytes. Names: initial-sync (ms), cache-memory (bytes/object).
 *
 * Run: deno run --allow-all --v8-flags=--expose-gc bench/initial_sync_bench.ts [--full]
 * @module
 */

import * as k8s from "@kubernetes/client-node";
import { Informer } from "../runtime/cache/cache.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { CoreTypes } from "../runtime/types.ts";
import { fullMode, lowerIsBetter, median, recordResult, round } from "./result.ts";
import { startServerWorker } from "./watch_ingest_bench.ts";

const quiet = { debug() {}, info() {}, warn() {} };

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function heapUsed(): number {
  gc();
  gc();
  return Deno.memoryUsage().heapUsed;
}

interface SyncResult {
  ms: number;
  bytesPerObject: number;
}

async function kubeopRun(url: string, objects: number): Promise<SyncResult> {
  const before = heapUsed();
  const client = new KubeClient({ config: { server: url } });
  const informer = new Informer({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "bench",
    logger: quiet,
    watchList: false,
  });
  const ctrl = new AbortController();
  const start = performance.now();
  const running = informer.start(ctrl.signal);
  await informer.waitForSync();
  const ms = performance.now() - start;
  ctrl.abort();
  await running;
  client.close();
  if (informer.store.size !== objects) throw new Error(`kubeop cached ${informer.store.size}, want ${objects}`);
  const bytesPerObject = (heapUsed() - before) / objects;
  return { ms, bytesPerObject: informer.store.size ? bytesPerObject : 0 };
}

async function clientNodeRun(url: string, objects: number): Promise<SyncResult> {
  const before = heapUsed();
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "bench", server: url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(
    kc,
    "/api/v1/namespaces/bench/configmaps",
    () => api.listNamespacedConfigMap({ namespace: "bench" }),
  );
  informer.on("error", () => {});
  const start = performance.now();
  await informer.start();
  const ms = performance.now() - start;
  const cached = informer.list().length;
  if (cached !== objects) throw new Error(`client-node cached ${cached}, want ${objects}`);
  const bytesPerObject = (heapUsed() - before) / objects;
  await informer.stop();
  return { ms, bytesPerObject };
}

if (import.meta.main) {
  const full = fullMode();
  const objects = 100_000;
  const reps = full ? 5 : 2;
  const objectBytes = 1_000;
  const server = await startServerWorker({ events: 0, objectBytes, listItems: objects });
  try {
    await kubeopRun(server.url, objects); // warm-up
    const kubeop: SyncResult[] = [];
    const peer: SyncResult[] = [];
    for (let r = 0; r < reps; r++) {
      kubeop.push(await kubeopRun(server.url, objects));
      peer.push(await clientNodeRun(server.url, objects));
    }
    const params = { objects, objectBytes, reps, mode: full ? "full" : "quick", pageSize: 500 };
    const kMs = median(kubeop.map((r) => r.ms));
    const cMs = median(peer.map((r) => r.ms));
    await recordResult({
      name: "initial-sync",
      params,
      unit: "ms",
      kubeop: round(kMs),
      peer: round(cMs),
      peerName: "client-node",
      ratio: lowerIsBetter(kMs, cMs),
    });
    const kMem = median(kubeop.map((r) => r.bytesPerObject));
    const cMem = median(peer.map((r) => r.bytesPerObject));
    await recordResult({
      name: "cache-memory",
      params,
      unit: "bytes/object",
      kubeop: round(kMem),
      peer: round(cMem),
      peerName: "client-node",
      ratio: lowerIsBetter(kMem, cMem),
      extra: { jsonBytesPerObject: objectBytes, kubeopOverJson: round(kMem / objectBytes), goalOverJson: 2 },
    });
  } finally {
    server.close();
  }
  Deno.exit(0);
}
