/**
 * `kubeop run`: runs the selected controllers against a cluster with the flags of DESIGN §2 (kubebuilder's
 * scaffold flags). SIGTERM/SIGINT stop it gracefully (drain ≤ 25 s, release the Lease, exit 0); losing the Lease
 * exits 1; a usage error exits 2 with a one-line message naming the flag.
 * @module
 */

import { loadSeedSystems } from "../controllers/load.ts";
import { CONTROLLER_NAMES, type ControllerName } from "../controllers/seed_system.ts";
import { parseGoDuration } from "../runtime/apimachinery/go_duration.ts";
import { KubeClient } from "../runtime/client/client.ts";
import {
  defaultIdentity,
  type LeaderElectionDurations,
  LeadershipLostError,
  validateLeaderElectionDurations,
} from "../runtime/leader/leader.ts";
import { configureLogging, kubeopLogger, type LogLevel } from "../runtime/observe/log.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { DEFAULT_SHARD_BUCKETS } from "../runtime/shard/shard_ring.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { parseBindAddress } from "../runtime/manager/probes.ts";
import { WEBHOOK_DEFAULTS } from "../runtime/webhook/manifests.ts";
import {
  enumFlag,
  type FlagSpec,
  intFlag,
  listFlag,
  logLevelFlag,
  parseFlags,
  stringFlag,
  UsageError,
} from "./flags.ts";
import { loadCliClusterConfig } from "./cluster.ts";
import { describeIdentity } from "./identity.ts";
import { podNamespace } from "./pod_namespace.ts";
import { listenDetail, listening, logStartup, type OnOff } from "./startup_summary.ts";
import { stopOnSignals } from "./signals.ts";
import { runningInCluster, webhookServing } from "./webhook_default.ts";
import { KUBEOP_VERSION } from "./version.ts";
import { readEnvIfAllowed, watchListFromEnv } from "./watch_list_env.ts";

const SPEC: FlagSpec = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", multiple: true },
  controllers: { type: "string" },
  "leader-elect": { type: "boolean" },
  "leader-election-id": { type: "string" },
  "leader-election-namespace": { type: "string" },
  "leader-elect-lease-duration": { type: "string" },
  "leader-elect-renew-deadline": { type: "string" },
  "leader-elect-retry-period": { type: "string" },
  "exit-on-lost-leadership": { type: "boolean" },
  shards: { type: "string" },
  "shard-buckets": { type: "string" },
  "metrics-bind-address": { type: "string" },
  "metrics-secure": { type: "boolean" },
  "metrics-cert-dir": { type: "string" },
  "health-probe-bind-address": { type: "string" },
  "webhook-bind-address": { type: "string" },
  "webhook-cert-dir": { type: "string" },
  "webhook-client-ca": { type: "string" },
  "webhook-token-audience": { type: "string" },
  "webhook-service-name": { type: "string" },
  "webhook-service-namespace": { type: "string" },
  "log-format": { type: "string" },
  "log-level": { type: "string" },
  "max-concurrent-reconciles": { type: "string" },
  "graceful-shutdown-timeout-seconds": { type: "string" },
  "kube-api-qps": { type: "string" },
  "kube-api-burst": { type: "string" },
  help: { type: "boolean", short: "h" },
};

