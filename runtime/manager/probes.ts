/**
 * The manager's HTTP endpoints: `/healthz` (and `/livez`) say the process is alive, `/readyz` whether caches have
 * synced and watches are healthy (kube-apiserver's `[+]check ok` / `[-]check failed: reason` format), `/metrics`
 * the Prometheus text exposition. controller-runtime serves metrics and probes on two addresses (`:8080`,
 * `:8081`); the Manager runs one {@link EndpointsServer} for each. Both listen on node:http (node:https with TLS 1.2 or
 * later for `--metrics-secure`) so the header-read and idle deadlines of ../http/http_deadlines.ts apply: Deno.serve has
 * none (docs/http_timeouts.md).
 * @module
 */

import http from "node:http";
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ConnectionDeadlines } from "../http/http_deadlines.ts";
import { nodeFetchBridge } from "../http/node_fetch_bridge.ts";
import { listenTracked, type TrackedListener } from "../http/node_listen.ts";
import type { Logger } from "../observe/log.ts";
import type { CertKeyPEM } from "../http/pki.ts";
import { kubeopLogger } from "../observe/log.ts";
import type { Runnable } from "./runnable.ts";

/** One named check of a probe. */
export interface CheckResult {
  /** Check name, e.g. `informer-sync`. */
  name: string;
  /** Whether it passed. */
  ok: boolean;
  /** Why it failed (shown after `failed:`). */
  reason?: string;
  /** What a passing check wants operators to see (`[+]shards ok (idle: …)`; also after a bare `ok`). */
  detail?: string;
}

/** What a probe callback reports. */
export interface ProbeReport {
  /** Whether it passed. */
  ok: boolean;
  /** Every check, passing or not. */
  checks: CheckResult[];
}

/** Where /metrics reads from (runtime/observe/metrics.ts `Metrics` satisfies it). */
export interface MetricsSource {
  /** The exposition text. */
  render(): Promise<string>;
  /** Content-Type of {@link MetricsSource.render}. */
  readonly contentType: string;
}

/** A parsed bind address. */
export interface BindAddress {
  /** Interface to bind (0.0.0.0 for `:port`). */
  hostname: string;
  /** TCP port (0 = any free port). */
  port: number;
}

/**
 * Parses a kubebuilder-style bind address: `:8081` (all interfaces), `127.0.0.1:0`, `[::1]:8080`, `localhost:9090`.
 * `"0"` (and `""`) mean "disabled" and yield undefined. Throws a RangeError for anything else.
 */
export function parseBindAddress(address: string): BindAddress | undefined {
  const addr = address.trim();
  if (addr === "0" || addr === "") return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(addr);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) {
    throw new RangeError(`invalid bind address "${address}": want host:port, :port, or 0 to disable`);
  }
  return { hostname: m[1] ?? (m[2] || "0.0.0.0"), port };
}

/** Options of {@link EndpointsServer}. Each route exists only when its source is given. */
export interface EndpointsOptions {
  /** e.g. ":8081" (see {@link parseBindAddress}); "0" (disabled) is refused: check with parseBindAddress first. */
  bindAddress: string;
  /** `/healthz` and `/livez`. Given `true`, the process is alive whenever it answers. */
  liveness?: true | (() => ProbeReport);
  /** `/readyz`. */
  readiness?: () => ProbeReport;
  /** `/metrics`. */
  metrics?: MetricsSource;
  /** Serve HTTPS with this certificate (loaded when the server starts). Default plain HTTP. */
  tls?: () => Promise<CertKeyPEM>;
  /**
   * Guards `/metrics`: returns the response to send instead (401, 403), or undefined to serve it
   * (runtime/manager/metrics_auth.ts `MetricsAuthFilter` behind `--metrics-secure`). Probes are never guarded.
   */
  authorizeMetrics?: (req: Request) => Promise<Response | undefined>;
  /** Header-read and idle deadlines of connections (defaults in ../http/http_deadlines.ts). */
  deadlines?: ConnectionDeadlines;
  /** Where listening/failure lines go (default `kubeop.probes`). */
  logger?: Logger;
  /** Names the server in logs ("metrics", "health probe"). */
  name?: string;
}

