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
import { KubeClient } from "../runtime/client.ts";
import { parseKubeconfig } from "../runtime/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";
import { startFakeApiServer } from "../testing/mod.ts";

const root = new URL("../", import.meta.url);
const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** What the in-cluster binary may do, flag by flag (order-insensitive within a flag). */
const IN_CLUSTER_PERMISSIONS = [
  "--allow-net",
  // ServiceAccount token/CA/namespace; --metrics-cert-dir's default; the farm server's --cert-dir.
  `--allow-read=${SERVICE_ACCOUNT_DIR},/tmp/k8s-metrics-server/serving-certs,/var/run/kubeop`,
  "--allow-write=/var/run/kubeop",
  // runtime/kubeconfig.ts loadClusterConfig: the only environment the process reads.
  "--allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT",
  // runtime/leader.ts defaultIdentity: the pod name in the Lease's holderIdentity.
  "--allow-sys=hostname",
];

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

async function userNamespacesWork(): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  try {
    const out = await new Deno.Command("unshare", { args: ["-Urm", "true"], stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "kubeop run under exactly the in-cluster permissions reconciles an At and serves /metrics",
  ignore: !(await userNamespacesWork()),
  async fn() {
    const token = "in-cluster-token";
    const server = await startFakeApiServer({ tls: true, token });
    const dir = await Deno.makeTempDir({ prefix: "kubeop-sa-" });
    const sa = `${dir}/serviceaccount`;
    await Deno.mkdir(sa);
    await Deno.writeTextFile(`${sa}/token`, token);
    await Deno.writeTextFile(`${sa}/ca.crt`, server.caPEM!);
    await Deno.writeTextFile(`${sa}/namespace`, "kubeop-system");
    const kubeconfig = `${dir}/kubeconfig`;
    await server.writeKubeconfig(kubeconfig);
    const client = new KubeClient({ config: await parseKubeconfig(await Deno.readTextFile(kubeconfig)) });
    for (const crd of crdManifests()) await client.create(CoreTypes.CustomResourceDefinition, crd);
    await client.create(CoreTypes.Namespace, { metadata: { name: "kubeop-system" } });
    // In the private mount namespace: a fresh /run (so /var/run/secrets can be created), the temp dir bound there.
    const script = [
      "set -e",
      "mount -t tmpfs tmpfs /run",
      `mkdir -p ${SERVICE_ACCOUNT_DIR.replace("/var/run", "/run")}`,
      `mount --bind "$0" ${SERVICE_ACCOUNT_DIR}`,
      'exec "$@"',
    ].join("\n");
    const url = new URL(server.url);
    const child = new Deno.Command("unshare", {
      args: [
        "-Urm",
        "sh",
        "-c",
        script,
        sa,
        Deno.execPath(),
        "run",
        ...IN_CLUSTER_PERMISSIONS,
        new URL("main.ts", root).pathname,
        "run",
        "--controllers=at",
        "--leader-elect=true",
        "--metrics-bind-address=127.0.0.1:0",
        "--health-probe-bind-address=0",
      ],
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: "/home/nonroot",
        NO_COLOR: "1",
        KUBERNETES_SERVICE_HOST: url.hostname,
        KUBERNETES_SERVICE_PORT: url.port,
      },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let logs = "";
    const decoder = new TextDecoder();
    const drain = (stream: ReadableStream<Uint8Array>) =>
      (async () => {
        for await (const chunk of stream) logs += decoder.decode(chunk, { stream: true });
      })();
    const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
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
      const lease = await client.get(CoreTypes.Lease, "kubeop", { namespace: "kubeop-system" });
      assert.ok(String(lease.spec?.holderIdentity).length > 0, "the namespace file named the Lease's namespace");
      const metricsUrl = /metrics server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(logs)?.[1];
      assert.ok(metricsUrl, `metrics address in the logs:\n${logs}`);
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
      assert.match(text, /^controller_runtime_reconcile_total\{controller="at",result="success"\} [1-9]/m);
      assert.match(text, /^process_cpu_seconds_total /m);
      assert.match(text, /^process_resident_memory_bytes [1-9]/m, "memory from Deno.memoryUsage, /proc is closed");
      assert.doesNotMatch(logs, /NotCapable|PermissionDenied/);
    } finally {
      child.kill("SIGTERM");
      const status = await child.status;
      await drained;
      client.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
      assert.equal(status.code, 0, `kubeop run exits 0 after SIGTERM:\n${logs.slice(-2000)}`);
    }
  },
});