const USAGE = `Usage: kubeop run [flags]

Runs the controllers against a cluster.

Flags:
  --kubeconfig PATH                   kubeconfig file (default $KUBECONFIG, ~/.kube/config, then in-cluster)
  --context NAME                      kubeconfig context (default: current-context)
  --namespace NS                      watch only this namespace (default: all namespaces)
  --controllers LIST                  comma-separated: ${CONTROLLER_NAMES.join(",")} (default: all)
  --leader-elect[=true|false]         elect a leader through a Lease; only the leader reconciles
  --leader-election-id NAME           Lease name (default kubeop)
  --leader-election-namespace NS      Lease namespace (default: the pod's namespace, else "default")
  --leader-elect-lease-duration D     how long a Lease is valid without renewal (default 15s)
  --leader-elect-renew-deadline D     how long the leader tries to renew before it stops writing (default 10s)
  --leader-elect-retry-period D       interval between acquire/renew attempts (default 2s)
                                      (D: a Go duration such as 15s, 500ms, 1m; lease > renew deadline > 1.2 × retry)
  --exit-on-lost-leadership           exit 1 when the Lease is lost (controller-runtime's way); by default the
                                      replica stops its controllers, keeps its caches and campaigns again
  --shards auto|off                   auto: every replica runs the controllers and they split the objects by uid
                                      over bucket Leases <leader-election-id>-bucket-N (docs/sharding.md); the
                                      Lease timings above apply to the buckets (default off)
  --shard-buckets N                   buckets of the uid hash space, the same on every replica (default 16)
  --metrics-bind-address ADDR         /metrics address (default :8080; 0 disables)
  --metrics-secure[=true|false]       serve /metrics over HTTPS to callers allowed by TokenReview and
                                      SubjectAccessReview (get on /metrics; default false)
  --metrics-cert-dir DIR              with --metrics-secure: tls.crt and tls.key (default: self-signed)
  --health-probe-bind-address ADDR    /healthz and /readyz address (default :8081; 0 disables)
  --webhook-bind-address ADDR         HTTPS address of the admission/conversion webhooks of the selected
                                      controllers (default: :9443 in a pod, off elsewhere; 0 disables)
  --webhook-cert-dir DIR              tls.crt and tls.key for the webhooks (cert-manager), reloaded on change
                                      (default: a self-managed CA in the Secret <service>-ca, caBundle injected)
  --webhook-client-ca FILE            require kube-apiserver's client certificate, signed by the CA in FILE
                                      (TLS handshake; controller-runtime's ClientCAName; default: not asked)
  --webhook-token-audience AUD        require a bearer token valid for AUD (TokenReview; KEP-6060 webhook tokens,
                                      alpha in Kubernetes v1.37; default: no token asked)
  --webhook-service-name NAME         the webhook Service, named in the certificate (default kubeop-webhook)
  --webhook-service-namespace NS      its namespace, where the CA Secret lives (default: the pod's namespace,
                                      else kubeop-system)
  --log-format json|text              (default json)
  --log-level LEVEL                   trace|debug|info|warning|error|fatal (default info)
  --max-concurrent-reconciles N       workers per controller (default: each controller's own, usually 1)
  --graceful-shutdown-timeout-seconds N   longest drain of in-flight reconciles on shutdown (default 25)
  --kube-api-qps N                    client-side limit, requests/s to the API server (default 0: unthrottled)
  --kube-api-burst N                  burst of that limit (default: ceil(qps))`;

/** Everything `kubeop run` was asked to do. */
export interface RunOptions {
  /** `--kubeconfig`. */
  kubeconfig?: string;
  /** `--context`. */
  context?: string;
  /** `--namespace` (repeatable); empty = all namespaces. */
  namespaces: string[];
  /** `--controllers`. */
  controllers: ControllerName[];
  /** `--leader-elect`. */
  leaderElect: boolean;
  /** `--leader-election-id` (Lease name). */
  leaderElectionId: string;
  /** Undefined: resolved at start (in-cluster namespace, else "default"). */
  leaderElectionNamespace?: string;
  /** `--leader-elect-lease-duration`, `--leader-elect-renew-deadline`, `--leader-elect-retry-period` (validated). */
  leaderElection: Required<LeaderElectionDurations>;
  /** `--exit-on-lost-leadership`: exit 1 on a lost Lease instead of campaigning again (default false). */
  exitOnLostLeadership: boolean;
  /** `--shards`: auto splits the work over the replicas (docs/sharding.md). */
  shards: "auto" | "off";
  /** `--shard-buckets`. */
  shardBuckets: number;
  /** `--metrics-bind-address`. */
  metricsBindAddress: string;
  /** `--metrics-secure`. */
  metricsSecure: boolean;
  /** `--metrics-cert-dir`. */
  metricsCertDir?: string;
  /** `--health-probe-bind-address`. */
  healthProbeBindAddress: string;
  /** `--webhook-bind-address` ("0": no webhook server; undefined: :9443 in a pod, off elsewhere — ./webhook_default.ts). */
  webhookBindAddress?: string;
  /** `--webhook-cert-dir` (undefined: self-managed certificates). */
  webhookCertDir?: string;
  /** `--webhook-client-ca` (undefined: no client certificate asked). */
  webhookClientCA?: string;
  /** `--webhook-token-audience` (undefined: no token asked). */
  webhookTokenAudience?: string;
  /** `--webhook-service-name`. */
  webhookServiceName: string;
  /** `--webhook-service-namespace` (undefined: resolved at start). */
  webhookServiceNamespace?: string;
  /** `--log-format`. */
  logFormat: "json" | "text";
  /** `--log-level`. */
  logLevel: LogLevel;
  /** `--max-concurrent-reconciles`. */
  maxConcurrentReconciles?: number;
  /** `--kube-api-qps` (undefined: unthrottled). */
  kubeApiQps?: number;
  /** `--kube-api-burst`. */
  kubeApiBurst?: number;
  /** `--graceful-shutdown-timeout-seconds` × 1000. */
  gracefulShutdownMs: number;
}

