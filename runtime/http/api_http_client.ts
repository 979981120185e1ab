/**
 * The HTTP transport of a cluster's KubeClient (client.ts): unary requests and watch streams alike, so the proxy
 * decision and the TLS options are made here once.
 *
 * Direct (no proxy for the API server: runtime/http/proxy.ts reads `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and
 * `NO_PROXY`), unary requests go over kubeop's own HTTP/1.1 keep-alive pool ({@link Http1Pool}) and watches over one
 * kubeop HTTP/1.1 connection each (http_transport.ts `openHttpStream`): fetch's Request, Headers and ReadableStream
 * layers cost ~0.2 ms of CPU per request, and its body reader returns one read per HTTP chunk. Through a proxy, both
 * go through Deno's fetch with a `Deno.createHttpClient` naming that proxy (CONNECT for https). Both speak HTTP/1.1
 * only, one connection per request in flight: under Deno's fetch, HTTP/2 (negotiated by ALPN with kube-apiserver,
 * every request multiplexed on one connection) cost more per request: client-go's write loop redone with this client
 * (3 creates, a status patch and an Event per Machine, 4 in flight, one kube-apiserver) took 5.4–6.9 s and 0.79–0.94
 * CPU s per 400 Machines over HTTP/2, 4.7–5.0 s and 0.67–0.68 over HTTP/1.1 (bench/README.md).
 * @module
 */

import { Http1Pool, type Http1Request, type Http1Response } from "./http1_pool.ts";
import type { TlsOptions } from "./http1_connection.ts";
import { type HttpStream, openHttpStream, readText } from "./http_transport.ts";
import { concatBytes } from "./bounded_body.ts";
import { type ProxyChoice, type ProxyEnv, proxyFor } from "./proxy.ts";
import { kubeopLogger } from "../observe/log.ts";
import { armSilenceDeadline, DEFAULT_SILENCE_TIMEOUT_MS } from "./silence_deadline.ts";

export { type ProxyChoice, type ProxyEnv, proxyFor } from "./proxy.ts";

/** A streaming request (a watch): the answer's body is read as it arrives. */
export interface ApiStreamRequest {
  /** Target. */
  url: URL;
  /** Request headers. */
  headers?: Record<string, string>;
  /** Aborting ends the request and the body. */
  signal?: AbortSignal;
}

/** Sends a cluster's requests: unary ones read whole, and streams. */
export interface ApiTransport {
  /** Which implementation: kubeop's own connections, or Deno's fetch through a proxy. */
  readonly kind: "pool" | "fetch";
  /** Sends one request; rejects with `signal.reason` on abort. */
  request(req: Http1Request): Promise<Http1Response>;
  /** Sends a GET and resolves with the response head; the body is read with {@link HttpStream.readBody}. */
  stream(req: ApiStreamRequest): Promise<HttpStream>;
  /** Releases the connections; with `letInFlightFinish` the requests in flight complete first. Streams are not cut. */
  close(opts?: { letInFlightFinish?: boolean }): void;
  /** Opens a connection to `url`'s origin ahead of the first request (never rejects; fetch: nothing). */
  preconnect(url: URL): Promise<void>;
  /**
   * The path to the server was found dead (a watch's connection was), and every connection went through it: closes the
   * parked keep-alive ones, so the next request dials afresh, and fails the requests in flight whose connection has
   * brought no byte for `quietMs` as presumed dead, rather than let each wait out its own deadline (25 s). Streams go
   * on (each has its own deadline). Fetch: nothing (its client offers neither).
   */
  pathPresumedDead(quietMs: number): void;
}

/** TLS of the API server's origin, from the kubeconfig: {@link clusterTls}. */
export interface ApiTlsOptions {
  /** The cluster's CA (PEM): the server's certificate must chain to it (or be it). */
  caPEM?: string;
  /** Client certificate and key (PEM). */
  clientCert?: { certPEM: string; keyPEM: string };
  /** `insecure-skip-tls-verify`: the server's certificate is not verified (node:tls dials; tls_dial.ts). */
  insecureSkipTLSVerify?: boolean;
  /** `tls-server-name`: the name the certificate is verified against, and SNI (node:tls dials; tls_dial.ts). */
  serverName?: string;
  /** Names the cluster in errors and in the skip-verify warning, e.g. `cluster "lab" of kubeconfig /path`. */
  cluster?: string;
}

