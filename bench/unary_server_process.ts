/**
 * The unary-request benches' kit: bench/http_unary_server.ts started in its own process (so its CPU is not the
 * client's) with a fresh CA and a serving certificate for 127.0.0.1, and the client side's workload — small POSTs and
 * GETs alternating, `inFlight` at a time, measured in this process's CPU time and wall time per request. Shared by
 * http_unary_cpu_bench.ts and tls_dial_bench.ts.
 * @module
 */
import process from "node:process";
import type { Http1Request, Http1Response } from "../runtime/http/http1_pool.ts";
import { createCA } from "../runtime/http/pki.ts";

/** What sends the requests: kubeop's pool or a transport (both answer an Http1Request with an Http1Response). */
export interface UnaryRequester {
  /** Sends one request and reads the whole answer. */
  request(req: Http1Request): Promise<Http1Response>;
}

const headers = { "Accept": "application/json", "User-Agent": "kubeop-bench", "Authorization": "Bearer token" };

/** This process's CPU time (user + system, all threads), ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Request `i`: a POST of `body` when even, else a GET; the answer must be 200 and JSON. */
export async function sendUnary(requester: UnaryRequester, base: string, i: number, body: string): Promise<void> {
  const post = i % 2 === 0;
  const res = await requester.request({
    method: post ? "POST" : "GET",
    url: new URL(`${base}/api/v1/namespaces/default/configmaps${post ? "" : "/bench"}`),
    headers: post ? { ...headers, "Content-Type": "application/json" } : headers,
    body: post ? body : undefined,
  });
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  JSON.parse(new TextDecoder().decode(res.body));
}

/** CPU µs and wall µs per request for `requests` requests, `inFlight` at a time. */
export async function measureUnary(
  requester: UnaryRequester,
  o: { base: string; requests: number; inFlight: number; body: string },
): Promise<{ cpu: number; wall: number }> {
  let next = 0;
  const worker = async () => {
    while (next < o.requests) await sendUnary(requester, o.base, next++, o.body);
  };
  const cpu = cpuMs();
  const wall = performance.now();
  await Promise.all(Array.from({ length: o.inFlight }, worker));
  return { cpu: ((cpuMs() - cpu) * 1000) / o.requests, wall: ((performance.now() - wall) * 1000) / o.requests };
}

/** A running unary server. */
export interface UnaryServerProcess {
  /** `https://127.0.0.1:<port>`. */
  base: string;
  /** The CA that signed its certificate. */
  caPEM: string;
  /** Kills the process and waits for it. */
  stop(): Promise<void>;
}

/**
 * Spawns the server and waits for its port.
 *
 * @example
 * ```ts
 * import { startUnaryServerProcess } from "./unary_server_process.ts";
 * const server = await startUnaryServerProcess();
 * const client = Deno.createHttpClient({ caCerts: [server.caPEM] });
 * try {
 *   const res = await fetch(`${server.base}/`, { client });
 *   await res.body?.cancel();
 *   console.assert(res.ok);
 * } finally {
 *   client.close();
 *   await server.stop();
 * }
 * ```
 */
export async function startUnaryServerProcess(): Promise<UnaryServerProcess> {
  const ca = await createCA({ commonName: "bench-ca" });
  const leaf = await ca.issue({ commonName: "127.0.0.1", hosts: ["127.0.0.1"], usage: "server" });
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", new URL("./http_unary_server.ts", import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = server.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(leaf)));
  await writer.close();
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const port = Number((await reader.read()).value?.trim());
  reader.releaseLock();
  return {
    base: `https://127.0.0.1:${port}`,
    caPEM: ca.certPEM,
    stop: async () => {
      server.kill();
      await server.status;
    },
  };
}
