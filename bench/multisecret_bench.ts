/**
 * 500 namespaces × 20 MultiSecrets (10 000 child Secrets) converge on the fake API server (quick mode: 50 × 5): wall time until every
 * MultiSecret reports `created == wanted`, reconciles per second, API writes per child Secret (goal: 1 create per
 * child plus a finalizer patch and a status patch or two per MultiSecret), and memory.
 *
 * Run: deno run --allow-all bench/multisecret_bench.ts [--full]
 * @module
 */

import { type MultiSecret, MultiSecretType } from "../controllers/multisecret/schema.ts";
import { configureLogging } from "../runtime/observe/log.ts";
import { CoreTypes } from "../runtime/types.ts";
import { runCountingOperator, startBenchCluster, waitForConverged } from "./machines_bench.ts";
import { fullMode, lowerIsBetter, recordResult, round } from "./result.ts";

await configureLogging({ level: "error" });
const namespaces = fullMode() ? 500 : 50;
const multiSecrets = fullMode() ? 20 : 5;
const cluster = await startBenchCluster();
const { admin } = cluster;
for (let i = 0; i < namespaces; i++) await admin.create(CoreTypes.Namespace, { metadata: { name: `ns-${i}` } });
const totalNamespaces = (await admin.list(CoreTypes.Namespace)).items.length;

const operator = runCountingOperator(cluster.config, "multisecret");
const { metrics, counts } = operator;

const rssBefore = Deno.memoryUsage().rss;
const started = performance.now();
// All MultiSecrets live in "default"; each is copied into every namespace.
for (let i = 0; i < multiSecrets; i++) {
  await admin.create(MultiSecretType, {
    metadata: { name: `ms-${i}` },
    spec: { data: { token: btoa(`value-${i}`) } },
  }, { namespace: "default" });
}
const converged = await waitForConverged(
  admin,
  MultiSecretType,
  (m: MultiSecret) => m.status?.wanted === totalNamespaces && m.status.created === totalNamespaces,
  { want: multiSecrets, deadline: started + 900_000, pollMs: 200 },
);
const seconds = (performance.now() - started) / 1000;
const reconciles = await metrics.value("controller_runtime_reconcile_total", { controller: "multisecret" });
const rss = Deno.memoryUsage().rss;
await operator.stop();
await cluster.close();

const children = multiSecrets * totalNamespaces;
const writes = [...counts].filter(([k]) => !k.startsWith("events.")).reduce((n, [, v]) => n + v, 0);
const goal = children + 2 * multiSecrets; // one create per child, one finalizer patch and one final status per owner
await recordResult({
  name: "multisecret-converge",
  params: { namespaces: totalNamespaces, multiSecrets, children, mode: fullMode() ? "full" : "quick" },
  unit: "writes",
  kubeop: writes,
  peer: goal,
  peerName: "goal (1 create per child + finalizer + status per MultiSecret)",
  ratio: lowerIsBetter(writes, goal),
  extra: {
    converged,
    seconds: round(seconds),
    childrenPerSecond: round(children / seconds),
    reconciles,
    reconcilesPerSecond: round(reconciles / seconds),
    writesByCall: Object.fromEntries(counts),
    rssMiB: round(rss / 2 ** 20),
    rssGrowthMiB: round((rss - rssBefore) / 2 ** 20),
  },
});
