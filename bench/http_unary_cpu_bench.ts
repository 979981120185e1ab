/**
 * CPU per unary request of KubeClient's transports: kubeop's HTTP/1.1 keep-alive pool (runtime/http/http1_pool.ts)
 * against Deno's fetch over an HTTP/1.1 `Deno.createHttpClient` (what the client used before, and still uses behind
 * a proxy). A TLS Deno.serve in another process answers a ~300-byte JSON object; this process sends small POSTs and
 * GETs, sequentially and 4 in flight, and measures its own CPU time (user + system, all threads) per request. The
 * two transports alternate round by round; the medians of the rounds are reported.
 *
 * Run: deno run --allow-all bench/http_unary_cpu_bench.ts [--full]
 * @module
 */

import process from "node:process";
import { type ApiTransport, directTransport, fetchTransport } from "../runtime/http/api_http_client.ts";
import { startUnaryServerProcess } from "./unary_server_process.ts";
import { fullMode, lowerIsBetter, median, recordResult, round } from "./result.ts";

const body = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "bench", namespace: "default", labels: { app: "bench" } },
  data: { key: "value".repeat(40) },
});
const headers = { "Accept": "application/json", "User-Agent": "kubeop-bench", "Authorization": "Bearer token" };

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function send(transport: ApiTransport, base: string, i: number): Promise<void> {
  const post = i % 2 === 0;
  const res = await transport.request({
    method: post ? "POST" : "GET",
    url: new URL(`${base}/api/v1/namespaces/default/configmaps${post ? "" : "/bench"}`),
    headers: post ? { ...headers, "Content-Type": "application/json" } : headers,
    body: post ? body : undefined,
  });
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  JSON.parse(new TextDecoder().decode(res.body));
}

/** CPU µs per request for `requests` requests, `inFlight` at a time. */
async function measure(transport: ApiTransport, base: string, requests: number, inFlight: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < requests) await send(transport, base, next++);
  };
  const start = cpuMs();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ((cpuMs() - start) * 1000) / requests;
}

if (import.meta.main) {
  const full = fullMode();
  const requests = full ? 10_000 : 3_000;
  const rounds = full ? 9 : 5;
  const server = await startUnaryServerProcess();
  const base = server.base;
  const make = { pool: () => directTransport({ caPEM: server.caPEM }) };
  // The fetch transport without a proxy: the implementation a proxied cluster uses, measured against the same server.
  const makeFetch = () => fetchTransport({ caPEM: server.caPEM });
  const samples: Record<string, number[]> = { "pool-seq": [], "fetch-seq": [], "pool-4": [], "fetch-4": [] };
  try {
    for (let r = 0; r < rounds + 1; r++) {
      const order = r % 2 === 0 ? ["pool", "fetch"] : ["fetch", "pool"];
      for (const kind of order) {
        const transport = kind === "pool" ? make.pool() : makeFetch();
        await measure(transport, base, 300, 4); // warm-up: connections and JIT
        const seq = await measure(transport, base, requests, 1);
        const par = await measure(transport, base, requests, 4);
        transport.close();
        if (r === 0) continue; // the first round warms the JIT for both
        samples[`${kind}-seq`].push(seq);
        samples[`${kind}-4`].push(par);
      }
    }
  } finally {
    await server.stop();
  }
  const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round(median(v))]));
  console.error(JSON.stringify({ medians: med, samples }));
  for (const mode of ["seq", "4"]) {
    const kubeop = med[`pool-${mode}`];
    const peer = med[`fetch-${mode}`];
    await recordResult({
      name: mode === "seq" ? "http-unary-cpu" : "http-unary-cpu-4",
      params: {
        requests,
        rounds,
        inFlight: mode === "seq" ? 1 : 4,
        tls: true,
        mix: "POST/GET alternating",
        mode: full ? "full" : "quick",
      },
      unit: "cpu µs/request",
      kubeop,
      peer,
      peerName: "deno-fetch",
      ratio: lowerIsBetter(kubeop, peer),
      extra: { samples: { pool: samples[`pool-${mode}`].map(round), fetch: samples[`fetch-${mode}`].map(round) } },
    });
  }
}
