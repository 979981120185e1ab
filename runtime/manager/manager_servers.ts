/**
 * The Manager's own servers — /metrics (optionally HTTPS with TokenReview + SubjectAccessReview) and /healthz
 * /livez /readyz — and the /readyz `watches` check built from the caches' watch health.
 * @module
 */

import type { Clock } from "../clock.ts";
import type { Logger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import type { WatchHealth } from "../watch/watch_runner.ts";
import { MetricsAuthFilter } from "./metrics_auth.ts";
import { loadMetricsServingCert } from "./metrics_cert.ts";
import type { ManagerEndpoints, ManagerOptions } from "./manager_options.ts";
import { type CheckResult, EndpointsServer, parseBindAddress, type ProbeReport } from "./probes.ts";

/** What {@link endpointServers} builds the servers from. */
export interface EndpointServersOptions {
  /** The Manager's options (addresses, metricsSecure, metricsCertDir, client). */
  opts: ManagerOptions;
  /** The Manager's clock (the TokenReview cache of the secure metrics filter). */
  clock: Clock;
  /** The registry served on /metrics. */
  metrics: Metrics;
  /** The Manager's logger. */
  logger: Logger;
  /** The /readyz report. */
  readiness(): ProbeReport;
  /** Called with each server's URL once it listens. */
  listening(name: keyof ManagerEndpoints, url: string | undefined): void;
}

/**
 * The /metrics and /healthz /readyz servers that are enabled ("0", the default, disables one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { endpointServers } from "./manager_servers.ts";
 * import { RealClock } from "../clock.ts";
 * import { Metrics } from "../observe/metrics.ts";
 * import { kubeopLogger } from "../observe/log.ts";
 * import type { KubeClient } from "../client/client.ts";
 * const servers = endpointServers({
 *   opts: { client: {} as KubeClient, healthProbeBindAddress: "127.0.0.1:0" },
 *   clock: new RealClock(),
 *   metrics: new Metrics(),
 *   logger: kubeopLogger("example"),
 *   readiness: () => ({ ok: true, checks: [] }),
 *   listening: () => {},
 * });
 * assert.equal(servers.length, 1); // metrics are off by default
 * ```
 */
export function endpointServers(o: EndpointServersOptions): EndpointsServer[] {
  const { opts } = o;
  const servers: EndpointsServer[] = [];
  const metricsAddress = opts.metricsBindAddress ?? "0";
  if (parseBindAddress(metricsAddress)) {
    const secure = opts.metricsSecure === true;
    const filter = secure ? new MetricsAuthFilter({ client: opts.client, clock: o.clock }) : undefined;
    const server = new EndpointsServer({
      bindAddress: metricsAddress,
      metrics: o.metrics,
      tls: secure ? () => loadMetricsServingCert({ certDir: opts.metricsCertDir }) : undefined,
      authorizeMetrics: filter
        ? async (req) => {
          const result = await filter.check(req);
          return result.ok ? undefined : result.response;
        }
        : undefined,
      logger: o.logger,
      name: "metrics",
    });
    server.ready().then(() => o.listening("metrics", server.url), () => {});
    servers.push(server);
  }
  const probeAddress = opts.healthProbeBindAddress ?? "0";
  if (parseBindAddress(probeAddress)) {
    const server = new EndpointsServer({
      bindAddress: probeAddress,
      liveness: true,
      readiness: o.readiness,
      logger: o.logger,
      name: "health probe",
    });
    server.ready().then(() => o.listening("healthProbe", server.url), () => {});
    servers.push(server);
  }
  return servers;
}

/**
 * The /readyz `watches` check: a watch is unhealthy after `failures` failures in a row, or when it has synced and
 * then been without an open stream for `disconnectGraceMs` (unsynced ones are reported by `informer-sync`).
 */
export function watchesCheck(
  health: WatchHealth[],
  limits: { failures: number; disconnectGraceMs: number },
): CheckResult {
  const reasons: string[] = [];
  for (const h of health) {
    const why = h.lastError ?? h.state;
    if (h.synced && h.disconnectedMs !== undefined && h.disconnectedMs >= limits.disconnectGraceMs) {
      reasons.push(`${h.resource}: disconnected for ${Math.floor(h.disconnectedMs / 1000)} s (${why})`);
    } else if (h.consecutiveFailures >= limits.failures) {
      reasons.push(`${h.resource}: ${h.consecutiveFailures} failures (${why})`);
    }
  }
  return { name: "watches", ok: reasons.length === 0, reason: reasons.join("; ") };
}

/**
 * The /readyz `cache-staleness` line (KEP-5647's staleness, as this process sees it): always passing — a quiet cache
 * or one still catching up is not a reason to take a replica out of service — but its detail says which caches are
 * behind their controllers' own writes (by how many resource versions, for how long) and how long the quietest
 * cache has gone without an event or bookmark. The same figures are kubeop_cache_own_write_lag_seconds and
 * kubeop_watch_last_event_seconds on /metrics.
 */
export function stalenessCheck(health: WatchHealth[]): CheckResult {
  const parts: string[] = [];
  for (const h of health) {
    const lag = h.ownWriteLag;
    if (lag && lag.resourceVersions > 0) {
      parts.push(`${h.resource} behind own write by ${lag.resourceVersions} RVs for ${seconds(lag.behindMs)}`);
    }
  }
  const quietest = health.filter((h) => h.sinceLastEventMs !== undefined)
    .sort((a, b) => b.sinceLastEventMs! - a.sinceLastEventMs!)[0];
  if (quietest) parts.push(`longest without an event: ${quietest.resource} ${seconds(quietest.sinceLastEventMs!)}`);
  return { name: "cache-staleness", ok: true, detail: parts.join("; ") || undefined };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
