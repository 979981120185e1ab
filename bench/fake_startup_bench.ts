/**
 * Fake API server start-up: time from calling startFakeApiServer() to the first successful `GET /version` over
 * HTTP, and the time stop() takes; peer: a bare `Deno.serve` hello server started and probed the same way (the
 * ratio is peer/kubeop, so < 1 says how much slower than an empty server the fake is). Also reported: start with
 * the fake kubelet enabled (`kubelet: true`, what `kubeop dev` runs) and the share of start-up spent generating
 * the PKI (createServerPki, which runs on every start even without TLS).
 *
 * Every rep runs the cases interleaved (fake, bare, fake+kubelet, pki) so machine noise hits them alike.
 *
 * Run: deno run --allow-all bench/fake_startup_bench.ts [--full]
 * @module
 */

import { startFakeApiServer } from "../testing/mod.ts";
import { createServerPki } from "../testing/server_pki.ts";
import { withDeadline } from "./fake_bench_util.ts";
import { fullMode, lowerIsBetter, median, percentile, recordResult, round } from "./result.ts";

const PROBE_TIMEOUT_MS = 10_000;

/** Start-up and stop timings of one server, in ms. */
interface StartStop {
  readyMs: number;
  stopMs: number;
}

/** GETs `${url}/version` until it answers 200 (a fresh connection each try, so no pooled socket outlives stop). */
async function firstVersion(url: string): Promise<void> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const deadline = performance.now() + PROBE_TIMEOUT_MS;
    while (true) {
      try {
        const res = await fetch(`${url}/version`, { client });
        const body = await res.arrayBuffer();
        if (res.ok && body.byteLength > 0) return;
      } catch (err) {
        if (performance.now() > deadline) throw new Error(`GET ${url}/version never succeeded: ${err}`);
      }
      if (performance.now() > deadline) throw new Error(`GET ${url}/version never answered 200`);
    }
  } finally {
    client.close();
  }
}

/** startFakeApiServer() → first GET /version, then stop(). */
async function fakeOnce(kubelet: boolean): Promise<StartStop> {
  const t0 = performance.now();
  const server = await startFakeApiServer(kubelet ? { kubelet: true } : {});
  await firstVersion(server.url);
  const t1 = performance.now();
  await server.stop();
  const t2 = performance.now();
  return { readyMs: t1 - t0, stopMs: t2 - t1 };
}

/** A bare Deno.serve answering `/version` with a constant JSON body, started and probed like the fake. */
async function bareOnce(): Promise<StartStop> {
  const body = JSON.stringify({ major: "1", minor: "33", gitVersion: "v1.33.0" });
  const t0 = performance.now();
  const { promise, resolve } = Promise.withResolvers<void>();
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => resolve() },
    () => new Response(body, { headers: { "content-type": "application/json" } }),
  );
  await promise;
  await firstVersion(`http://127.0.0.1:${http.addr.port}`);
  const t1 = performance.now();
  await http.shutdown();
  const t2 = performance.now();
  return { readyMs: t1 - t0, stopMs: t2 - t1 };
}

/** createServerPki() alone, in ms. */
async function pkiOnce(): Promise<number> {
  const t0 = performance.now();
  await createServerPki();
  return performance.now() - t0;
}

if (import.meta.main) {
  const full = fullMode();
  const reps = full ? 41 : 15;
  const warmup = 3;
  const fake: StartStop[] = [];
  const bare: StartStop[] = [];
  const kubelet: StartStop[] = [];
  const pki: number[] = [];
  for (let r = 0; r < warmup + reps; r++) {
    const f = await withDeadline(fakeOnce(false), 30_000, "fake start");
    const b = await withDeadline(bareOnce(), 30_000, "bare start");
    const k = await withDeadline(fakeOnce(true), 30_000, "fake+kubelet start");
    const p = await pkiOnce();
    if (r < warmup) continue;
    fake.push(f);
    bare.push(b);
    kubelet.push(k);
    pki.push(p);
  }
  const ready = (xs: StartStop[]) => xs.map((x) => x.readyMs);
  const stop = (xs: StartStop[]) => xs.map((x) => x.stopMs);
  const mode = full ? "full" : "quick";
  const params = { reps, warmup, probe: "GET /version, fresh connection per try", mode };

  const fakeReady = round(median(ready(fake)));
  const bareReady = round(median(ready(bare)));
  await recordResult({
    name: "fake-startup",
    params: { ...params, kubelet: false },
    unit: "ms",
    kubeop: fakeReady,
    peer: bareReady,
    peerName: "bare-deno-serve",
    ratio: lowerIsBetter(fakeReady, bareReady),
    extra: {
      p90ReadyMs: round(percentile(ready(fake), 90)),
      pkiMedianMs: round(median(pki)),
      pkiShareOfReady: round(median(pki) / fakeReady),
      samples: ready(fake).map(round),
    },
  });

  const kubeletReady = round(median(ready(kubelet)));
  await recordResult({
    name: "fake-startup-kubelet",
    params: { ...params, kubelet: true },
    unit: "ms",
    kubeop: kubeletReady,
    peer: bareReady,
    peerName: "bare-deno-serve",
    ratio: lowerIsBetter(kubeletReady, bareReady),
    extra: { p90ReadyMs: round(percentile(ready(kubelet), 90)), samples: ready(kubelet).map(round) },
  });

  const fakeStop = round(median(stop(fake)));
  const bareStop = round(median(stop(bare)));
  await recordResult({
    name: "fake-stop",
    params: { ...params, kubelet: false },
    unit: "ms",
    kubeop: fakeStop,
    peer: bareStop,
    peerName: "bare-deno-serve",
    ratio: lowerIsBetter(fakeStop, bareStop),
    extra: {
      kubeletStopMedianMs: round(median(stop(kubelet))),
      samples: stop(fake).map(round),
    },
  });
}