function bindAddressFlag(values: Record<string, unknown>, name: string, fallback: string): string;
function bindAddressFlag(values: Record<string, unknown>, name: string, fallback?: string): string | undefined;
function bindAddressFlag(values: Record<string, unknown>, name: string, fallback?: string): string | undefined {
  const raw = stringFlag(values as never, name) ?? fallback;
  if (raw === undefined) return undefined;
  try {
    parseBindAddress(raw);
  } catch {
    throw new UsageError(`kubeop run: flag --${name} must be host:port, :port or 0, got "${raw}"`);
  }
  return raw;
}

const DURATION_FLAGS = {
  leaseSeconds: { flag: "leader-elect-lease-duration", fallback: "15s" },
  renewDeadlineSeconds: { flag: "leader-elect-renew-deadline", fallback: "10s" },
  retryPeriodSeconds: { flag: "leader-elect-retry-period", fallback: "2s" },
} as const;

/** Reads the three Lease timings and checks them as leader.ts does, naming the flags in the error. */
function leaderElectionFlags(values: Record<string, unknown>): Required<LeaderElectionDurations> {
  const durations: LeaderElectionDurations = {};
  for (const [field, { flag, fallback }] of Object.entries(DURATION_FLAGS)) {
    const raw = stringFlag(values as never, flag) ?? fallback;
    let ms: number;
    try {
      ms = parseGoDuration(raw);
    } catch {
      throw new UsageError(`kubeop run: flag --${flag} must be a duration such as 15s, 500ms or 1m, got "${raw}"`);
    }
    durations[field as keyof LeaderElectionDurations] = ms / 1000;
  }
  try {
    return validateLeaderElectionDurations(durations);
  } catch (err) {
    // "leaseSeconds (10) must be greater than renewDeadlineSeconds (10)" → the flags' names and units.
    let message = (err as Error).message;
    for (const [field, { flag }] of Object.entries(DURATION_FLAGS)) {
      message = message.replace(
        new RegExp(`${field}( \\(([^)]*)\\))?`),
        (_all, _v, v) => `--${flag}${v ? ` (${v}s)` : ""}`,
      );
    }
    throw new UsageError(`kubeop run: ${message.replace(/^leader election: /, "")}`);
  }
}

