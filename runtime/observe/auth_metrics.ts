/**
 * Counters of refused callers, named and labelled as k8s.io/apiserver's: `authentication_attempts{result}`
 * (endpoints/filters/metrics.go — `success`, `failure`: no credentials and anonymous auth off, `error`: credentials that
 * do not hold, such as a bad bearer token or an untrusted client certificate) and
 * `apiserver_authorization_decisions_total{type,name,decision}` (authorization/metrics — `allowed` or `denied`). The
 * farm API server and the webhook server count on them; registered once per registry.
 * @module
 */
import { Counter, type Registry } from "./prom_client.ts";
import type { CounterMetric } from "./metrics.ts";

/** What `authentication_attempts` counts: kube's `result` label. */
export type AuthenticationResult = "success" | "failure" | "error";

/** The two series. */
export interface AuthMetrics {
  /** authentication_attempts{result}. */
  readonly attempts: CounterMetric<"result">;
  /** apiserver_authorization_decisions_total{type,name,decision}. */
  readonly decisions: CounterMetric<"type" | "name" | "decision">;
}

const byRegistry = new WeakMap<Registry, AuthMetrics>();

/**
 * The auth metrics on `registry` (created on first use).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * import { authMetrics } from "./auth_metrics.ts";
 * const metrics = new Metrics();
 * authMetrics(metrics.registry).attempts.inc({ result: "error" });
 * assert.equal(await metrics.value("authentication_attempts", { result: "error" }), 1);
 * ```
 */
export function authMetrics(registry: Registry): AuthMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: AuthMetrics = {
    attempts: new Counter({
      name: "authentication_attempts",
      help: "Counter of authenticated attempts.",
      labelNames: ["result"],
      registers,
    }),
    decisions: new Counter({
      name: "apiserver_authorization_decisions_total",
      help: "Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
      labelNames: ["type", "name", "decision"],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