export function renderReport(kind: string, report: ProbeReport, verbose: boolean): { status: number; body: string } {
  const details = report.checks.filter((c) => c.ok && c.detail).map((c) => `${c.name}: ${c.detail}`);
  if (report.ok && !verbose) return { status: 200, body: details.length ? `ok (${details.join("; ")})` : "ok" };
  const lines = report.checks.map((c) =>
    c.ok
      ? `[+]${c.name} ok${c.detail ? ` (${c.detail})` : ""}`
      : `[-]${c.name} failed: ${c.reason ?? "reason withheld"}`
  );
  lines.push(`${kind} check ${report.ok ? "passed" : "failed"}`);
  return { status: report.ok ? 200 : 500, body: lines.join("\n") + "\n" };
}

function text(status: number, body: string, contentType = "text/plain; charset=utf-8"): Response {
  return new Response(body, { status, headers: { "content-type": contentType, "x-content-type-options": "nosniff" } });
}

/**
 * Serves the probe and/or metrics routes on `bindAddress`: a {@link Runnable} of the Manager's servers group. It
 * listens when started, is ready once listening ({@link EndpointsServer.url} is then set), and closes the listener
 * when the start signal aborts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EndpointsServer } from "./probes.ts";
 * import { startRunnable } from "./runnable.ts";
 * const server = new EndpointsServer({
 *   bindAddress: "127.0.0.1:0",
 *   liveness: true,
 *   readiness: () => ({ ok: false, checks: [{ name: "informer-sync", ok: false, reason: "pods not synced" }] }),
 * });
 * const stop = new AbortController();
 * const run = startRunnable(server, stop.signal);
 * await run.ready;
 * const res = await fetch(`${server.url}/readyz`);
 * assert.ok(res.status === 500 && (await res.text()).includes("[-]informer-sync failed: pods not synced"));
 * stop.abort();
 * await run.done;
 * ```
 */
export class EndpointsServer implements Runnable {
  /** Names the server in logs ("metrics", "health probe"). */
  readonly name: string;
  /** Starts with the Manager's other HTTP servers, before the caches. */
  readonly group = "servers";
  readonly #opts: EndpointsOptions;
  readonly #bind: BindAddress;
  readonly #log: Logger;
  readonly #listening: Promise<void>;
  #listened: (addr: BindAddress) => void = () => {};
  #failed: (error: unknown) => void = () => {};
  #addr: BindAddress | undefined;
  #scheme: "http" | "https";

