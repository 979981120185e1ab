/**
 * Fake API server LIST of many objects: loads N ConfigMaps (quick 20 000, full 100 000; ~400 B each, fixed seed)
 * straight into the store (store.create, not HTTP), then times over real HTTP (fetch in the same process, each page
 * read with `res.json()` as a client would):
 * - a paginated list, `limit=500` following `continue` to the end, and
 * - one unpaginated list.
 * The peer is the floor: JSON.stringify + JSON.parse of the same list in memory. Unit objects/s, ratio
 * kubeop/peer (≤ 1; how close to the serialisation floor the server gets). `extra` carries total ms, the heap the
 * loaded objects take per object, the load rate, the HTTP time without client-side parsing (`arrayBuffer()`), and
 * the same pagination done in-process through store.listShared (no HTTP, no JSON) to isolate the store's share,
 * with its slowest and last page (remainingItemCount comes from a binary search in the sorted names, so every page
 * should cost about the same; a slowest page far above the last one would mean a per-page walk of the bucket).
 *
 * Run: deno run --allow-all --v8-flags=--expose-gc bench/fake_list_bench.ts [--full]
 * @module
 */

import { type FakeApiServer, startFakeApiServer } from "../testing/mod.ts";
import { CONFIGMAPS, memoryAfterGc, sampleConfigMap, withDeadline } from "./fake_bench_util.ts";
import { fullMode, higherIsBetter, median, recordResult, round } from "./result.ts";

const NAMESPACE = "bench";
const SEED = 42;
const PAGE_LIMIT = 500;
const RUN_TIMEOUT_MS = 120_000;

/** One timed list: wall time and how many objects came back. */
interface ListRun {
  ms: number;
  objects: number;
  pages: number;
  /** Slowest and last page (in-process store runs only): a cost that depends on the position shows here. */
  slowestPageMs?: number;
  lastPageMs?: number;
}

/** Lists every ConfigMap of the namespace over HTTP, `limit` per page (0 = unpaginated). */
async function httpList(url: string, limit: number, parse: boolean): Promise<ListRun> {
  const base = `${url}/api/v1/namespaces/${NAMESPACE}/configmaps`;
  const t0 = performance.now();
  let cont: string | undefined;
  let objects = 0;
  let pages = 0;
  do {
    const q = new URLSearchParams();
    if (limit > 0) q.set("limit", String(limit));
    if (cont) q.set("continue", cont);
    const res = await fetch(q.size ? `${base}?${q}` : base);
    if (!res.ok) throw new Error(`GET ${base}?${q} → ${res.status}: ${await res.text()}`);
    pages++;
    if (parse) {
      const list = await res.json() as { items: unknown[]; metadata: { continue?: string } };
      objects += list.items.length;
      cont = list.metadata.continue || undefined;
    } else {
      // Server + transport only: find the continue token without parsing the items.
      const text = new TextDecoder().decode(await res.arrayBuffer());
      const m = /"continue":"([^"]*)"/.exec(text.slice(0, 400));
      cont = m?.[1] || undefined;
      objects += limit > 0 ? Math.min(limit, 1e9) : 0;
    }
  } while (cont);
  return { ms: performance.now() - t0, objects, pages };
}

/** The same pagination in-process through the store (no HTTP, no JSON). */
function storeList(server: FakeApiServer, limit: number): ListRun {
  const t0 = performance.now();
  let cont: string | undefined;
  let objects = 0;
  let pages = 0;
  let slowestPageMs = 0;
  let lastPageMs = 0;
  do {
    const p0 = performance.now();
    const list = server.store.listShared(CONFIGMAPS, { namespace: NAMESPACE, limit, continue: cont });
    lastPageMs = performance.now() - p0;
    slowestPageMs = Math.max(slowestPageMs, lastPageMs);
    objects += list.items.length;
    pages++;
    cont = list.metadata.continue || undefined;
  } while (cont);
  return { ms: performance.now() - t0, objects, pages, slowestPageMs, lastPageMs };
}

/** JSON.stringify + JSON.parse of the whole list (the floor any JSON server + client pays). */
function jsonFloor(list: unknown): ListRun {
  const t0 = performance.now();
  const parsed = JSON.parse(JSON.stringify(list)) as { items: unknown[] };
  return { ms: performance.now() - t0, objects: parsed.items.length, pages: 1 };
}

