import assert from "node:assert/strict";
import { UsageError } from "./flags.ts";
import { parseRunFlags, type RunOptions } from "./run.ts";

Deno.test("kubeop run defaults (controllers, addresses, log format, Lease timings)", () => {
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

Deno.test("kubeop run reads --graceful-shutdown-timeout-seconds in seconds and refuses non-integers", () => {
  assert.equal((parseRunFlags(["--graceful-shutdown-timeout-seconds", "3"]) as RunOptions).gracefulShutdownMs, 3_000);
  assert.throws(
    () => parseRunFlags(["--graceful-shutdown-timeout-seconds", "1.5"]),
    (err) =>
      err instanceof UsageError &&
      /--graceful-shutdown-timeout-seconds must be a non-negative integer/.test(err.message),
  );
});

Deno.test("kubeop run refuses empty connection and Lease names", () => {
  for (const flag of ["kubeconfig", "context", "leader-election-namespace"]) {
    assert.throws(
      () => parseRunFlags([`--${flag}=`]),
      (err) => err instanceof UsageError && err.message.includes(`flag --${flag} must not be empty`),
      flag,
    );
  }
});

Deno.test("kubeop run --kube-api-qps/--kube-api-burst set the client's token bucket; mistakes name the flag", () => {
  assert.equal((parseRunFlags([]) as RunOptions).kubeApiQps, undefined, "unthrottled by default");
  const opts = parseRunFlags(["--kube-api-qps", "20", "--kube-api-burst=30"]) as RunOptions;
  assert.equal(opts.kubeApiQps, 20);
  assert.equal(opts.kubeApiBurst, 30);
  assert.equal((parseRunFlags(["--kube-api-qps", "2.5"]) as RunOptions).kubeApiQps, 2.5);
  assert.equal((parseRunFlags(["--kube-api-qps", "0"]) as RunOptions).kubeApiQps, undefined, "0 = unthrottled");
  assert.throws(
    () => parseRunFlags(["--kube-api-qps", "fast"]),
    (e) => e instanceof UsageError && /kube-api-qps/.test(e.message),
  );
  assert.throws(
    () => parseRunFlags(["--kube-api-burst", "5"]),
    (e) => e instanceof UsageError && /kube-api-burst/.test(e.message),
  );
});

Deno.test("kubeop run --shards auto|off (default off) and --shard-buckets (default 16, 1..65536)", () => {
  const defaults = parseRunFlags([]) as RunOptions;
  assert.equal(defaults.shards, "off");
  assert.equal(defaults.shardBuckets, 16);
  const opts = parseRunFlags(["--shards", "auto", "--shard-buckets", "32"]) as RunOptions;
  assert.equal(opts.shards, "auto");
  assert.equal(opts.shardBuckets, 32);
  assert.throws(
    () => parseRunFlags(["--shards", "on"]),
    (e) => e instanceof UsageError && /--shards must be one of auto\|off/.test(e.message),
  );
  assert.throws(() => parseRunFlags(["--shard-buckets", "0"]), /--shard-buckets must be between 1 and 65536/);
  assert.throws(() => parseRunFlags(["--shard-buckets", "x"]), /--shard-buckets must be a non-negative integer/);
});

Deno.test("kubeop run webhook flags: unset by default (./webhook_default.ts), 0 disables, cert dir and Service names", () => {
  const defaults = parseRunFlags([]) as RunOptions;
  assert.equal(defaults.webhookBindAddress, undefined);
  assert.equal(defaults.webhookCertDir, undefined);
  assert.equal(defaults.webhookServiceName, "kubeop-webhook");
  assert.equal(defaults.webhookServiceNamespace, undefined);
  const opts = parseRunFlags([
    "--webhook-bind-address=0",
    "--webhook-cert-dir",
    "/tmp/k8s-webhook-server/serving-certs",
    "--webhook-service-name=hooks",
    "--webhook-service-namespace=ops",
  ]) as RunOptions;
  assert.deepEqual(
    [opts.webhookBindAddress, opts.webhookCertDir, opts.webhookServiceName, opts.webhookServiceNamespace],
    ["0", "/tmp/k8s-webhook-server/serving-certs", "hooks", "ops"],
  );
  assert.throws(() => parseRunFlags(["--webhook-bind-address", "9443"]), /--webhook-bind-address/);
  assert.throws(() => parseRunFlags(["--webhook-cert-dir="]), /--webhook-cert-dir must not be empty/);
});
