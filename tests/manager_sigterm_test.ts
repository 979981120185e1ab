import assert from "node:assert/strict";
import { crdManifests } from "../controllers/mod.ts";
import type { LeaseObject } from "../runtime/leader/lease_lock.ts";
import { CoreTypes } from "../runtime/types.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import { type DenoChild, spawnDeno, startFakeEnv } from "./support/fake_env.ts";
import { eventually } from "../testing/eventually.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** Child processes start slowly on a loaded machine. */
const SUBPROCESS_TIMEOUT_MS = 30_000;

/** `kubeop run` as a child process, its stderr collected as it arrives. */
function spawnRun(args: string[]): DenoChild {
  return spawnDeno(MAIN, ["run", ...args]);
}

/** Every JSON log record in `stderr` (flat zap lines: `msg` and the fields beside it). */
function logRecords(stderr: string): { message: string; props: Record<string, unknown> }[] {
  const out = [];
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const rec = JSON.parse(line);
      out.push({ message: String(rec.msg), props: rec });
    } catch {
      // not a log record
    }
  }
  return out;
}

/** The identity a replica campaigns with, from its log. */
function identityOf(stderr: string): string | undefined {
  const rec = logRecords(stderr).find((r) => r.message.startsWith("attempting to acquire"));
  return rec?.props.identity as string | undefined;
}

/** The health probe URL, from the manager's "listening" log line. */
function probeUrl(stderr: string): string | undefined {
  const rec = logRecords(stderr).find((r) => r.props.name === "health probe" && r.props.port);
  return rec && `http://127.0.0.1:${rec.props.port}`;
}

/** `kubeop run` flags for a leader-elected replica (Lease default/kubeop) with a probe server on a free port. */
function leaderElectArgs(kubeconfig: string): string[] {
  return [
    "--kubeconfig",
    kubeconfig,
    "--leader-elect",
    "--leader-election-namespace",
    "default",
    "--health-probe-bind-address",
    "127.0.0.1:0",
    "--metrics-bind-address",
    "0",
    // no --webhook-bind-address: from a kubeconfig (not in a pod) the webhooks are off by default, with a log line
  ];
}

/** Lease default/kubeop, or undefined before the first replica created it. */
function kubeopLease(server: FakeApiServer): LeaseObject | undefined {
  return kubeopLeaseNamed(server, "kubeop");
}

function kubeopLeaseNamed(server: FakeApiServer, name: string): LeaseObject | undefined {
  try {
    return server.store.get(CoreTypes.Lease, name, { namespace: "default" }) as LeaseObject;
  } catch {
    return undefined;
  }
}

