/**
 * The manager's HTTP endpoints: `/healthz` (and `/livez`) say the process is alive, `/readyz` whether caches have
 * synced and watches are healthy (kube-apiserver's `[+]check ok` / `[-]check failed: reason` format), `/metrics`
 * the Prometheus text exposition. controller-runtime serves metrics and probes on two addresses (`:8080`,
 * `:8081`); {@link serveEndpoints} is called once for each.
 * @module
 */

import type { Logger } from "./log.ts";
import { kubeopLogger } from "./log.ts";

/** One named check of a probe. */
export interface CheckResult {
  /** Check name, e.g. `informer-sync`. */
  name: string;
  /** Whether it passed. */
  ok: boolean;
  /** Why it failed (shown after `failed:`). */
  reason?: string;
}

/** What a probe callback reports. */
export interface ProbeReport {
  /** Whether it passed. */
  ok: boolean;
  /** Every check, passing or not. */
  checks: CheckResult[];
}

/** Where /metrics reads from (runtime/metrics.ts `Metrics` satisfies it). */
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

/** Options of {@link serveEndpoints}. Each route exists only when its source is given. */
export interface EndpointsOptions {
  /** e.g. ":8081"; "0" disables the server (then {@link serveEndpoints} returns undefined). */
  bindAddress: string;
  /** `/healthz` and `/livez`. Given `true`, the process is alive whenever it answers. */
  liveness?: true | (() => ProbeReport);
  /** `/readyz`. */
  readiness?: () => ProbeReport;
  /** `/metrics`. */
  metrics?: MetricsSource;
  /** Where listening/failure lines go (default `kubeop.probes`). */
  logger?: Logger;
  /** Names the server in logs ("metrics", "health probe"). */
  name?: string;
}

/** A running endpoints server. */
export interface EndpointsServer {
  /** The address actually bound (port 0 resolved). */
  readonly addr: BindAddress;
  /** `http://host:port` (loopback substituted for a wildcard host). */
  readonly url: string;
  /** Stops accepting connections and closes the listener. */
  shutdown(): Promise<void>;
}

function renderReport(kind: string, report: ProbeReport, verbose: boolean): { status: number; body: string } {
  if (report.ok && !verbose) return { status: 200, body: "ok" };
  const lines = report.checks.map((c) =>
    c.ok ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.reason ?? "reason withheld"}`
  );
  lines.push(`${kind} check ${report.ok ? "passed" : "failed"}`);
  return { status: report.ok ? 200 : 500, body: lines.join("\n") + "\n" };
}

function text(status: number, body: string, contentType = "text/plain; charset=utf-8"): Response {
  return new Response(body, { status, headers: { "content-type": contentType, "x-content-type-options": "nosniff" } });
}

/**
 * Serves the probe and/or metrics routes on `bindAddress`; undefined when the address is "0".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveEndpoints } from "./probes.ts";
 * const server = (await serveEndpoints({
 *   bindAddress: "127.0.0.1:0",
 *   liveness: true,
 *   readiness: () => ({ ok: false, checks: [{ name: "informer-sync", ok: false, reason: "pods not synced" }] }),
 * }))!;
 * const res = await fetch(`${server.url}/readyz`);
 * assert.ok(res.status === 500 && (await res.text()).includes("[-]informer-sync failed: pods not synced"));
 * await server.shutdown();
 * ```
 */
export function serveEndpoints(opts: EndpointsOptions): Promise<EndpointsServer | undefined> {
  const bind = parseBindAddress(opts.bindAddress);
  if (!bind) return Promise.resolve(undefined);
  const log = opts.logger ?? kubeopLogger("probes");
  const name = opts.name ?? "endpoints";

  const probe = (kind: string, source: () => ProbeReport, url: URL): Response => {
    let report: ProbeReport;
    try {
      report = source();
    } catch (err) {
      report = { ok: false, checks: [{ name: "probe", ok: false, reason: String(err) }] };
    }
    const { status, body } = renderReport(kind, report, url.searchParams.has("verbose"));
    if (status !== 200) log.debug("{kind} failed: {body}", { kind, body });
    return text(status, body);
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (req.method !== "GET" && req.method !== "HEAD") return text(405, "method not allowed\n");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if ((path === "/healthz" || path === "/livez") && opts.liveness) {
      const live = opts.liveness;
      return probe(
        path.slice(1),
        live === true ? () => ({ ok: true, checks: [{ name: "ping", ok: true }] }) : live,
        url,
      );
    }
    if (path === "/readyz" && opts.readiness) return probe("readyz", opts.readiness, url);
    if (path === "/metrics" && opts.metrics) {
      try {
        return text(200, await opts.metrics.render(), opts.metrics.contentType);
      } catch (err) {
        return text(500, `collecting metrics failed: ${err}\n`);
      }
    }
    return text(404, "404 page not found\n");
  };

  return new Promise((resolve, reject) => {
    let server: Deno.HttpServer<Deno.NetAddr>;
    try {
      server = Deno.serve({
        hostname: bind.hostname,
        port: bind.port,
        onListen: (addr) => {
          const host = addr.hostname === "0.0.0.0" || addr.hostname === "::" ? "127.0.0.1" : addr.hostname;
          const urlHost = host.includes(":") ? `[${host}]` : host;
          log.info("{name} server listening on {hostname}:{port}", { name, hostname: addr.hostname, port: addr.port });
          resolve({
            addr: { hostname: addr.hostname, port: addr.port },
            url: `http://${urlHost}:${addr.port}`,
            shutdown: () => server.shutdown(),
          });
        },
        onError: (err) => {
          log.error("{name} server handler failed: {error}", { name, error: String(err) });
          return text(500, "internal error\n");
        },
      }, handler);
    } catch (err) {
      reject(new Error(`${name} server: cannot listen on ${opts.bindAddress}: ${(err as Error).message}`));
    }
  });
}
