/**
 * Issue 22 part 5: every way of starting (`run`, `dev`, `apiserver`), run as the binary is, prints at info one line
 * each for the cluster (server and context), the identity, the namespaces, the controllers, leader election,
 * sharding, webhooks, and where metrics and probes listen — with the values the flags and kubeconfig give, and never
 * a token, a key or a certificate body (client-key-data, client-certificate-data, token).
 */
import assert from "node:assert/strict";
import YAML from "yaml";
import { eventually } from "../testing/eventually.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { type DenoChild, spawnDeno } from "./support/fake_env.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** Child processes start slowly on a loaded machine. */
const START_TIMEOUT_MS = 45_000;

/** The JSON log records in `stderr`, keyed by their fields. */
function records(stderr: string): Record<string, string>[] {
  return stderr.split("\n").filter((l) => l.startsWith("{")).flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return [];
    }
  });
}

/** The startup record whose message starts with `prefix`. */
function line(stderr: string, prefix: string): Record<string, string> {
  const rec = records(stderr).find((r) => String(r.msg).startsWith(prefix));
  assert.ok(rec, `a "${prefix}" line in:\n${stderr.slice(0, 6000)}`);
  return rec;
}

/** Every credential value of a kubeconfig, raw and decoded, that must never reach the output. */
function secretsOf(kubeconfig: string): string[] {
  const doc = YAML.parse(kubeconfig);
  const out: string[] = [];
  for (const { user } of doc.users ?? []) {
    for (const field of ["token", "client-key-data", "client-certificate-data"]) {
      const value = user?.[field];
      if (typeof value !== "string") continue;
      out.push(value);
      if (field !== "token") {
        // the PEM body lines, each long enough to be unmistakable
        out.push(...atob(value).split("\n").filter((l) => l.length > 40));
      }
    }
  }
  assert.ok(out.length > 0, "the kubeconfig carries credentials");
  return out;
}

function assertNoSecrets(output: string, secrets: string[]): void {
  for (const secret of secrets) assert.ok(!output.includes(secret), `the output leaked ${secret.slice(0, 20)}…`);
  assert.doesNotMatch(output, /PRIVATE KEY|BEGIN CERTIFICATE|client-key-data|client-certificate-data/);
}

async function waitForLine(child: DenoChild, prefix: string): Promise<void> {
  await eventually(`the "${prefix}" startup line`, () => {
    if (records(child.stderr()).some((r) => String(r.msg).startsWith(prefix))) return true;
    return false;
  }, { timeoutMs: START_TIMEOUT_MS });
}

