/**
 * 1 000 Machines × 3 Switches converge on the fake API server (quick mode: 200): wall time until every Machine
 * shows `positions: ddd`, reconciles per second, and API writes per Machine by the controller (creates, patches,
 * deletes; Events counted apart). The goal is the minimum: 3 Switch creates + 1 status patch = 4 writes.
 *
 * Run: deno run --allow-all bench/machines_bench.ts [--full]
 * @module
 */

import { type ControllerName, CONTROLLERS, crdManifests } from "../controllers/mod.ts";
import { type Machine, MachineType } from "../controllers/machine/schema.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { CONTROLLER_CLIENT_WRITES } from "../runtime/controller/controller_client.ts";
import type { ClusterConfig } from "../runtime/client/kubeconfig.ts";
import { configureLogging } from "../runtime/observe/log.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../runtime/types.ts";
import { startFakeEnv } from "../tests/support/fake_env.ts";
import { fullMode, lowerIsBetter, recordResult, round } from "./result.ts";

const WRITES = new Set<string>(CONTROLLER_CLIENT_WRITES);

/** A client view that counts write calls per resource plural. */
export function countingClient(client: KubeClient, counts: Map<string, number>): KubeClient {
  return new Proxy(client, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && WRITES.has(prop)) {
        return (rt: ResourceType, ...rest: unknown[]) => {
          const key = `${rt.plural}.${prop}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).call(target, rt, ...rest);
        };
      }
      return value.bind(target);
    },
  });
}

/** A fake API server with the kubeop CRDs installed, and the bench's own (uncounted) client for it. */
export async function startBenchCluster(): Promise<
  { config: ClusterConfig; admin: KubeClient; close(): Promise<void> }
> {
  const env = await startFakeEnv();
  for (const crd of crdManifests()) await env.client.create(CoreTypes.CustomResourceDefinition, crd);
  return { config: env.config, admin: env.client, close: env.close };
}

/** A Manager running one seed controller (4 workers) through a client that counts its writes into `counts`. */
export function runCountingOperator(config: ClusterConfig, controller: ControllerName): {
  metrics: Metrics;
  counts: Map<string, number>;
  stop(): Promise<void>;
} {
  const metrics = new Metrics();
  const counts = new Map<string, number>();
  const operatorClient = new KubeClient({ config, metrics });
  const manager = new Manager({ client: countingClient(operatorClient, counts), metrics, maxConcurrentReconciles: 4 });
  for (const c of CONTROLLERS[controller]({ informers: manager.informers })) manager.add(c);
  const abort = new AbortController();
  const running = manager.start(abort.signal);
  return {
    metrics,
    counts,
    async stop() {
      abort.abort();
      await running;
      operatorClient.close();
    },
  };
}

/**
 * Lists `rt` in `default` every `pollMs` until `want` objects satisfy `isConverged` or `performance.now()` passes
 * `deadline`; returns how many had converged.
 */
export async function waitForConverged<T extends KubeObject>(
  admin: KubeClient,
  rt: ResourceType,
  isConverged: (obj: T) => boolean,
  opts: { want: number; deadline: number; pollMs: number },
): Promise<number> {
  let converged = 0;
  while (performance.now() < opts.deadline) {
    const list = await admin.list<T>(rt, { namespace: "default" });
    converged = list.items.filter(isConverged).length;
    if (converged === opts.want) break;
    await new Promise((r) => setTimeout(r, opts.pollMs));
  }
  return converged;
}

if (import.meta.main) {
  await configureLogging({ level: "error" });
  const machines = fullMode() ? 1000 : 200;
  const cluster = await startBenchCluster();
  const { admin } = cluster;
  const operator = runCountingOperator(cluster.config, "machine");
  const { metrics, counts } = operator;

  const rssBefore = Deno.memoryUsage().rss;
  const started = performance.now();
  const creates: Promise<unknown>[] = [];
  for (let i = 0; i < machines; i++) {
    creates.push(
      admin.create(MachineType, { metadata: { name: `m-${i}` }, spec: { switches: 3 } }, { namespace: "default" }),
    );
    if (creates.length >= 50) await Promise.all(creates.splice(0));
  }
  await Promise.all(creates);
  const converged = await waitForConverged(admin, MachineType, (m: Machine) => m.status?.positions === "ddd", {
    want: machines,
    deadline: started + 600_000,
    pollMs: 100,
  });
  const seconds = (performance.now() - started) / 1000;
  const reconciles = await metrics.value("controller_runtime_reconcile_total", { controller: "machine" });
  const rss = Deno.memoryUsage().rss;
  await operator.stop();
  await cluster.close();

  const controllerWrites = [...counts].filter(([k]) => !k.startsWith("events.")).reduce((n, [, v]) => n + v, 0);
  const eventWrites = [...counts].filter(([k]) => k.startsWith("events.")).reduce((n, [, v]) => n + v, 0);
  const writesPerMachine = controllerWrites / machines;
  await recordResult({
    name: "machines-converge",
    params: { machines, switchesPerMachine: 3, maxConcurrentReconciles: 4, mode: fullMode() ? "full" : "quick" },
    unit: "writes/machine",
    kubeop: round(writesPerMachine),
    peer: 4,
    peerName: "goal (3 creates + 1 status patch)",
    ratio: lowerIsBetter(writesPerMachine, 4),
    extra: {
      converged,
      seconds: round(seconds),
      reconcilesPerSecond: round(reconciles / seconds),
      reconciles,
      writesByCall: Object.fromEntries(counts),
      eventWrites,
      rssMiB: round(rss / 2 ** 20),
      rssGrowthMiB: round((rss - rssBefore) / 2 ** 20),
    },
  });
}