/**
 * The one place a cluster's TLS options are built: the kubeconfig's (or in-cluster) CA, client certificate — an exec
 * plugin's when it hands one out — `insecure-skip-tls-verify` and `tls-server-name`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clusterTls } from "./api_http_client.ts";
 * const tls = clusterTls({ caPEM: "CA", certPEM: "C", keyPEM: "K", tlsServerName: "kubernetes" });
 * assert.deepEqual(tls, { caPEM: "CA", clientCert: { certPEM: "C", keyPEM: "K" }, serverName: "kubernetes" });
 * assert.deepEqual(clusterTls({ certPEM: "C", keyPEM: "K" }, { certPEM: "E", keyPEM: "F" }).clientCert, {
 *   certPEM: "E",
 *   keyPEM: "F",
 * });
 * ```
 */
export function clusterTls(
  config: {
    caPEM?: string;
    certPEM?: string;
    keyPEM?: string;
    insecureSkipTLSVerify?: boolean;
    tlsServerName?: string;
    clusterName?: string;
    source?: string;
  },
  execCert?: { certPEM: string; keyPEM: string },
): ApiTlsOptions {
  const tls: ApiTlsOptions = {};
  if (config.clusterName || config.source) {
    tls.cluster = [
      config.clusterName ? `cluster "${config.clusterName}"` : "the cluster",
      config.source ? `of kubeconfig ${config.source}` : "",
    ].filter(Boolean).join(" ");
  }
  if (config.caPEM) tls.caPEM = config.caPEM;
  const cert = execCert ??
    (config.certPEM && config.keyPEM ? { certPEM: config.certPEM, keyPEM: config.keyPEM } : undefined);
  if (cert) tls.clientCert = cert;
  if (config.insecureSkipTLSVerify) tls.insecureSkipTLSVerify = true;
  if (config.tlsServerName) tls.serverName = config.tlsServerName;
  return tls;
}

/** The options of kubeop's own TLS dial (tls_dial.ts) for `tls`. */
function dialOptions(tls: ApiTlsOptions): TlsOptions {
  const out: TlsOptions = {};
  if (tls.caPEM) out.caCerts = [tls.caPEM];
  if (tls.clientCert) {
    out.cert = tls.clientCert.certPEM;
    out.key = tls.clientCert.keyPEM;
  }
  if (tls.insecureSkipTLSVerify) out.insecureSkipVerify = true;
  if (tls.serverName) out.serverName = tls.serverName;
  if (tls.cluster) out.cluster = tls.cluster;
  return out;
}

/** Clusters warned about `insecure-skip-tls-verify` in this process: one line each. */
const warnedInsecure = new Set<string>();

/**
 * Logs, once per cluster and process, that its server's certificate is not verified.
 *
 * @example
 * ```ts
 * import { warnInsecureOnce } from "./api_http_client.ts";
 * warnInsecureOnce({ insecureSkipTLSVerify: true, cluster: 'cluster "lab"' }, new URL("https://10.0.0.1:6443"));
 * ```
 */
export function warnInsecureOnce(tls: ApiTlsOptions, server: URL): void {
  if (!tls.insecureSkipTLSVerify) return;
  const who = tls.cluster ?? `the cluster at ${server.host}`;
  if (warnedInsecure.has(`${who} ${server.host}`)) return;
  warnedInsecure.add(`${who} ${server.host}`);
  kubeopLogger("client").warn(
    `insecure-skip-tls-verify is set for ${who}: the certificate of ${server.host} is not verified ` +
      `(anyone on the path can read and change this traffic)`,
  );
}

/** What {@link createApiTransport} builds a transport for. */
export interface ApiTransportOptions {
  /** The API server (its scheme and host decide the proxy). */
  server: URL;
  /** Its TLS ({@link clusterTls}). */
  tls?: ApiTlsOptions;
  /** Where the proxy variables are read (default the process environment). */
  env?: ProxyEnv;
}

