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

import { directTransport, fetchTransport } from "../runtime/http/api_http_client.ts";
import { measureUnary, startUnaryServerProcess } from "./unary_server_process.ts";
import { fullMode, lowerIsBetter, median, recordResult, round } from "./result.ts";

const body = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "bench", namespace: "default", labels: { app: "bench" } },
  data: { key: "value".repeat(40) },
});
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
        await measureUnary(transport, { base, requests: 300, inFlight: 4, body }); // warm-up: connections and JIT
        const seq = (await measureUnary(transport, { base, requests, inFlight: 1, body })).cpu;
        const par = (await measureUnary(transport, { base, requests, inFlight: 4, body })).cpu;
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
