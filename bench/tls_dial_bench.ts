/**
 * The TLS dial of kubeop's HTTP/1.1 pool (runtime/http/tls_dial.ts): node:tls, which honours a kubeconfig's
 * `insecure-skip-tls-verify` and `tls-server-name` and accepts a self-signed certificate that is its own CA, against
 * Deno.connectTls (rustls), which does none of these. The same pool request loop as http_unary_cpu_bench.ts (small
 * POSTs and GETs against a TLS Deno.serve in another process), sequentially and 4 in flight, the two dials alternating
 * round by round; CPU (user + system, all threads of this process) and wall time per request, and the wall time of a
 * fresh connection's dial + first request. Medians of the rounds; `ratio` > 1 = node:tls ahead.
 *
 * Run: deno run --allow-all bench/tls_dial_bench.ts [--full]
 * @module
 */

import { Http1Pool } from "../runtime/http/http1_pool.ts";
import { measureUnary, sendUnary, startUnaryServerProcess } from "./unary_server_process.ts";
import { fullMode, lowerIsBetter, median, recordResult, round } from "./result.ts";

type Engine = "node" | "deno";
const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bench" }, data: { k: "v" } });
/** Wall ms of dial + handshake + first request on a fresh pool, median of `n`. */
async function firstRequestMs(make: () => Http1Pool, base: string, n: number): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const pool = make();
    const start = performance.now();
    await sendUnary(pool, base, 1, body);
    out.push(performance.now() - start);
    pool.close();
  }
  return median(out);
}

if (import.meta.main) {
  const full = fullMode();
  const requests = full ? 10_000 : 2_000;
  const rounds = full ? 9 : 5;
  const server = await startUnaryServerProcess();
  const base = server.base;
  const make = (engine: Engine) => () => new Http1Pool({ tls: { caCerts: [server.caPEM], engine } });
  const samples: Record<string, number[]> = {};
  const push = (key: string, v: number) => (samples[key] ??= []).push(v);
  try {
    for (let r = 0; r < rounds + 1; r++) {
      const order: Engine[] = r % 2 === 0 ? ["node", "deno"] : ["deno", "node"];
      for (const engine of order) {
        const pool = make(engine)();
        await measureUnary(pool, { base, requests: 300, inFlight: 4, body }); // warm-up: connections and JIT
        const seq = await measureUnary(pool, { base, requests, inFlight: 1, body });
        const par = await measureUnary(pool, { base, requests, inFlight: 4, body });
        pool.close();
        const first = await firstRequestMs(make(engine), base, 10);
        if (r === 0) continue; // the first round warms the JIT for both
        push(`${engine}-seq-cpu`, seq.cpu);
        push(`${engine}-seq-wall`, seq.wall);
        push(`${engine}-4-cpu`, par.cpu);
        push(`${engine}-4-wall`, par.wall);
        push(`${engine}-first-ms`, first);
      }
    }
  } finally {
    await server.stop();
  }
  const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round(median(v))]));
  console.error(JSON.stringify({ medians: med }));
  const rows: [string, string, string, Record<string, unknown>][] = [
    ["tls-dial-cpu", "seq-cpu", "cpu µs/request", { inFlight: 1 }],
    ["tls-dial-cpu-4", "4-cpu", "cpu µs/request", { inFlight: 4 }],
    ["tls-dial-wall", "seq-wall", "wall µs/request", { inFlight: 1 }],
    ["tls-dial-wall-4", "4-wall", "wall µs/request", { inFlight: 4 }],
    ["tls-dial-first-request", "first-ms", "ms", { note: "fresh pool: TCP + TLS handshake + one GET" }],
  ];
  for (const [name, key, unit, params] of rows) {
    const kubeop = med[`node-${key}`];
    const peer = med[`deno-${key}`];
    await recordResult({
      name,
      params: { ...params, requests, rounds, mode: full ? "full" : "quick", kubeop: "node:tls" },
      unit,
      kubeop,
      peer,
      peerName: "deno-connectTls",
      ratio: lowerIsBetter(kubeop, peer),
      extra: { samples: { node: samples[`node-${key}`].map(round), deno: samples[`deno-${key}`].map(round) } },
    });
  }
}
