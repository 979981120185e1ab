import assert from "node:assert/strict";
import { parseRunFlags, type RunOptions } from "../cli/run.ts";
import { UsageError } from "../cli/flags.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

async function kubeop(...args: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { HOME: "/nonexistent", KUBECONFIG: "" },
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("kubeop run defaults follow DESIGN §2", () => {
  const opts = parseRunFlags([]) as RunOptions;
  assert.deepEqual(opts.controllers, ["machine", "at", "netperf", "multisecret"]);
  assert.deepEqual(opts.namespaces, []);
  assert.equal(opts.leaderElect, false);
  assert.equal(opts.leaderElectionId, "kubeop");
  assert.equal(opts.leaderElectionNamespace, undefined);
  assert.equal(opts.metricsBindAddress, ":8080");
  assert.equal(opts.metricsSecure, false);
  assert.equal(opts.metricsCertDir, undefined);
  assert.equal(opts.healthProbeBindAddress, ":8081");
  assert.equal(opts.logFormat, "json");
  assert.equal(opts.logLevel, "info");
  assert.equal(opts.gracefulShutdownMs, 25_000);
  assert.equal(opts.maxConcurrentReconciles, undefined);
  assert.deepEqual(opts.leaderElection, { leaseSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 });
});

Deno.test("kubeop run takes --metrics-secure Go-style and --metrics-cert-dir", () => {
  assert.equal((parseRunFlags(["--metrics-secure"]) as RunOptions).metricsSecure, true);
  assert.equal((parseRunFlags(["--metrics-secure=true"]) as RunOptions).metricsSecure, true);
  assert.equal((parseRunFlags(["--metrics-secure=false"]) as RunOptions).metricsSecure, false);
  const opts = parseRunFlags(["--metrics-secure", "--metrics-cert-dir", "/tmp/k8s-metrics-server/serving-certs"]);
  assert.equal((opts as RunOptions).metricsCertDir, "/tmp/k8s-metrics-server/serving-certs");
  assert.throws(() => parseRunFlags(["--metrics-cert-dir="]), UsageError);
});

Deno.test("kubeop run reads the Lease timings as Go durations", () => {
  const opts = parseRunFlags([
    "--leader-elect-lease-duration",
    "1s",
    "--leader-elect-renew-deadline=600ms",
    "--leader-elect-retry-period",
    "200ms",
  ]) as RunOptions;
  assert.deepEqual(opts.leaderElection, { leaseSeconds: 1, renewDeadlineSeconds: 0.6, retryPeriodSeconds: 0.2 });
  const minutes = parseRunFlags(["--leader-elect-lease-duration", "1m30s", "--leader-elect-renew-deadline", "1m"]);
  assert.deepEqual((minutes as RunOptions).leaderElection, {
    leaseSeconds: 90,
    renewDeadlineSeconds: 60,
    retryPeriodSeconds: 2,
  });
});

Deno.test("kubeop run parses repeatable namespaces, controller lists and leader election flags", () => {
  const opts = parseRunFlags([
    "--namespace",
    "a",
    "--namespace=b",
    "--controllers",
    "machine, at,machine",
    "--leader-elect",
    "--leader-election-id",
    "my-lock",
    "--leader-election-namespace",
    "ops",
    "--metrics-bind-address",
    "0",
    "--health-probe-bind-address",
    "127.0.0.1:0",
    "--log-format",
    "text",
    "--log-level",
    "warn",
    "--max-concurrent-reconciles",
    "3",
  ]) as RunOptions;
  assert.deepEqual(opts.namespaces, ["a", "b"]);
  assert.deepEqual(opts.controllers, ["machine", "at"]);
  assert.equal(opts.leaderElect, true);
  assert.equal(opts.leaderElectionId, "my-lock");
  assert.equal(opts.leaderElectionNamespace, "ops");
  assert.equal(opts.metricsBindAddress, "0");
  assert.equal(opts.healthProbeBindAddress, "127.0.0.1:0");
  assert.equal(opts.logFormat, "text");
  assert.equal(opts.logLevel, "warning");
  assert.equal(opts.maxConcurrentReconciles, 3);
  assert.deepEqual((parseRunFlags(["--controllers", ""]) as RunOptions).controllers, []);
  assert.equal(parseRunFlags(["--help"]), "help");
});

Deno.test("kubeop run usage errors name the flag", () => {
  const cases: [string[], RegExp][] = [
    [["--controllers", "machine,nope"], /flag --controllers: unknown controller "nope"/],
    [["--metrics-bind-address", "8080"], /flag --metrics-bind-address must be host:port/],
    [["--health-probe-bind-address", "localhost"], /flag --health-probe-bind-address/],
    [["--log-format", "xml"], /flag --log-format must be one of json\|text/],
    [["--log-level", "loud"], /flag --log-level/],
    [["--max-concurrent-reconciles", "0"], /flag --max-concurrent-reconciles must be at least 1/],
    [["--max-concurrent-reconciles", "-1"], /--max-concurrent-reconciles/],
    [["--leader-election-id="], /flag --leader-election-id must not be empty/],
    [["--leader-elect-lease-duration", "15"], /flag --leader-elect-lease-duration must be a duration .*got "15"/],
    [["--leader-elect-retry-period", "2 s"], /flag --leader-elect-retry-period must be a duration/],
    [["--leader-elect-renew-deadline=-1s"], /--leader-elect-renew-deadline must be > 0, got -1/],
    [
      ["--leader-elect-lease-duration", "10s"],
      /--leader-elect-lease-duration \(10s\) must be greater than --leader-elect-renew-deadline \(10s\)/,
    ],
    [
      ["--leader-elect-retry-period", "9s"],
      /--leader-elect-renew-deadline \(10s\) must be greater than 1\.2 × --leader-elect-retry-period \(9s\)/,
    ],
    [["--kubeconfig"], /--kubeconfig/],
    [["--no-such-flag"], /--no-such-flag/],
    [["extra"], /unexpected argument "extra"/],
  ];
  for (const [args, message] of cases) {
    assert.throws(
      () => parseRunFlags(args),
      (err) => err instanceof UsageError && message.test(err.message),
      args.join(" "),
    );
  }
});

Deno.test("kubeop run exits 2 with a one-line message naming the flag", async () => {
  const bad = await kubeop("run", "--controllers", "machine,nope");
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
  assert.match(bad.stderr, /--controllers/);
  const port = await kubeop("run", "--health-probe-bind-address", ":http");
  assert.equal(port.code, 2);
  assert.match(port.stderr, /--health-probe-bind-address/);
  const lease = await kubeop("run", "--leader-elect-lease-duration", "5s");
  assert.equal(lease.code, 2);
  assert.equal(lease.stderr.trim().split("\n").length, 1);
  assert.match(lease.stderr, /--leader-elect-lease-duration \(5s\) must be greater than --leader-elect-renew-deadline/);
});

Deno.test("kubeop run without any cluster configuration exits 1", async () => {
  const res = await kubeop("run", "--metrics-bind-address", "0", "--health-probe-bind-address", "0");
  assert.equal(res.code, 1);
  assert.match(res.stderr, /no cluster configuration/);
});
