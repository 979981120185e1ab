/**
 * The container's binary is compiled with a narrow permission set (deno.json task `compile:in-cluster`, which the
 * Containerfile runs): network, the ServiceAccount files, the metrics and farm certificate directories, the
 * environment variables the config loader reads, and the hostname (the Lease holder's identity). This test pins the
 * set and runs `kubeop run` under exactly it, as a Pod would: no kubeconfig, KUBERNETES_SERVICE_HOST/PORT, and the
 * token, CA and namespace at /var/run/secrets/kubernetes.io/serviceaccount — bind-mounted there in a private mount
 * namespace (`unshare -Urm`; skipped where user namespaces are unavailable).
 */
import assert from "node:assert/strict";
import { AtType } from "../controllers/at/schema.ts";
import { crdManifests } from "../controllers/mod.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import type { Lease } from "../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import {
  IN_CLUSTER_PERMISSIONS,
  spawnInCluster,
  userNamespacesWork,
  writeServiceAccountDir,
} from "./support/in_cluster.ts";

const root = new URL("../", import.meta.url);

function normalise(flags: string[]): string[] {
  return flags.map((f) => {
    const [name, value] = f.split("=", 2);
    return value === undefined ? name : `${name}=${value.split(",").sort().join(",")}`;
  }).sort();
}

Deno.test("the Containerfile compiles the in-cluster binary with exactly the narrow permission set", async () => {
  const deno = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const task: string = deno.tasks["compile:in-cluster"];
  const words = task.split(/\s+/);
  assert.deepEqual(normalise(words.filter((w) => w.startsWith("--allow-"))), normalise(IN_CLUSTER_PERMISSIONS));
  assert.ok(!words.includes("--allow-all") && !words.includes("-A"), task);
  assert.ok(words.includes("main.ts") && words.includes("dist/kubeop"), task);
  const containerfile = await Deno.readTextFile(new URL("Containerfile", root));
  assert.match(containerfile, /^RUN deno task compile:in-cluster\b/m);
  assert.doesNotMatch(containerfile, /^RUN deno task compile(\s|&)/m, "the image does not ship the --allow-all binary");
  // The local binary (`deno task compile`) keeps --allow-all: exec credentials, kubeconfigs anywhere, dev's data dir.
  assert.match(deno.tasks.compile, /--allow-all/);
});

Deno.test({
  name: "kubeop run under exactly the in-cluster permissions reconciles an At, serves /metrics and its webhooks",
  ignore: !(await userNamespacesWork()),
  async fn() {
    const token = "in-cluster-token";
    const server = await startFakeApiServer({ tls: true, token });
    const dir = await Deno.makeTempDir({ prefix: "kubeop-sa-" });
    const sa = `${dir}/serviceaccount`;
    await writeServiceAccountDir(sa, { token, caPEM: server.caPEM!, namespace: "kubeop-system" });
    const kubeconfig = `${dir}/kubeconfig`;
    await server.writeKubeconfig(kubeconfig);
    const client = new KubeClient({ config: await parseKubeconfig(await Deno.readTextFile(kubeconfig)) });
    for (const crd of crdManifests()) await client.create(CoreTypes.CustomResourceDefinition, crd);
    await client.create(CoreTypes.Namespace, { metadata: { name: "kubeop-system" } });
    const operator = spawnInCluster({
      serviceAccountDir: sa,
      apiServerUrl: server.url,
      args: [
        "run",
        "--controllers=at,netperf",
        "--leader-elect=true",
        "--metrics-bind-address=127.0.0.1:0",
        "--health-probe-bind-address=0",
        "--webhook-bind-address=127.0.0.1:0",
      ],
    });
    try {
      const at: KubeObject = {
        apiVersion: "cnat.ishankhare.dev/v1alpha1",
        kind: "At",
        metadata: { name: "at-sample", namespace: "default" },
        spec: { schedule: "2020-11-16T10:12:00Z", command: "echo hello world!" },
      };
      await client.create(AtType, at);
      await eventually("the At's Pod", async () => {
        const pods = await client.list(CoreTypes.Pod, { namespace: "default" });
        return pods.items.some((p) => p.metadata?.ownerReferences?.some((o) => o.kind === "At"));
      }, { timeoutMs: 30_000 });
      const lease = await client.get<Lease>(CoreTypes.Lease, "kubeop", { namespace: "kubeop-system" });
      assert.ok(String(lease.spec?.holderIdentity).length > 0, "the namespace file named the Lease's namespace");
      const metricsUrl = /metrics server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(operator.logs())?.[1];
      assert.ok(metricsUrl, `metrics address in the logs:\n${operator.logs()}`);
      // The Pod exists once the reconcile wrote it; the success counter moves when that reconcile returns.
      const text = await eventually("a successful At reconcile counted on /metrics", async () => {
        const body = await (await fetch(`${metricsUrl}/metrics`)).text();
        return /^controller_runtime_reconcile_total\{controller="at",result="success"\} [1-9]/m.test(body) && body;
      });
      assert.match(text, /^process_cpu_seconds_total /m);
      assert.match(text, /^process_resident_memory_bytes [1-9]/m, "memory from Deno.memoryUsage, /proc is closed");
      // Netperf's webhook: the self-managed CA in the Secret of the pod's namespace, an HTTPS listener.
      await client.get(CoreTypes.Secret, "kubeop-webhook-ca", { namespace: "kubeop-system" });
      assert.match(operator.logs(), /webhook server listening on https:\/\/127\.0\.0\.1:\d+/);
      assert.doesNotMatch(operator.logs(), /NotCapable|PermissionDenied/);
      // The startup lines, as a Pod prints them: the in-cluster server, the service account, never the token.
      const logs = operator.logs();
      assert.ok(logs.includes(`"msg":"cluster: ${server.url} (in-cluster configuration)"`), logs.slice(0, 3000));
      assert.match(logs, /"identity":"the pod's service account \(in-cluster token\)"/);
      assert.match(logs, /"leaderElection":"on, Lease kubeop-system\/kubeop, identity /);
      assert.match(
        logs,
        /"webhooks":"on, https on 127\.0\.0\.1:0 \(a free port\), Service kubeop-system\/kubeop-webhook, /,
      );
      assert.ok(!logs.includes(token), "the token is never printed");
    } finally {
      const status = await operator.stop();
      client.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
      assert.equal(status.code, 0, `kubeop run exits 0 after SIGTERM:\n${operator.logs().slice(-2000)}`);
    }
  },
});