/**
 * The transport for a cluster — the one place that decides: direct over kubeop's own connections, or through the
 * proxy the environment names for the server (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createApiTransport } from "./api_http_client.ts";
 * const server = new URL("https://10.0.0.1:6443");
 * const direct = createApiTransport({ server, env: { get: () => undefined } });
 * const proxied = createApiTransport({ server, env: { get: (k) => (k === "HTTPS_PROXY" ? "proxy:3128" : undefined) } });
 * assert.deepEqual([direct.kind, proxied.kind], ["pool", "fetch"]);
 * direct.close();
 * proxied.close();
 * ```
 */
export function createApiTransport(opts: ApiTransportOptions): ApiTransport {
  const tls = opts.tls ?? {};
  const proxy = proxyFor(opts.server, opts.env);
  if (proxy) refuseUnproxiable(tls, opts.server, proxy);
  warnInsecureOnce(tls, opts.server);
  return proxy ? fetchTransport(tls, proxy) : directTransport(tls);
}

/**
 * Throws when `tls` asks for what the proxied path (Deno's fetch, which always verifies against the URL's host)
 * cannot do: `insecure-skip-tls-verify` or `tls-server-name` with a proxy applying to the server.
 */
function refuseUnproxiable(tls: ApiTlsOptions, server: URL, proxy: ProxyChoice): void {
  const fields = [
    tls.insecureSkipTLSVerify ? "insecure-skip-tls-verify" : "",
    tls.serverName ? "tls-server-name" : "",
  ].filter(Boolean);
  if (fields.length === 0) return;
  throw new Error(
    `${fields.join(" and ")} of ${tls.cluster ?? `the cluster at ${server.host}`} cannot be honoured through ` +
      `the proxy ${proxy.variable} names (requests through a proxy use Deno's fetch, which verifies the ` +
      `certificate against the URL's host): add ${server.hostname} to NO_PROXY to reach it directly, or drop ` +
      `${fields.join(" and ")} and put the CA that signs a certificate naming ${server.hostname} in ` +
      `certificate-authority-data`,
  );
}

/**
 * kubeop's own HTTP/1.1: a keep-alive pool for unary requests, a connection of its own per stream.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { directTransport } from "./api_http_client.ts";
 * const cluster = await startFakeApiServer({ tls: true }); // HTTPS with its own CA
 * const transport = directTransport({ caPEM: cluster.caPEM });
 * const res = await transport.request({ method: "GET", url: new URL("/version", cluster.url) });
 * assert.equal(res.status, 200);
 * transport.close();
 * await cluster.stop();
 * ```
 */
export function directTransport(tls: ApiTlsOptions = {}): ApiTransport {
  const dial = dialOptions(tls);
  const pool = new Http1Pool({ tls: dial });
  return {
    kind: "pool",
    request: (req) => pool.request(req),
    stream: (req) => openHttpStream({ ...req, tls: req.url.protocol === "https:" ? dial : undefined }),
    close: (opts) => pool.close(opts),
    preconnect: (url) => pool.preconnect(url),
    pathPresumedDead: (quietMs) => void pool.presumeDead(quietMs),
  };
}

/**
 * Deno's fetch over an HTTP/1.1-only `Deno.createHttpClient` through `proxy` (none: direct, for measurements).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { fetchTransport } from "./api_http_client.ts";
 * import { proxyFor } from "./proxy.ts";
 * const cluster = await startFakeApiServer({ tls: true });
 * const env = { get: (name: string) => name === "HTTPS_PROXY" ? "proxy.example:3128" : undefined };
 * const proxy = proxyFor(new URL("https://10.0.0.1:6443"), env); // what the environment says for that server
 * assert.equal(proxy?.url.href, "http://proxy.example:3128/"); // fetchTransport({ caPEM }, proxy) goes through it
 * const transport = fetchTransport({ caPEM: cluster.caPEM }); // no proxy: direct, as benchmarks measure it
 * const res = await transport.request({ method: "GET", url: new URL("/version", cluster.url) });
 * assert.equal(res.status, 200);
 * transport.close();
 * await cluster.stop();
 * ```
 */