/** Parses and validates `kubeop run` flags; every mistake is a {@link UsageError} naming the flag. */
export function parseRunFlags(args: string[]): RunOptions | "help" {
  const values = parseFlags("run", args, SPEC);
  if (values.help) return "help";
  const requested = values.controllers === undefined ? [...CONTROLLER_NAMES] : listFlag(values, "controllers");
  for (const name of requested) {
    if (!(CONTROLLER_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(
        `kubeop run: flag --controllers: unknown controller "${name}" (known: ${CONTROLLER_NAMES.join(", ")})`,
      );
    }
  }
  const namespaces = listFlag(values, "namespace");
  const maxConcurrent = values["max-concurrent-reconciles"] === undefined
    ? undefined
    : intFlag("run", values, "max-concurrent-reconciles", 1);
  if (maxConcurrent === 0) {
    throw new UsageError(`kubeop run: flag --max-concurrent-reconciles must be at least 1, got "0"`);
  }
  const qpsRaw = values["kube-api-qps"];
  const kubeApiQps = qpsRaw === undefined ? undefined : Number(qpsRaw);
  if (kubeApiQps !== undefined && (typeof qpsRaw !== "string" || !/^\d+(\.\d+)?$/.test(qpsRaw))) {
    throw new UsageError(`kubeop run: flag --kube-api-qps must be a non-negative number, got "${qpsRaw}"`);
  }
  const kubeApiBurst = values["kube-api-burst"] === undefined ? undefined : intFlag("run", values, "kube-api-burst", 0);
  if (kubeApiBurst !== undefined && !(kubeApiQps! > 0)) {
    throw new UsageError(`kubeop run: flag --kube-api-burst needs --kube-api-qps > 0`);
  }
  const shardBuckets = intFlag("run", values, "shard-buckets", DEFAULT_SHARD_BUCKETS);
  if (shardBuckets < 1 || shardBuckets > 65536) {
    throw new UsageError(`kubeop run: flag --shard-buckets must be between 1 and 65536, got "${shardBuckets}"`);
  }
  for (
    const flag of [
      "kubeconfig",
      "context",
      "leader-election-id",
      "leader-election-namespace",
      "metrics-cert-dir",
      "webhook-cert-dir",
      "webhook-client-ca",
      "webhook-token-audience",
      "webhook-service-name",
      "webhook-service-namespace",
    ]
  ) {
    if (values[flag] === "") throw new UsageError(`kubeop run: flag --${flag} must not be empty`);
  }
  return {
    kubeconfig: stringFlag(values, "kubeconfig"),
    context: stringFlag(values, "context"),
    namespaces: [...new Set(namespaces)],
    controllers: [...new Set(requested)] as ControllerName[],
    leaderElect: values["leader-elect"] === true,
    leaderElectionId: stringFlag(values, "leader-election-id") ?? "kubeop",
    leaderElectionNamespace: stringFlag(values, "leader-election-namespace"),
    leaderElection: leaderElectionFlags(values),
    exitOnLostLeadership: values["exit-on-lost-leadership"] === true,
    shards: enumFlag("run", values, "shards", ["auto", "off"] as const, "off"),
    shardBuckets,
    metricsBindAddress: bindAddressFlag(values, "metrics-bind-address", ":8080"),
    metricsSecure: values["metrics-secure"] === true,
    metricsCertDir: stringFlag(values, "metrics-cert-dir"),
    healthProbeBindAddress: bindAddressFlag(values, "health-probe-bind-address", ":8081"),
    webhookBindAddress: bindAddressFlag(values, "webhook-bind-address"),
    webhookCertDir: stringFlag(values, "webhook-cert-dir"),
    webhookClientCA: stringFlag(values, "webhook-client-ca"),
    webhookTokenAudience: stringFlag(values, "webhook-token-audience"),
    webhookServiceName: stringFlag(values, "webhook-service-name") ?? WEBHOOK_DEFAULTS.serviceName,
    webhookServiceNamespace: stringFlag(values, "webhook-service-namespace"),
    logFormat: enumFlag("run", values, "log-format", ["json", "text"] as const, "json"),
    logLevel: logLevelFlag("run", values),
    maxConcurrentReconciles: maxConcurrent,
    gracefulShutdownMs: intFlag("run", values, "graceful-shutdown-timeout-seconds", 25) * 1000,
    kubeApiQps: kubeApiQps! > 0 ? kubeApiQps : undefined,
    kubeApiBurst,
  };
}

/** `kubeop run`: returns the exit code (0 after a graceful stop, 1 on failure or lost leadership). */
export async function runCommand(args: string[]): Promise<number> {
  const opts = parseRunFlags(args);
  if (opts === "help") {
    console.log(USAGE);
    return 0;
  }
  await configureLogging({ format: opts.logFormat, level: opts.logLevel });
  const log = kubeopLogger("run");
  const config = await loadCliClusterConfig("run", { kubeconfig: opts.kubeconfig, context: opts.context });
  const metrics = new Metrics();
  // With leader election or sharding, every request names the replica (as the Leases do): audit logs, and the fault
  // tests' leader- and shard-safety checkers, tell which replica wrote.
  const identity = opts.leaderElect || opts.shards === "auto" ? defaultIdentity() : undefined;
  const leaseNamespace = opts.leaderElect || opts.shards === "auto"
    ? opts.leaderElectionNamespace ?? await podNamespace() ?? "default"
    : "default";
  const userAgent = `kubeop/${KUBEOP_VERSION}${identity ? ` (${identity})` : ""}`;
  const client = new KubeClient({ config, metrics, userAgent, qps: opts.kubeApiQps, burst: opts.kubeApiBurst });

  const stop = new AbortController();
  const removeSignalListeners = stopOnSignals(stop, { log, exitOnSecondSignal: true });

  try {
    const manager = new Manager({
      client,
      metrics,
      logger: kubeopLogger(),
      namespaces: opts.namespaces,
      watchList: watchListFromEnv(readEnvIfAllowed),
      leaderElection: opts.leaderElect
        ? {
          id: opts.leaderElectionId,
          identity,
          namespace: leaseNamespace,
          ...opts.leaderElection,
          exitOnLostLeadership: opts.exitOnLostLeadership,
        }
        : undefined,
      sharding: opts.shards === "auto"
        ? {
          id: opts.leaderElectionId,
          identity,
          namespace: leaseNamespace,
          buckets: opts.shardBuckets,
          ...opts.leaderElection,
        }
        : undefined,
      metricsBindAddress: opts.metricsBindAddress,
      metricsSecure: opts.metricsSecure,
      metricsCertDir: opts.metricsCertDir,
      healthProbeBindAddress: opts.healthProbeBindAddress,
      gracefulShutdownMs: opts.gracefulShutdownMs,
      maxConcurrentReconciles: opts.maxConcurrentReconciles,
    });
    // Only the selected systems' modules are evaluated (controllers/load.ts).
    const systems = await loadSeedSystems(opts.controllers);
    for (const system of systems) {
      for (const controller of system.controllers({ informers: manager.informers })) manager.add(controller);
    }
    // The selected controllers' webhooks, served with the other servers (ready before the caches start).
    const webhooks = systems.flatMap((system) => system.webhooks({ client }));
    const serving = webhooks.length > 0 ? webhookServing(opts.webhookBindAddress, await runningInCluster()) : undefined;
    const webhookNamespace = opts.webhookServiceNamespace ?? await podNamespace() ?? WEBHOOK_DEFAULTS.namespace;
    if (serving?.serve) {
      // Imported only when served: the certificate code (x509) is not evaluated at every start.
      const { createWebhookServer } = await import("../runtime/webhook/setup.ts");
      manager.add(createWebhookServer({
        webhooks,
        bindAddress: serving.bindAddress,
        certDir: opts.webhookCertDir,
        clientCAFile: opts.webhookClientCA,
        tokenAudience: opts.webhookTokenAudience,
        client,
        serviceName: opts.webhookServiceName,
        namespace: webhookNamespace,
        metrics,
        logger: kubeopLogger("webhook"),
      }));
    }
    const webhooksFact: OnOff = !serving
      ? { on: false, why: "the selected controllers have none" }
      : !serving.serve
      ? { on: false, why: serving.reason }
      : {
        on: true,
        detail:
          `${listenDetail(serving.bindAddress, "https")}, Service ${webhookNamespace}/${opts.webhookServiceName}, ` +
          (opts.webhookCertDir
            ? `certificates from ${opts.webhookCertDir}`
            : `self-managed CA in Secret ${webhookNamespace}/${opts.webhookServiceName}-ca`) +
          (opts.webhookClientCA ? `, client certificates from ${opts.webhookClientCA} required` : "") +
          (opts.webhookTokenAudience ? `, bearer tokens for ${opts.webhookTokenAudience} required` : ""),
      };
    const metricsFact = listening(opts.metricsBindAddress, opts.metricsSecure ? "https" : "http");
    logStartup(log, {
      command: "run",
      version: KUBEOP_VERSION,
      cluster: config,
      identity: await describeIdentity(config),
      namespaces: opts.namespaces,
      controllers: opts.controllers,
      leaderElection: opts.leaderElect
        ? {
          on: true,
          detail: `Lease ${leaseNamespace}/${opts.leaderElectionId}, identity ${identity}, on loss ` +
            (opts.exitOnLostLeadership ? "exit" : "campaign again"),
        }
        : { on: false },
      sharding: opts.shards === "auto"
        ? {
          on: true,
          detail: `${opts.shardBuckets} buckets, Leases ${leaseNamespace}/${opts.leaderElectionId}-bucket-N, ` +
            `identity ${identity}`,
        }
        : { on: false },
      webhooks: webhooksFact,
      metrics: metricsFact.on && opts.metricsSecure
        ? { on: true, detail: `${metricsFact.detail}, callers checked by TokenReview and SubjectAccessReview` }
        : metricsFact,
      probes: listening(opts.healthProbeBindAddress, "http"),
    });
    await manager.start(stop.signal);
    log.info("stopped cleanly");
    return 0;
  } catch (err) {
    if (err instanceof LeadershipLostError) {
      log.error("{error}", { error: err.message });
      return 1;
    }
    throw err;
  } finally {
    removeSignalListeners();
    client.close();
  }
}