/** Loads `count` ConfigMaps; returns the load rate and heap per object. */
function load(server: FakeApiServer, count: number): { objectsPerSec: number; heapPerObjectBytes: number } {
  server.store.create({ group: "", version: "v1", plural: "namespaces" }, { metadata: { name: NAMESPACE } });
  const before = memoryAfterGc();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) server.store.create(CONFIGMAPS, sampleConfigMap(NAMESPACE, i, SEED));
  const ms = performance.now() - t0;
  const after = memoryAfterGc();
  return {
    objectsPerSec: count / (ms / 1000),
    heapPerObjectBytes: (after.heapUsedBytes - before.heapUsedBytes) / count,
  };
}

const objectsPerSec = (r: ListRun) => r.objects / (r.ms / 1000);

if (import.meta.main) {
  const full = fullMode();
  const count = full ? 100_000 : 20_000;
  const reps = 5;
  const server = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const loaded = load(server, count);
    const all = server.store.listShared(CONFIGMAPS, { namespace: NAMESPACE });
    if (all.items.length !== count) throw new Error(`loaded ${all.items.length} ConfigMaps, expected ${count}`);
    const pagedObjects = (r: ListRun) => {
      if (r.objects !== count) throw new Error(`list returned ${r.objects} objects, expected ${count}`);
      return r;
    };

    // Warm-up (JIT, sorted-name caches, connection pool).
    await withDeadline(httpList(server.url, PAGE_LIMIT, true), RUN_TIMEOUT_MS, "warm-up paginated list");
    await withDeadline(httpList(server.url, 0, true), RUN_TIMEOUT_MS, "warm-up list");
    jsonFloor(all);

    const paged: ListRun[] = [];
    const pagedRaw: ListRun[] = [];
    const whole: ListRun[] = [];
    const store: ListRun[] = [];
    const floor: ListRun[] = [];
    for (let r = 0; r < reps; r++) {
      paged.push(pagedObjects(await withDeadline(httpList(server.url, PAGE_LIMIT, true), RUN_TIMEOUT_MS, "list")));
      pagedRaw.push(await withDeadline(httpList(server.url, PAGE_LIMIT, false), RUN_TIMEOUT_MS, "raw list"));
      whole.push(pagedObjects(await withDeadline(httpList(server.url, 0, true), RUN_TIMEOUT_MS, "unpaginated list")));
      store.push(pagedObjects(storeList(server, PAGE_LIMIT)));
      floor.push(jsonFloor(all));
    }
    const ms = (xs: ListRun[]) => round(median(xs.map((x) => x.ms)));
    const rate = (xs: ListRun[]) => round(median(xs.map(objectsPerSec)));
    const floorRate = rate(floor);
    const common = {
      objects: count,
      objectBytes: JSON.stringify(all.items[0]).length,
      reps,
      warmup: 1,
      seed: SEED,
      client: "fetch + res.json() in the same process",
      mode: full ? "full" : "quick",
    };
    const memory = {
      heapPerObjectBytes: round(loaded.heapPerObjectBytes),
      loadObjectsPerSec: round(loaded.objectsPerSec),
    };

    await recordResult({
      name: "fake-list-paginated",
      params: { ...common, limit: PAGE_LIMIT },
      unit: "objects/s",
      kubeop: rate(paged),
      peer: floorRate,
      peerName: "json-stringify+parse",
      ratio: higherIsBetter(rate(paged), floorRate),
      extra: {
        totalMs: ms(paged),
        pages: paged[0].pages,
        httpNoParseMs: ms(pagedRaw),
        storeListSharedMs: ms(store),
        storeSlowestPageMs: round(median(store.map((x) => x.slowestPageMs!))),
        storeLastPageMs: round(median(store.map((x) => x.lastPageMs!))),
        floorMs: ms(floor),
        ...memory,
        samplesMs: paged.map((x) => round(x.ms)),
      },
    });
    await recordResult({
      name: "fake-list-unpaginated",
      params: { ...common, limit: 0 },
      unit: "objects/s",
      kubeop: rate(whole),
      peer: floorRate,
      peerName: "json-stringify+parse",
      ratio: higherIsBetter(rate(whole), floorRate),
      extra: { totalMs: ms(whole), floorMs: ms(floor), ...memory, samplesMs: whole.map((x) => round(x.ms)) },
    });
  } finally {
    await server.stop();
  }
}
