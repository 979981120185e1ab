/**
 * Fake API server start-up: time from calling startFakeApiServer() to the first successful `GET /version` over
 * HTTP, and the time stop() takes; peer: a bare `Deno.serve` hello server started and probed the same way (the
 * ratio is peer/kubeop, so < 1 says how much slower than an empty server the fake is). Also reported: start with
 * the fake kubelet enabled (`kubelet: true`, what `kubeop dev` runs), the process CPU time of a start, the time
 * createServerPki takes (made at start only with TLS or default namespace objects; otherwise on the first configmaps
 * request or aggregated proxy call), a start with TLS (`tls: true`, probed over HTTPS), and the first
 * `GET kube-system/configmaps/extension-apiserver-authentication` of a non-TLS server (what pays for the PKI then).
 *
 * Every rep runs the cases interleaved (fake, bare, fake+kubelet, pki, tls) so machine noise hits them alike.
 *
 * Run: deno run --allow-all bench/fake_startup_bench.ts [--full]
 * @module
 */

import { startFakeApiServer } from "../testing/mod.ts";
import { createServerPki } from "../testing/apiserver/server_pki.ts";
import process from "node:process";
import { withDeadline } from "./fake_bench_util.ts";
import { fullMode, lowerIsBetter, median, percentile, recordResult, round } from "./result.ts";

const PROBE_TIMEOUT_MS = 10_000;

/** Start-up and stop timings of one server, in ms. */
interface StartStop {
  readyMs: number;
  stopMs: number;
  /** Process CPU (user + system) from the call to the first answer, in ms (includes the probing client). */
  cpuMs?: number;
  /** Non-TLS fake only: the first GET of the auth ConfigMap after ready, in ms. */
  authConfigMapMs?: number;
}

/** GETs `${url}/version` until it answers 200 (a fresh connection each try, so no pooled socket outlives stop). */
async function firstVersion(url: string, caPEM?: string): Promise<void> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0, ...(caPEM ? { caCerts: [caPEM] } : {}) });
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
async function fakeOnce(kind: "plain" | "kubelet" | "tls"): Promise<StartStop> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const server = await startFakeApiServer(kind === "kubelet" ? { kubelet: true } : kind === "tls" ? { tls: true } : {});
  await firstVersion(server.url, server.caPEM);
  const t1 = performance.now();
  const cpu = process.cpuUsage(c0);
  let authConfigMapMs: number | undefined;
  if (kind === "plain") {
    const res = await fetch(`${server.url}${AUTH_CONFIGMAP_PATH}`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${AUTH_CONFIGMAP_PATH}: ${res.status}`);
    authConfigMapMs = performance.now() - t1;
  }
  const t2 = performance.now();
  await server.stop();
  const t3 = performance.now();
  return { readyMs: t1 - t0, stopMs: t3 - t2, cpuMs: (cpu.user + cpu.system) / 1000, authConfigMapMs };
}

const AUTH_CONFIGMAP_PATH = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";

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
  const tls: StartStop[] = [];
  for (let r = 0; r < warmup + reps; r++) {
    const f = await withDeadline(fakeOnce("plain"), 30_000, "fake start");
    const b = await withDeadline(bareOnce(), 30_000, "bare start");
    const k = await withDeadline(fakeOnce("kubelet"), 30_000, "fake+kubelet start");
    const p = await pkiOnce();
    const t = await withDeadline(fakeOnce("tls"), 30_000, "fake+tls start");
    if (r < warmup) continue;
    fake.push(f);
    bare.push(b);
    kubelet.push(k);
    pki.push(p);
    tls.push(t);
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
      cpuMedianMs: round(median(fake.map((x) => x.cpuMs ?? 0))),
      pkiMedianMs: round(median(pki)),
      firstAuthConfigMapGetMs: round(median(fake.map((x) => x.authConfigMapMs ?? 0))),
      tlsReadyMedianMs: round(median(ready(tls))),
      tlsCpuMedianMs: round(median(tls.map((x) => x.cpuMs ?? 0))),
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
    extra: {
      p90ReadyMs: round(percentile(ready(kubelet), 90)),
      cpuMedianMs: round(median(kubelet.map((x) => x.cpuMs ?? 0))),
      samples: ready(kubelet).map(round),
    },
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