export function fetchTransport(
  tls: ApiTlsOptions = {},
  proxy?: ProxyChoice,
  opts: { silenceTimeoutMs?: number } = {},
): ApiTransport {
  return new FetchTransport(tls, proxy, opts.silenceTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS);
}

class FetchTransport implements ApiTransport {
  readonly kind = "fetch";
  readonly #client: Deno.HttpClient;
  readonly #silenceMs: number;

  constructor(tls: ApiTlsOptions, proxy: ProxyChoice | undefined, silenceMs: number) {
    this.#silenceMs = silenceMs;
    this.#client = Deno.createHttpClient({
      http1: true,
      http2: false,
      caCerts: tls.caPEM ? [tls.caPEM] : undefined,
      ...(tls.clientCert ? { cert: tls.clientCert.certPEM, key: tls.clientCert.keyPEM } : {}),
      ...(proxy ? { proxy: denoProxy(proxy.url) } : {}),
    } as Deno.CreateHttpClientOptions);
  }

  async request(req: Http1Request): Promise<Http1Response> {
    req.beforeWrite?.(); // fetch writes in its own time: the closest this path gets
    // The same dead-connection deadline as the pool's (silence_deadline.ts): progress is the head, then each chunk.
    const dead = new AbortController();
    let lastProgressAt = 0;
    const silence = armSilenceDeadline(this.#silenceMs, () => lastProgressAt, () => dead.abort());
    const signal = req.signal ? AbortSignal.any([req.signal, dead.signal]) : dead.signal;
    try {
      const res = await fetch(req.url, {
        method: req.method,
        headers: uncompressed(req.headers),
        body: req.body,
        signal,
        client: this.#client,
      } as RequestInit);
      lastProgressAt = performance.now();
      const parts: Uint8Array[] = [];
      const reader = res.body?.getReader();
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        lastProgressAt = performance.now();
        parts.push(chunk.value);
      }
      return { status: res.status, headers: res.headers, body: concatBytes(parts) };
    } catch (err) {
      if (silence.fired && !req.signal?.aborted) throw silence.fired;
      throw err;
    } finally {
      silence.stop();
    }
  }

  async stream(req: ApiStreamRequest): Promise<HttpStream> {
    const ended = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, ended.signal]) : ended.signal;
    const res = await fetch(
      req.url,
      { headers: uncompressed(req.headers), signal, client: this.#client } as RequestInit,
    );
    return fetchStream(res, () => ended.abort(new Error("stream closed")), req.signal);
  }

  preconnect(): Promise<void> {
    return Promise.resolve();
  }

  pathPresumedDead(): void {
    // Deno's HTTP client offers no way to close only its idle connections; its requests keep their own deadlines.
  }

  close(): void {
    // Deno lets the requests in flight on a closed client finish.
    this.#client.close();
  }
}

/**
 * `headers` asking for no compression, as the pool asks for none: kube-apiserver gzips a watch one member per flush,
 * and Deno's fetch ends a body after its first gzip member unless the next is already buffered (a proxied watch
 * stopped after one batch of events).
 */
function uncompressed(headers: Record<string, string> | undefined): Record<string, string> {
  return { ...headers, "accept-encoding": "identity" };
}

/** A fetch Response as an {@link HttpStream}. */
function fetchStream(res: Response, abort: () => void, signal: AbortSignal | undefined): HttpStream {
  let consumed = false;
  const readBody = async (onData: (bytes: Uint8Array) => void): Promise<void> => {
    if (consumed) throw new Error("body already read");
    consumed = true;
    const reader = res.body?.getReader();
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) return;
        onData(chunk.value);
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw err;
    } finally {
      abort();
    }
  };
  const text = (maxBytes?: number) => readText(readBody, maxBytes);
  return { status: res.status, headers: res.headers, readBody, text, close: abort };
}

/** Deno's proxy option for `url`: credentials in the URL become basic auth (and leave the URL). */
function denoProxy(url: URL): Deno.Proxy {
  const bare = new URL(url.href);
  bare.username = "";
  bare.password = "";
  const basicAuth = url.username
    ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
    : undefined;
  return { url: bare.href.replace(/\/$/, ""), ...(basicAuth ? { basicAuth } : {}) };
}
