/**
 * The lines every way of starting kubeop (`run`, `dev`, `apiserver`) prints at info before it serves, one fact per
 * line as kube components do: version, cluster (server and context), identity, namespaces, controllers, leader
 * election, sharding, webhooks, and where metrics, probes and webhooks listen. Only names and addresses: the
 * identity is described by ./identity.ts, never with a token or key.
 * @module
 */
import type { ClusterConfig } from "../runtime/client/kubeconfig.ts";
import type { Logger } from "../runtime/observe/log.ts";

/** One startup line: a message template and its properties (the JSON fields). */
export interface StartupLine {
  /** logtape template, e.g. `cluster: {server} (context {context})`. */
  message: string;
  /** The values the template names. */
  props: Record<string, string>;
}

/** On, with where or how; or off, with why. */
export type OnOff = { on: true; detail: string } | { on: false; why?: string };

/** What a command is about to do, already decided. */
export interface StartupFacts {
  /** `run`, `dev` or `apiserver`. */
  command: string;
  /** kubeop's version. */
  version: string;
  /** The cluster, or why there is none. */
  cluster: ClusterConfig | { none: string };
  /** From `describeIdentity` (./identity.ts); undefined without a cluster. */
  identity?: string;
  /** Watched namespaces; empty = all. */
  namespaces: readonly string[];
  /** Controllers that run; empty = none. */
  controllers: readonly string[];
  /** Leader election. */
  leaderElection: OnOff;
  /** Sharding. */
  sharding: OnOff;
  /** Webhooks (detail: where they listen). */
  webhooks: OnOff;
  /** `/metrics` (detail: where it listens). */
  metrics: OnOff;
  /** `/healthz`, `/readyz` (detail: where they listen). */
  probes: OnOff;
  /** Command-specific lines after the common ones (e.g. the farm API's address). */
  extra?: StartupLine[];
}

function onOff(value: OnOff): string {
  return value.on ? `on, ${value.detail}` : value.why ? `off (${value.why})` : "off";
}

/**
 * The startup lines of `facts`, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startupLines } from "./startup_summary.ts";
 * const lines = startupLines({
 *   command: "run",
 *   version: "0.1.0",
 *   cluster: { server: "https://10.0.0.1:6443", contextName: "kind-kind", source: "/home/me/.kube/config" },
 *   identity: 'user "kind-kind" (client certificate CN=kubernetes-admin)',
 *   namespaces: [],
 *   controllers: ["at"],
 *   leaderElection: { on: false },
 *   sharding: { on: false },
 *   webhooks: { on: false, why: "not running in a pod" },
 *   metrics: { on: true, detail: "http on :8080" },
 *   probes: { on: true, detail: "http on :8081" },
 * });
 * assert.equal(lines[1].props.server, "https://10.0.0.1:6443");
 * assert.equal(lines[3].props.namespaces, "all");
 * ```
 */
export function startupLines(facts: StartupFacts): StartupLine[] {
  const lines: StartupLine[] = [
    {
      message: "kubeop {version} starting ({command})",
      props: { version: facts.version, command: facts.command },
    },
  ];
  const cluster = facts.cluster;
  if ("none" in cluster) {
    lines.push({ message: "cluster: none ({reason})", props: { reason: cluster.none } });
  } else if (cluster.inCluster) {
    lines.push({
      message: "cluster: {server} (in-cluster configuration)",
      props: { server: cluster.server, context: "in-cluster" },
    });
  } else {
    lines.push({
      message: "cluster: {server} (context {context}, kubeconfig {kubeconfig})",
      props: {
        server: cluster.server,
        context: cluster.contextName ?? "(inline)",
        kubeconfig: cluster.source ?? "(inline)",
      },
    });
  }
  lines.push({ message: "identity: {identity}", props: { identity: facts.identity ?? "none (no cluster)" } });
  lines.push({
    message: "namespaces: {namespaces}",
    props: { namespaces: facts.namespaces.length ? facts.namespaces.join(",") : "all" },
  });
  lines.push({
    message: "controllers: {controllers}",
    props: { controllers: facts.controllers.length ? facts.controllers.join(",") : "none" },
  });
  lines.push({ message: "leader election: {leaderElection}", props: { leaderElection: onOff(facts.leaderElection) } });
  lines.push({ message: "sharding: {sharding}", props: { sharding: onOff(facts.sharding) } });
  lines.push({ message: "webhooks: {webhooks}", props: { webhooks: onOff(facts.webhooks) } });
  lines.push({ message: "metrics: {metrics}", props: { metrics: onOff(facts.metrics) } });
  lines.push({ message: "health probes: {probes}", props: { probes: onOff(facts.probes) } });
  return [...lines, ...(facts.extra ?? [])];
}

/**
 * Logs {@link startupLines} at info on `log`.
 *
 * @example
 * ```ts
 * import { kubeopLogger } from "../runtime/observe/log.ts";
 * import { logStartup } from "./startup_summary.ts";
 * logStartup(kubeopLogger("example"), {
 *   command: "run",
 *   version: "0.1.0",
 *   cluster: { none: "example" },
 *   namespaces: [],
 *   controllers: [],
 *   leaderElection: { on: false },
 *   sharding: { on: false },
 *   webhooks: { on: false },
 *   metrics: { on: false },
 *   probes: { on: false },
 * });
 * ```
 */
export function logStartup(log: Logger, facts: StartupFacts): void {
  for (const line of startupLines(facts)) log.info(line.message, line.props);
}

/**
 * A bind address as an {@link OnOff}: `0` is off.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listening } from "./startup_summary.ts";
 * assert.deepEqual(listening(":8080", "http"), { on: true, detail: "http on :8080" });
 * assert.equal(listening("0", "http").on, false);
 * ```
 */
export function listening(address: string, scheme: string): OnOff {
  if (address === "0") return { on: false, why: "bind address 0" };
  return { on: true, detail: listenDetail(address, scheme) };
}

/**
 * Where a server listens, in words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listenDetail } from "./startup_summary.ts";
 * assert.equal(listenDetail("127.0.0.1:0", "https"), "https on 127.0.0.1:0 (a free port)");
 * ```
 */
export function listenDetail(address: string, scheme: string): string {
  return `${scheme} on ${address}${/:0$/.test(address) ? " (a free port)" : ""}`;
}