async function withCluster(fn: (server: FakeApiServer, kubeconfig: string) => Promise<void>): Promise<void> {
  const env = await startFakeEnv();
  try {
    for (const crd of crdManifests()) {
      env.server.store.create(
        { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" },
        crd,
      );
    }
    await fn(env.server, env.kubeconfigPath);
  } finally {
    await env.close();
  }
}

Deno.test("kubeop run --leader-elect: SIGTERM releases the lease and exits 0", async () => {
  await withCluster(async (server, kubeconfig) => {
    const run = spawnRun(leaderElectArgs(kubeconfig));
    try {
      const lease = () => kubeopLease(server);
      await eventually("the lease to be held", () => !!lease()?.spec?.holderIdentity, {
        timeoutMs: SUBPROCESS_TIMEOUT_MS,
      });
      const holder = lease()!.spec!.holderIdentity!;
      await eventually("the probe server's address in the log", () => probeUrl(run.stderr()) !== undefined, {
        timeoutMs: SUBPROCESS_TIMEOUT_MS,
      });
      const url = probeUrl(run.stderr())!;
      await eventually("readiness", async () => {
        const res = await fetch(`${url}/readyz`);
        await res.body?.cancel();
        return res.status === 200;
      }, { timeoutMs: SUBPROCESS_TIMEOUT_MS });

      run.child.kill("SIGTERM");
      const status = await run.child.status;
      await run.drained;
      assert.equal(status.code, 0, run.stderr());
      assert.match(run.stderr(), /received \W*SIGTERM/);
      assert.equal(lease()!.spec!.holderIdentity, "", `lease still held by ${holder} after exit`);
      // Netperf and MultiSecret have webhooks; from a kubeconfig they are off, said once, with how to turn them on.
      assert.match(run.stderr(), /webhooks: off \(not running in a pod.*--webhook-bind-address=:9443/);
    } finally {
      await run.killAndReap();
    }
  });
});

/** `kubeop run --leader-elect` on Lease default/lossy, metrics off, plus `extra`. */
function spawnLossyLeader(kubeconfig: string, extra: string[]): DenoChild {
  return spawnRun([
    "--kubeconfig",
    kubeconfig,
    "--leader-elect",
    "--leader-election-id",
    "lossy",
    "--leader-election-namespace",
    "default",
    "--metrics-bind-address",
    "0",
    ...extra,
  ]);
}

Deno.test("kubeop run --leader-elect: a leader that cannot renew stops its controllers, stays up, and leads again", async () => {
  await withCluster(async (server, kubeconfig) => {
    const run = spawnLossyLeader(kubeconfig, ["--health-probe-bind-address", "127.0.0.1:0"]);
    try {
      await eventually("leadership", () => /became leader/.test(run.stderr()), { timeoutMs: SUBPROCESS_TIMEOUT_MS });
      // The API server refuses every Lease call: renewals fail until the renew deadline (10 s) passes.
      server.faults.inject({ resource: "leases.coordination.k8s.io", code: 500 });
      await eventually("the lost Lease", () => /campaigning again/.test(run.stderr()), {
        timeoutMs: SUBPROCESS_TIMEOUT_MS,
      });
      const records = logRecords(run.stderr());
      assert.ok(records.some((r) => /controllers stopped and drained, caches kept warm/.test(r.message)));
      // Still up and ready (a warm standby), and not leading.
      const url = probeUrl(run.stderr())!;
      const ready = await fetch(`${url}/readyz`);
      await ready.body?.cancel();
      assert.equal(ready.status, 200);
      server.faults.clear(); // the outage ends: it campaigns, wins the Lease and starts its controllers again
      await eventually(
        "leadership again",
        () => (run.stderr().match(/became leader/g) ?? []).length === 2,
        { timeoutMs: SUBPROCESS_TIMEOUT_MS },
      );
      await eventually(
        "the controllers started for the second term",
        () => (run.stderr().match(/starting \d+ controllers/g) ?? []).length === 2,
        { timeoutMs: SUBPROCESS_TIMEOUT_MS },
      );
      assert.equal(kubeopLeaseNamed(server, "lossy")?.spec?.holderIdentity, identityOf(run.stderr()));
      run.child.kill("SIGTERM");
      assert.equal((await run.child.status).code, 0, run.stderr());
    } finally {
      await run.killAndReap();
    }
  });
});

Deno.test("kubeop run --leader-elect --exit-on-lost-leadership: a leader that cannot renew its lease exits 1", async () => {
  await withCluster(async (server, kubeconfig) => {
    const run = spawnLossyLeader(kubeconfig, ["--exit-on-lost-leadership", "--health-probe-bind-address", "0"]);
    try {
      await eventually("leadership", () => /became leader/.test(run.stderr()), { timeoutMs: SUBPROCESS_TIMEOUT_MS });
      server.faults.inject({ resource: "leases.coordination.k8s.io", code: 500 });
      const status = await run.child.status;
      await run.drained;
      assert.equal(status.code, 1, run.stderr());
      assert.match(run.stderr(), /leader election lost/);
    } finally {
      await run.killAndReap();
    }
  });
});

Deno.test("two kubeop run replicas: the warm standby is ready, and takes over after the leader's SIGTERM", async () => {
  await withCluster(async (server, kubeconfig) => {
    const args = leaderElectArgs(kubeconfig);
    const holder = () => kubeopLease(server)?.spec?.holderIdentity;
    const ready = async (stderr: () => string) => {
      const url = probeUrl(stderr());
      if (!url) return false;
      const res = await fetch(`${url}/readyz`);
      await res.body?.cancel();
      return res.status === 200;
    };
    const a = spawnRun(args);
    const replicas = [a];
    try {
      await eventually("a to lead", () => identityOf(a.stderr()) !== undefined && holder() === identityOf(a.stderr()), {
        timeoutMs: SUBPROCESS_TIMEOUT_MS,
      });
      const b = spawnRun(args);
      replicas.push(b);
      await eventually("the standby to be ready", () => ready(b.stderr), { timeoutMs: SUBPROCESS_TIMEOUT_MS });
      const idB = identityOf(b.stderr())!;
      assert.notEqual(holder(), idB, "the standby must not lead while a holds the lease");
      assert.doesNotMatch(b.stderr(), /starting \d+ controllers/, "the standby runs no controllers");

      a.child.kill("SIGTERM");
      assert.equal((await a.child.status).code, 0, a.stderr());
      await eventually("the standby to take over", () => holder() === idB, { timeoutMs: SUBPROCESS_TIMEOUT_MS });
      await eventually("the new leader to start controllers", () => /starting \d+ controllers/.test(b.stderr()), {
        timeoutMs: SUBPROCESS_TIMEOUT_MS,
      });

      b.child.kill("SIGTERM");
      assert.equal((await b.child.status).code, 0, b.stderr());
      assert.equal(holder(), "");
    } finally {
      for (const r of replicas) await r.killAndReap();
    }
  });
});
