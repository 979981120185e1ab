/**
 * One replica of the sharding benchmarks (bench/shard_bench.ts), a process of its own as `kubeop run --shards auto`
 * would be: a Manager with sharding on and one reconcile-bound controller — For ConfigMaps in `bench` (the primary,
 * sliced by the ring), Owns Secrets (a child, never sliced). Each reconcile waits a fixed simulated external delay
 * (as an operator waits on a cloud API), then patches the ConfigMap's `bench/done` annotation to its `data.want`.
 * Every request names the replica in the User-Agent. Prints `{"metrics": url, "identity": id}` on stdout once
 * started, then stays quiet until SIGTERM/SIGKILL.
 *
 * Run: deno run --allow-all bench/shard_replica.ts <kubeconfig> <identity> <delayMs> <buckets> [leaseSeconds] [ns]
 * @module
 */
import { KubeClient } from "../runtime/client/client.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { loadKubeconfigFile } from "../runtime/client/kubeconfig.ts";
import { configureLogging } from "../runtime/observe/log.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";

/** The benchmark's default namespace (objects and the ring's Leases). */
export const BENCH_NS = "bench";
/** The annotation a reconcile sets to the ConfigMap's `data.want`. */
export const DONE_ANNOTATION = "bench/done";

if (import.meta.main) {
  const [kubeconfig, identity, delay, buckets, lease, ns] = Deno.args;
  const namespace = ns ?? BENCH_NS;
  const delayMs = Number(delay ?? 50);
  const leaseSeconds = Number(lease ?? 15);
  await configureLogging({ level: "error" });
  const metrics = new Metrics();
  const client = new KubeClient({
    config: await loadKubeconfigFile(kubeconfig),
    metrics,
    userAgent: `kubeop-bench (${identity})`,
    qps: 1000,
    burst: 2000,
  });
  const controller = new Controller<KubeObject & { data?: Record<string, string> }>({
    name: "bench-slow",
    for: CoreTypes.ConfigMap,
    reconcile: async (ctx) => {
      const want = ctx.object?.data?.want;
      if (!want || ctx.object?.metadata.annotations?.[DONE_ANNOTATION] === want) return done();
      await new Promise((resolve) => setTimeout(resolve, delayMs)); // the simulated external call
      await ctx.client.patch(
        CoreTypes.ConfigMap,
        ctx.name,
        { metadata: { annotations: { [DONE_ANNOTATION]: want } } },
        {
          namespace: ctx.namespace,
          type: "merge",
        },
      );
      return done();
    },
  }).owns(CoreTypes.Secret);
  const manager = new Manager({
    client,
    metrics,
    namespaces: [namespace],
    metricsBindAddress: "127.0.0.1:0",
    sharding: {
      namespace,
      identity,
      buckets: Number(buckets ?? 16),
      leaseSeconds,
      renewDeadlineSeconds: leaseSeconds * 2 / 3,
      retryPeriodSeconds: Math.min(2, leaseSeconds / 5),
    },
  }).add(controller);
  const stop = new AbortController();
  Deno.addSignalListener("SIGTERM", () => stop.abort());
  const running = manager.start(stop.signal);
  while (!manager.endpoints.metrics) await new Promise((resolve) => setTimeout(resolve, 20));
  console.log(JSON.stringify({ metrics: manager.endpoints.metrics, identity }));
  await running;
  client.close();
}
