/**
 * The HTTP transport of KubeClient's unary requests (client.ts); watches use http_transport.ts `openHttpStream`.
 *
 * By default requests go over kubeop's own HTTP/1.1 keep-alive pool ({@link Http1Pool}): fetch's Request, Headers
 * and ReadableStream layers cost ~0.2 ms of CPU per request, and an operator sends several per reconciled object.
 * The pool does not speak to proxies, so when any of `HTTPS_PROXY`, `https_proxy`, `HTTP_PROXY`, `http_proxy`,
 * `ALL_PROXY` or `all_proxy` is set the requests go through Deno's fetch instead, which honours them (and
 * `NO_PROXY`). Both speak HTTP/1.1 only, one connection per request in flight: under Deno's fetch, HTTP/2 (negotiated
 * by ALPN with kube-apiserver, every request multiplexed on one connection) cost more per request: client-go's write
 * loop redone with this client (3 creates, a status patch and an Event per Machine, 4 in flight, one kube-apiserver)
 * took 5.4–6.9 s and 0.79–0.94 CPU s per 400 Machines over HTTP/2, 4.7–5.0 s and 0.67–0.68 over HTTP/1.1
 * (bench/README.md).
 * @module
 */

import { Http1Pool, type Http1Request, type Http1Response } from "./http1_pool.ts";

/** Sends unary requests, reading each answer whole. */
export interface ApiTransport {
  /** Which implementation: kubeop's pool or Deno's fetch (proxy configured). */
  readonly kind: "pool" | "fetch";
  /** Sends one request; rejects with `signal.reason` on abort. */
  request(req: Http1Request): Promise<Http1Response>;
  /** Releases the connections; with `letInFlightFinish` the requests in flight complete first. */
  close(opts?: { letInFlightFinish?: boolean }): void;
  /** Opens a connection to `url`'s origin ahead of the first request (never rejects; fetch: nothing). */
  preconnect(url: URL): Promise<void>;
}

/** TLS material of the API server's origin. */
export interface ApiTlsOptions {
  /** CA trusted in addition to the default roots (PEM). */
  caPEM?: string;
  /** Client certificate and key (PEM). */
  clientCert?: { certPEM: string; keyPEM: string };
}

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];

/**
 * The proxy variable that sends requests through fetch, or undefined for kubeop's own pool (also when the
 * environment may not be read).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { proxyVariable } from "./api_http_client.ts";
 * assert.equal(proxyVariable({ get: (k) => (k === "https_proxy" ? "http://proxy:3128" : undefined) }), "https_proxy");
 * assert.equal(proxyVariable({ get: () => undefined }), undefined);
 * ```
 */
export function proxyVariable(env: { get(key: string): string | undefined } = Deno.env): string | undefined {
  for (const name of PROXY_VARIABLES) {
    try {
      if (env.get(name)) return name;
    } catch {
      return undefined; // no --allow-env: fetch would not see a proxy either
    }
  }
  return undefined;
}

/**
 * The transport for a cluster: kubeop's pool, or fetch when a proxy is configured (see the module doc).
 *
 * @example
 * ```ts ignore
 * const transport = createApiTransport({ caPEM });
 * const res = await transport.request({ method: "GET", url: new URL("https://10.0.0.1/version") });
 * ```
 */
export function createApiTransport(
  tls: ApiTlsOptions = {},
  env: { get(key: string): string | undefined } = Deno.env,
): ApiTransport {
  if (proxyVariable(env) !== undefined) return new FetchTransport(tls);
  const pool = new Http1Pool({
    tls: {
      caCerts: tls.caPEM ? [tls.caPEM] : undefined,
      cert: tls.clientCert?.certPEM,
      key: tls.clientCert?.keyPEM,
    },
  });
  return {
    kind: "pool",
    request: (req) => pool.request(req),
    close: (opts) => pool.close(opts),
    preconnect: (url) => pool.preconnect(url),
  };
}

/** Deno's fetch over an HTTP/1.1-only `Deno.createHttpClient`, for proxied clusters. */
class FetchTransport implements ApiTransport {
  readonly kind = "fetch";
  readonly #client: Deno.HttpClient;

  constructor(tls: ApiTlsOptions) {
    this.#client = Deno.createHttpClient({
      http1: true,
      http2: false,
      caCerts: tls.caPEM ? [tls.caPEM] : undefined,
      ...(tls.clientCert ? { cert: tls.clientCert.certPEM, key: tls.clientCert.keyPEM } : {}),
    } as Deno.CreateHttpClientOptions);
  }

  async request(req: Http1Request): Promise<Http1Response> {
    req.beforeWrite?.(); // fetch writes in its own time: the closest this path gets
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      client: this.#client,
    } as RequestInit);
    return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) };
  }

  preconnect(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {
    // Deno lets the requests in flight on a closed client finish.
    this.#client.close();
  }
}