Deno.test("kubeop run prints the cluster, identity, namespaces, controllers, election, sharding, webhooks and listeners", async () => {
  const token = "kubeop-startup-test-bearer-0123456789abcdef";
  const server = await startFakeApiServer({ tls: true, token });
  const dir = await Deno.makeTempDir({ prefix: "kubeop-startup-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfig);
  const run = spawnDeno(MAIN, [
    "run",
    `--kubeconfig=${kubeconfig}`,
    "--namespace=default,kube-system",
    "--controllers=at,netperf",
    "--leader-elect",
    "--leader-election-id=startup",
    "--leader-election-namespace=default",
    "--metrics-bind-address=127.0.0.1:0",
    "--health-probe-bind-address=0",
    "--webhook-bind-address=0",
  ]);
  try {
    await waitForLine(run, "health probes:");
    const out = run.stderr();
    assert.match(line(out, "kubeop ").msg, /^kubeop \d+\.\d+\.\d+ starting \(run\)$/);
    const cluster = line(out, "cluster:");
    assert.equal(cluster.server, server.url);
    assert.equal(cluster.context, "kubeop-fake");
    assert.equal(cluster.kubeconfig, kubeconfig);
    assert.equal(line(out, "identity:").identity, 'user "kubeop-fake" (bearer token)');
    assert.equal(line(out, "namespaces:").namespaces, "default,kube-system");
    assert.equal(line(out, "controllers:").controllers, "at,netperf");
    assert.match(
      line(out, "leader election:").leaderElection,
      /^on, Lease default\/startup, identity \S+, on loss campaign again$/,
    );
    assert.equal(line(out, "sharding:").sharding, "off");
    assert.equal(line(out, "webhooks:").webhooks, "off (--webhook-bind-address=0)");
    assert.equal(line(out, "metrics:").metrics, "on, http on 127.0.0.1:0 (a free port)");
    assert.equal(line(out, "health probes:").probes, "off (bind address 0)");
    for (const r of records(out).filter((r) => /^(cluster|identity|namespaces|controllers):/.test(r.msg))) {
      assert.equal(r.level, "info");
    }
    assertNoSecrets(out, secretsOf(await Deno.readTextFile(kubeconfig)));
  } finally {
    await run.killAndReap();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
  assertNoSecrets(run.stderr(), [token]);
});

Deno.test("kubeop run with sharding and self-managed webhooks says so on its lines", async () => {
  const server = await startFakeApiServer({ tls: true });
  const dir = await Deno.makeTempDir({ prefix: "kubeop-startup-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfig);
  const run = spawnDeno(MAIN, [
    "run",
    `--kubeconfig=${kubeconfig}`,
    "--shards=auto",
    "--shard-buckets=4",
    "--leader-election-namespace=default",
    "--metrics-bind-address=0",
    "--health-probe-bind-address=127.0.0.1:0",
    "--webhook-bind-address=127.0.0.1:0",
    "--webhook-service-namespace=default",
  ]);
  try {
    await waitForLine(run, "health probes:");
    const out = run.stderr();
    assert.equal(line(out, "namespaces:").namespaces, "all");
    assert.equal(line(out, "controllers:").controllers, "machine,at,netperf,multisecret");
    assert.match(
      line(out, "identity:").identity,
      /^user "kubeop-fake" \(client certificate CN=kubeop-dev, O=system:masters\)$/,
    );
    assert.equal(line(out, "leader election:").leaderElection, "off");
    assert.match(line(out, "sharding:").sharding, /^on, 4 buckets, Leases default\/kubeop-bucket-N, identity \S+/);
    assert.equal(
      line(out, "webhooks:").webhooks,
      "on, https on 127.0.0.1:0 (a free port), Service default/kubeop-webhook, self-managed CA in Secret default/kubeop-webhook-ca",
    );
    assert.equal(line(out, "metrics:").metrics, "off (bind address 0)");
    assert.equal(line(out, "health probes:").probes, "on, http on 127.0.0.1:0 (a free port)");
    assertNoSecrets(out, secretsOf(await Deno.readTextFile(kubeconfig)));
  } finally {
    await run.killAndReap();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeop dev prints its embedded cluster, admin identity, controllers and webhooks, then ready", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-startup-dev-" });
  const kubeconfig = `${dir}/dev.kubeconfig`;
  const dev = spawnDeno(MAIN, ["dev", `--kubeconfig-out=${kubeconfig}`, "--log-format=json"]);
  try {
    await waitForLine(dev, "farm API:");
    const out = dev.stderr();
    const written = await Deno.readTextFile(kubeconfig);
    const cluster = line(out, "cluster:");
    assert.equal(cluster.server, YAML.parse(written).clusters[0].cluster.server);
    assert.equal(cluster.context, "kubeop-fake");
    assert.equal(cluster.kubeconfig, kubeconfig);
    assert.equal(
      line(out, "identity:").identity,
      'user "kubeop-fake" (client certificate CN=kubeop-dev, O=system:masters)',
    );
    assert.equal(line(out, "namespaces:").namespaces, "all");
    assert.equal(line(out, "controllers:").controllers, "machine,at,netperf,multisecret");
    assert.equal(line(out, "leader election:").leaderElection, "off (one process)");
    assert.equal(line(out, "sharding:").sharding, "off (one process)");
    assert.match(line(out, "webhooks:").webhooks, /^on, https on 127\.0\.0\.1:\d+, registered by URL$/);
    assert.match(line(out, "metrics:").metrics, /^off/);
    assert.match(line(out, "health probes:").probes, /^off/);
    assertNoSecrets(out, secretsOf(written));
    dev.child.kill("SIGTERM");
    assert.equal((await dev.child.status).code, 0);
  } finally {
    await dev.killAndReap();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeop apiserver prints its cluster, identity and where it serves", async () => {
  const server = await startFakeApiServer({ tls: true });
  const dir = await Deno.makeTempDir({ prefix: "kubeop-startup-farm-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfig);
  const farm = spawnDeno(MAIN, [
    "apiserver",
    "--secure-port=0",
    "--bind-address=127.0.0.1",
    `--cert-dir=${dir}/certs`,
    `--kubeconfig=${kubeconfig}`,
    "--auth=none",
  ]);
  try {
    await waitForLine(farm, "serving farm.example.com");
    const out = farm.stderr();
    assert.equal(line(out, "cluster:").server, server.url);
    assert.equal(line(out, "cluster:").context, "kubeop-fake");
    assert.match(line(out, "identity:").identity, /CN=kubeop-dev/);
    assert.equal(line(out, "controllers:").controllers, "none");
    assert.match(line(out, "leader election:").leaderElection, /^off/);
    assert.match(line(out, "sharding:").sharding, /^off/);
    assert.match(line(out, "webhooks:").webhooks, /^off/);
    assert.match(line(out, "health probes:").probes, /^on, https on 127\.0\.0\.1:\d+ /);
    assertNoSecrets(out, secretsOf(await Deno.readTextFile(kubeconfig)));
  } finally {
    await farm.killAndReap();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