  /** Parses `bindAddress` (RangeError when invalid or "0"); listens only in {@link EndpointsServer.start}. */
  constructor(opts: EndpointsOptions) {
    const bind = parseBindAddress(opts.bindAddress);
    if (!bind) throw new RangeError(`${opts.name ?? "endpoints"} server: bind address "${opts.bindAddress}" is "0"`);
    this.name = opts.name ?? "endpoints";
    this.#opts = opts;
    this.#bind = bind;
    this.#log = opts.logger ?? kubeopLogger("probes");
    this.#scheme = opts.tls ? "https" : "http";
    this.#listening = new Promise<void>((resolve, reject) => {
      this.#listened = (addr) => {
        this.#addr = addr;
        resolve();
      };
      this.#failed = reject;
    });
    this.#listening.catch(() => {}); // start() reports the same error
  }

  /** The address actually bound (port 0 resolved), once listening. */
  get addr(): BindAddress | undefined {
    return this.#addr;
  }

  /** `http://host:port` or `https://…` (loopback substituted for a wildcard host), once listening. */
  get url(): string | undefined {
    const addr = this.#addr;
    if (!addr) return undefined;
    const host = addr.hostname === "0.0.0.0" || addr.hostname === "::" ? "127.0.0.1" : addr.hostname;
    return `${this.#scheme}://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
  }

  /** Resolves once listening; rejects when the address cannot be bound. */
  ready(): Promise<void> {
    return this.#listening;
  }

  /**
   * Listens until `signal` aborts, then stops accepting, lets the answers in flight finish and closes every
   * connection. Rejects when the address cannot be bound.
   */
  async start(signal: AbortSignal): Promise<void> {
    const { name } = this;
    let server: http.Server;
    let listener: TrackedListener;
    const inFlight = new Set<Promise<void>>();
    try {
      const tls = this.#opts.tls ? await this.#opts.tls() : undefined;
      // Stopped while the certificate was being made: never listen.
      if (signal.aborted) return;
      // Routes look at the path and query only: the host part is fixed, never the client's. No route reads a body:
      // one that was sent is never drained (the bridge answers, then closes the connection).
      const answer = nodeFetchBridge((req) => this.#handle(req), {
        scheme: this.#scheme,
        body: "none",
        onError: (err) => {
          this.#log.error("{name} server handler failed: {error}", { name, error: String(err) });
          return text(500, "internal error\n");
        },
      });
      const onRequest = (req: IncomingMessage, res: ServerResponse) => {
        const answering = answer(req, res);
        inFlight.add(answering);
        answering.finally(() => inFlight.delete(answering));
      };
      // node:http(s) rather than Deno.serve, which has no header-read or idle deadline (docs/http_timeouts.md).
      server = tls
        ? https.createServer({ cert: tls.certPEM, key: tls.keyPEM, minVersion: "TLSv1.2" }, onRequest)
        : http.createServer(onRequest);
      listener = await listenTracked(server, {
        hostname: this.#bind.hostname,
        port: this.#bind.port,
        deadlines: this.#opts.deadlines,
      });
    } catch (err) {
      const error = new Error(`${name} server: cannot listen on ${this.#opts.bindAddress}: ${(err as Error).message}`);
      this.#failed(error);
      throw error;
    }
    const addr = server.address() as AddressInfo;
    this.#log.info("{name} server listening on {scheme}://{hostname}:{port}", {
      name,
      scheme: this.#scheme,
      hostname: addr.address,
      port: listener.port,
    });
    this.#listened({ hostname: addr.address, port: listener.port });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    // As Deno.serve's graceful stop: accept nothing more, let the answers in flight finish, then close what is left.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections?.();
    while (inFlight.size > 0) await Promise.all([...inFlight]);
    listener.destroySockets();
    await closed;
  }

  async #handle(req: Request): Promise<Response> {
    const opts = this.#opts;
    const url = new URL(req.url);
    if (req.method !== "GET" && req.method !== "HEAD") return text(405, "method not allowed\n");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if ((path === "/healthz" || path === "/livez") && opts.liveness) {
      const live = opts.liveness;
      return this.#probe(
        path.slice(1),
        live === true ? () => ({ ok: true, checks: [{ name: "ping", ok: true }] }) : live,
        url,
      );
    }
    if (path === "/readyz" && opts.readiness) return this.#probe("readyz", opts.readiness, url);
    if (path === "/metrics" && opts.metrics) {
      const refused = await opts.authorizeMetrics?.(req);
      if (refused) return refused;
      try {
        return text(200, await opts.metrics.render(), opts.metrics.contentType);
      } catch (err) {
        return text(500, `collecting metrics failed: ${err}\n`);
      }
    }
    return text(404, "404 page not found\n");
  }

  #probe(kind: string, source: () => ProbeReport, url: URL): Response {
    let report: ProbeReport;
    try {
      report = source();
    } catch (err) {
      report = { ok: false, checks: [{ name: "probe", ok: false, reason: String(err) }] };
    }
    const { status, body } = renderReport(kind, report, url.searchParams.has("verbose"));
    if (status !== 200) this.#log.debug("{kind} failed: {body}", { kind, body });
    return text(status, body);
  }
}
