/**
 * The webhook server (controller-runtime's `webhook.Server`): a {@link Runnable} of the Manager's servers group that
 * serves HTTPS (TLS 1.2 or later) on `--webhook-bind-address` and routes POSTed AdmissionReviews and
 * ConversionReviews by path to their handlers. It is ready once it listens with a certificate, so the Manager — which
 * starts the caches only after every server is ready — never reports ready while kube-apiserver could not reach it.
 * Built on node:https because Deno.serve can neither swap certificates without a restart nor bound header reads;
 * certificates come from a {@link ServingCertSource} (self-managed or `--webhook-cert-dir`) and are swapped in on
 * rotation. With `clientCAFile` (`--webhook-client-ca`) the handshake requires a client certificate that CA signed.
 * Bad requests never reach a handler: wrong method 405, unknown path 404, not JSON 400, too large 413; a
 * handler that misses the request's deadline (kube-apiserver's `?timeout=`, capped) is answered 504. On stop it
 * accepts nothing more and lets the reviews in flight finish for a bounded grace.
 * @module
 */
import https from "node:https";
import { type Clock, RealClock } from "../clock.ts";
import { parseGoDuration } from "../apimachinery/go_duration.ts";
import type { ConnectionDeadlines } from "../http/http_deadlines.ts";
import { nodeFetchBridge } from "../http/node_fetch_bridge.ts";
import { kubeopLogger, type Logger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import { listenTracked, type TrackedListener } from "../http/node_listen.ts";
import type { CertKeyPEM } from "../http/pki.ts";
import { type BindAddress, parseBindAddress } from "../manager/probes.ts";
import type { Runnable } from "../manager/runnable.ts";
import type { ReviewAnswer } from "./admission.ts";
import { type WebhookMetrics, webhookMetrics } from "./webhook_metrics.ts";
import { type AuthMetrics, authMetrics } from "../observe/auth_metrics.ts";

/** One path the server answers. */
export interface WebhookRoute {
  /** e.g. `/validate-example-com-v1-widget`. */
  readonly path: string;
  /**
   * Answers one decoded JSON body; `signal` aborts at the request's deadline, or when the server stops and its
   * shutdown grace is over.
   */
  serve(body: unknown, signal: AbortSignal): Promise<ReviewAnswer>;
}

/** Where the serving certificate comes from: self-managed (./self_managed_certs.ts) or files (./cert_dir.ts). */
export interface ServingCertSource {
  /** The first certificate (chain PEM + key); the server listens once it has one. */
  initial(signal: AbortSignal): Promise<CertKeyPEM>;
  /** Runs until `signal` aborts, calling `onChange` with every later certificate (rotation, file change). */
  watch(signal: AbortSignal, onChange: (cert: CertKeyPEM) => void): Promise<void>;
}

/** Options of {@link WebhookServer}. */
export interface WebhookServerOptions {
  /** e.g. `:9443` (see parseBindAddress); tests use `127.0.0.1:0`. */
  bindAddress: string;
  /** The serving certificate. */
  certificates: ServingCertSource;
  /** Paths served (more can be added before start with {@link WebhookServer.register}). */
  routes?: WebhookRoute[];
  /** Registry the webhook metrics go to (default: a private one). */
  metrics?: Metrics;
  /** Deadlines use it (default real time). */
  clock?: Clock;
  /** Largest request body, bytes (default 7 MiB, controller-runtime's limit). */
  maxBodyBytes?: number;
  /** Handler deadline when the request has no `?timeout=` (default 10 s, kube-apiserver's default timeoutSeconds). */
  defaultTimeoutMs?: number;
  /** Upper bound of a request's deadline (default 30 s, the largest timeoutSeconds kube-apiserver accepts). */
  maxTimeoutMs?: number;
  /** Header-read and idle deadlines of connections (../http/http_deadlines.ts). */
  deadlines?: ConnectionDeadlines;
  /** On stop, how long reviews in flight may finish before their connections are cut (default 5 s). */
  shutdownGraceMs?: number;
  /** Default `kubeop.webhook`. */
  logger?: Logger;
  /**
   * `--webhook-client-ca` (controller-runtime's ClientCAName): PEM file of the CA that signs kube-apiserver's client
   * certificate. When set, the TLS handshake requires a client certificate chained to it: a caller without one gets
   * no answer at all (the handshake fails; nothing is read). Read once at start. Default: no client certificate asked.
   */
  clientCAFile?: string;
  /**
   * Runs first on every request's head (method, URL, headers): a Response refuses it before its body is read
   * (`--webhook-token-audience`: ./webhook_token.ts). Default: none.
   */
  authenticate?: (head: Request) => Promise<Response | undefined>;
}

/** Default body limit (controller-runtime's webhook `maxRequestSize`). */
export const DEFAULT_WEBHOOK_MAX_BODY_BYTES = 7 * 1024 * 1024;

/** A JSON answer, or a plain-text one for a string. */
function reply(status: number, body: unknown): Response {
  const json = typeof body !== "string";
  return new Response(json ? JSON.stringify(body) : `${body}\n`, {
    status,
    headers: {
      "content-type": json ? "application/json" : "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
    },
  });
}

/**
 * Serves admission and conversion webhooks over HTTPS.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCA } from "../http/pki.ts";
 * import { startRunnable } from "../manager/runnable.ts";
 * import { WebhookServer } from "./server.ts";
 * const ca = await createCA({ commonName: "test-ca" });
 * const leaf = await ca.issue({ commonName: "webhook", hosts: ["127.0.0.1"], usage: "server" });
 * const server = new WebhookServer({
 *   bindAddress: "127.0.0.1:0",
 *   certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
 *   routes: [{ path: "/echo", serve: (body) => Promise.resolve({ status: 200, body }) }],
 * });
 * const stop = new AbortController();
 * const run = startRunnable(server, stop.signal);
 * await run.ready;
 * const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
 * const res = await fetch(`${server.url}/echo`, {
 *   method: "POST", headers: { "content-type": "application/json" }, body: "{\"a\":1}", client,
 * });
 * assert.deepEqual(await res.json(), { a: 1 });
 * client.close();
 * stop.abort();
 * await run.done;
 * ```
 */
export class WebhookServer implements Runnable {
  /** "webhook". */
  readonly name = "webhook";
  /** Starts with the Manager's other servers, before the caches. */
  readonly group = "servers";
  readonly #opts: WebhookServerOptions;
  readonly #bind: BindAddress;
  readonly #routes = new Map<string, WebhookRoute>();
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #metrics: WebhookMetrics | undefined;
  readonly #authMetrics: AuthMetrics | undefined;
  readonly #listening: Promise<void>;
  #listened: () => void = () => {};
  #failed: (error: unknown) => void = () => {};
  #port: number | undefined;
  #started = false;
  readonly #inFlight = new Set<Promise<void>>();

  /** Parses `bindAddress` (RangeError when invalid or "0"); listens only in {@link WebhookServer.start}. */
  constructor(opts: WebhookServerOptions) {
    const bind = parseBindAddress(opts.bindAddress);
    if (!bind) throw new RangeError(`webhook server: bind address "${opts.bindAddress}" is "0" (disabled)`);
    this.#opts = opts;
    this.#bind = bind;
    this.#clock = opts.clock ?? new RealClock();
    this.#log = opts.logger ?? kubeopLogger("webhook");
    this.#metrics = opts.metrics ? webhookMetrics(opts.metrics.registry) : undefined;
    this.#authMetrics = opts.metrics ? authMetrics(opts.metrics.registry) : undefined;
    for (const route of opts.routes ?? []) this.register(route);
    this.#listening = new Promise<void>((resolve, reject) => {
      this.#listened = resolve;
      this.#failed = reject;
    });
    this.#listening.catch(() => {}); // start() reports the same error
  }

  /** Adds a path (before start). Throws when the path is taken. */
  register(route: WebhookRoute): this {
    if (this.#started) throw new Error(`webhook server: register(${route.path}) after start`);
    if (!route.path.startsWith("/")) throw new Error(`webhook server: path ${route.path} must start with "/"`);
    if (this.#routes.has(route.path)) throw new Error(`webhook server: path ${route.path} is registered twice`);
    this.#routes.set(route.path, route);
    return this;
  }

  /** The registered paths. */
  get paths(): string[] {
    return [...this.#routes.keys()];
  }

  /** `https://host:port` (loopback for a wildcard host), once listening. */
  get url(): string | undefined {
    if (this.#port === undefined) return undefined;
    const host = this.#bind.hostname === "0.0.0.0" || this.#bind.hostname === "::" ? "127.0.0.1" : this.#bind.hostname;
    return `https://${host.includes(":") ? `[${host}]` : host}:${this.#port}`;
  }

  /** Resolves once listening with a certificate; rejects when it cannot. */
  ready(): Promise<void> {
    return this.#listening;
  }

  /**
   * With a client CA, counts handshakes in kube's authentication_attempts: `success` for a verified client
   * certificate, `failure` for none, `error` for any other failed handshake (an untrusted certificate, or a client
   * that broke off: the TLS layer does not tell them apart).
   */
  #countHandshakes(server: https.Server): void {
    const attempts = this.#authMetrics?.attempts;
    server.on("secureConnection", () => attempts?.inc({ result: "success" }));
    server.on("tlsClientError", (err: Error & { code?: string }) => {
      const none = err.code === "ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE";
      attempts?.inc({ result: none ? "failure" : "error" });
      this.#log.debug("webhook server: TLS handshake refused: {error}", { error: err.message });
    });
  }

  /** Obtains the certificate, listens until `signal` aborts, swapping certificates as the source rotates them. */
  async start(signal: AbortSignal): Promise<void> {
    this.#started = true;
    for (const path of this.#routes.keys()) {
      this.#metrics?.requests.inc({ webhook: path, code: 200 }, 0);
      this.#metrics?.inFlight.inc({ webhook: path }, 0);
    }
    let server: https.Server;
    let listener: TrackedListener;
    // Aborts the handlers still running when the shutdown grace is over (not at the stop signal: they may finish).
    const hardStop = new AbortController();
    let cert: CertKeyPEM;
    try {
      cert = await this.#opts.certificates.initial(signal);
    } catch (err) {
      const error = new Error(
        `webhook server: no serving certificate: ${(err as Error).message} ` +
          `(kubeop run without webhooks: --webhook-bind-address=0)`,
      );
      this.#failed(error);
      throw error;
    }
    if (signal.aborted) return;
    let clientCAPEM: string | undefined;
    if (this.#opts.clientCAFile !== undefined) {
      try {
        clientCAPEM = await Deno.readTextFile(this.#opts.clientCAFile);
      } catch (err) {
        const error = new Error(`webhook server: cannot read --webhook-client-ca ${this.#opts.clientCAFile}: ${err}`);
        this.#failed(error);
        throw error;
      }
    }
    // With a client CA the handshake itself refuses callers without a certificate it signed (Go's
    // tls.RequireAndVerifyClientCert, which controller-runtime sets for ClientCAName).
    const secure = (pair: CertKeyPEM) => ({
      cert: pair.certPEM,
      key: pair.keyPEM,
      minVersion: "TLSv1.2" as const,
      ...(clientCAPEM ? { ca: clientCAPEM, requestCert: true, rejectUnauthorized: true } : {}),
    });
    try {
      const maxBytes = this.#opts.maxBodyBytes ?? DEFAULT_WEBHOOK_MAX_BODY_BYTES;
      // Bad requests are refused from the head (the body unread, the connection closed); a body past the bound too.
      const answer = nodeFetchBridge((request) => this.#serve(request, hardStop.signal), {
        scheme: "https",
        host: "webhook.invalid",
        body: { maxBytes },
        admit: async (head) => (await this.#opts.authenticate?.(head)) ?? this.#admit(head),
        tooLarge: (head) => {
          this.#metrics?.requests.inc({ webhook: new URL(head.url).pathname, code: 413 });
          return reply(413, `request body larger than ${maxBytes} bytes`);
        },
        onError: (err) => {
          this.#log.error("webhook: answering failed: {error}", { error: String(err) });
          return reply(500, "internal error");
        },
      });
      server = https.createServer(secure(cert), (req, res) => {
        const serving = answer(req, res);
        this.#inFlight.add(serving);
        serving.finally(() => this.#inFlight.delete(serving));
      });
      if (clientCAPEM) this.#countHandshakes(server);
      listener = await listenTracked(server, {
        hostname: this.#bind.hostname,
        port: this.#bind.port,
        deadlines: this.#opts.deadlines,
      });
    } catch (err) {
      const error = new Error(`webhook server: cannot listen on ${this.#opts.bindAddress}: ${(err as Error).message}`);
      this.#failed(error);
      throw error;
    }
    this.#port = listener.port;
    this.#log.info("webhook server listening on https://{hostname}:{port} ({paths})", {
      hostname: this.#bind.hostname,
      port: this.#port,
      paths: this.paths.join(", "),
    });
    this.#listened();
    const watching = this.#opts.certificates.watch(signal, (cert) => {
      server.setSecureContext(secure(cert));
      this.#log.info("webhook server: serving certificate replaced");
    }).catch((err) => {
      // The current certificate keeps being served; rotation stopped, which the log must say.
      this.#log.error("webhook server: certificate rotation stopped: {error}", { error: String(err) });
    });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    // Stop accepting, let the reviews in flight finish (bounded), then cut what is left.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections?.();
    await this.#drain(this.#opts.shutdownGraceMs ?? 5_000);
    hardStop.abort(new Error("webhook server stopped"));
    server.closeAllConnections?.();
    listener.destroySockets();
    await closed;
    await watching;
  }

  /** Resolves when no review is in flight, or after `graceMs` on the clock. */
  async #drain(graceMs: number): Promise<void> {
    if (this.#inFlight.size === 0) return;
    let cancel = () => {};
    const graceOver = new Promise<void>((resolve) => cancel = this.#clock.setTimer(graceMs, resolve));
    const drained = (async () => {
      while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    })();
    await Promise.race([drained, graceOver]);
    cancel();
  }

  /** Refuses, from the request's head alone, what no handler should see: unknown path, wrong method, not JSON. */
  #admit(head: Request): Response | undefined {
    const path = new URL(head.url).pathname;
    if (!this.#routes.has(path)) return reply(404, `no webhook is served at ${path}`);
    const labels = { webhook: path };
    if (head.method !== "POST") {
      this.#metrics?.requests.inc({ ...labels, code: 405 });
      return reply(405, `${head.method} is not allowed: POST a review`);
    }
    const contentType = (head.headers.get("content-type") ?? "").split(";")[0].trim();
    if (contentType !== "application/json") {
      this.#metrics?.requests.inc({ ...labels, code: 400 });
      return reply(400, `contentType=${contentType || "(none)"}, expected application/json`);
    }
    return undefined;
  }

  /** Answers one admitted review (its body read whole, within the bound), with metrics. */
  async #serve(request: Request, stop: AbortSignal): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    const route = this.#routes.get(path);
    if (!route) return reply(404, `no webhook is served at ${path}`); // admitted routes only; kept for the types
    const labels = { webhook: path };
    const startedMs = this.#clock.nowMonotonic();
    this.#metrics?.inFlight.inc(labels);
    let response: Response;
    try {
      response = await this.#answer(request, url, route, stop);
    } catch (err) {
      this.#log.error("webhook {path}: answering failed: {error}", { path, error: String(err) });
      response = reply(500, "internal error");
    } finally {
      this.#metrics?.inFlight.dec(labels);
      this.#metrics?.latency.observe(labels, (this.#clock.nowMonotonic() - startedMs) / 1000);
    }
    this.#metrics?.requests.inc({ webhook: path, code: response.status });
    return response;
  }

  /** Decodes and answers one review. */
  async #answer(request: Request, url: URL, route: WebhookRoute, stop: AbortSignal): Promise<Response> {
    const raw = new Uint8Array(await request.arrayBuffer());
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
    } catch (err) {
      return reply(400, `the request body is not JSON: ${(err as Error).message}`);
    }
    const timeoutMs = this.#timeoutMs(url);
    const deadline = new AbortController();
    const onStop = () => deadline.abort(stop.reason);
    stop.addEventListener("abort", onStop, { once: true });
    let cancelTimer = () => {};
    const timedOut = new Promise<"timeout">((resolve) =>
      cancelTimer = this.#clock.setTimer(timeoutMs, () => {
        deadline.abort(new DOMException(`deadline of ${timeoutMs} ms exceeded`, "TimeoutError"));
        resolve("timeout");
      })
    );
    try {
      const serving = route.serve(body, deadline.signal);
      serving.catch(() => {}); // a handler failing after its deadline has nobody left to answer
      const answer = await Promise.race([serving, timedOut]);
      if (answer === "timeout") return reply(504, `${route.path}: the handler did not answer within ${timeoutMs} ms`);
      return reply(answer.status, answer.body);
    } finally {
      cancelTimer();
      stop.removeEventListener("abort", onStop);
    }
  }

  /** kube-apiserver's `?timeout=10s`, capped; the default without one. */
  #timeoutMs(url: URL): number {
    const max = this.#opts.maxTimeoutMs ?? 30_000;
    const given = url.searchParams.get("timeout");
    let ms = this.#opts.defaultTimeoutMs ?? 10_000;
    if (given) {
      try {
        ms = parseGoDuration(given);
      } catch { /* a bad timeout parameter keeps the default */ }
    }
    return Math.min(Math.max(ms, 1), max);
  }
}
