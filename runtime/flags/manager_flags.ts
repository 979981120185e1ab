/**
 * The flags of an operator's `run` (kubebuilder's scaffold flags, DESIGN §2): cluster access, namespaces, leader
 * election and its Lease timings, sharding, the metrics, probe and webhook servers, logging, concurrency and client
 * throttling. {@link MANAGER_FLAGS} is their parseArgs spec, {@link parseManagerFlags} reads and checks them (every
 * mistake a {@link UsageError} naming the flag), {@link managerFlagsUsage} is their help text and
 * {@link managerOptionsFromFlags} the Manager's options they make. `kubeop run` adds
 * `--controllers`; the `run` of a `kubeop init` project uses them as they are, with its own names as defaults.
 * @module
 */
import { parseGoDuration } from "../apimachinery/go_duration.ts";
import { type LeaderElectionDurations, validateLeaderElectionDurations } from "../leader/leader.ts";
import type { LogLevel } from "../observe/log.ts";
import type { ManagerOptions } from "../manager/manager_options.ts";
import { parseBindAddress } from "../manager/probes.ts";
import { DEFAULT_SHARD_BUCKETS } from "../shard/shard_ring.ts";
import {
  enumFlag,
  type FlagSpec,
  type FlagValues,
  intFlag,
  listFlag,
  logLevelFlag,
  stringFlag,
  UsageError,
} from "./parse_flags.ts";

/** The parseArgs spec of the manager flags (add `help` and a program's own flags to it). */
export const MANAGER_FLAGS: FlagSpec = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", multiple: true },
  "leader-elect": { type: "boolean" },
  "leader-election-id": { type: "string" },
  "leader-election-namespace": { type: "string" },
  "leader-elect-lease-duration": { type: "string" },
  "leader-elect-renew-deadline": { type: "string" },
  "leader-elect-retry-period": { type: "string" },
  "exit-on-lost-leadership": { type: "boolean" },
  "exit-on-cache-sync-timeout": { type: "boolean" },
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
};

/** A program's defaults of the flags that name things. */
export interface ManagerFlagDefaults {
  /** `--leader-election-id` (the Lease name). */
  leaderElectionId: string;
  /** `--leader-election-namespace` (undefined: the program resolves it at start; the help says how). */
  leaderElectionNamespace?: string;
  /** `--webhook-service-name`. */
  webhookServiceName: string;
  /** `--webhook-service-namespace` (undefined: the program resolves it at start). */
  webhookServiceNamespace?: string;
  /** `--log-format` (default json). */
  logFormat?: "json" | "text";
  /** `--metrics-bind-address` (default :8080). */
  metricsBindAddress?: string;
  /** `--health-probe-bind-address` (default :8081). */
  healthProbeBindAddress?: string;
  /** How the help describes the default of `--webhook-bind-address` (default `:9443`). */
  webhookBindAddressHelp?: string;
  /** How the help describes the default of each namespace left undefined above (default `the pod's namespace`). */
  namespaceHelp?: { leaderElection?: string; webhookService?: string };
}

/** Everything the manager flags ask for. */
export interface ManagerFlags {
  /** `--kubeconfig`. */
  kubeconfig?: string;
  /** `--context`. */
  context?: string;
  /** `--namespace` (repeatable); empty = all namespaces. */
  namespaces: string[];
  /** `--leader-elect`. */
  leaderElect: boolean;
  /** `--leader-election-id` (Lease name). */
  leaderElectionId: string;
  /** `--leader-election-namespace` (undefined: resolved at start). */
  leaderElectionNamespace?: string;
  /** `--leader-elect-lease-duration`, `--leader-elect-renew-deadline`, `--leader-elect-retry-period` (validated). */
  leaderElection: Required<LeaderElectionDurations>;
  /** `--exit-on-lost-leadership`: exit 1 on a lost Lease instead of campaigning again (default false). */
  exitOnLostLeadership: boolean;
  /** `--exit-on-cache-sync-timeout`: exit 1 when the caches have not synced within 2 minutes (default: keep waiting). */
  exitOnCacheSyncTimeout: boolean;
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
  /** `--webhook-bind-address` ("0": no webhook server; undefined: the program's default). */
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

function bindAddressFlag(prefix: string, values: FlagValues, name: string, fallback: string): string;
function bindAddressFlag(prefix: string, values: FlagValues, name: string, fallback?: string): string | undefined;
function bindAddressFlag(prefix: string, values: FlagValues, name: string, fallback?: string): string | undefined {
  const raw = stringFlag(values, name) ?? fallback;
  if (raw === undefined) return undefined;
  try {
    parseBindAddress(raw);
  } catch {
    throw new UsageError(`${prefix}: flag --${name} must be host:port, :port or 0, got "${raw}"`);
  }
  return raw;
}

const DURATION_FLAGS = {
  leaseSeconds: { flag: "leader-elect-lease-duration", fallback: "15s" },
  renewDeadlineSeconds: { flag: "leader-elect-renew-deadline", fallback: "10s" },
  retryPeriodSeconds: { flag: "leader-elect-retry-period", fallback: "2s" },
} as const;

/** Reads the three Lease timings and checks them as leader.ts does, naming the flags in the error. */
function leaderElectionFlags(prefix: string, values: FlagValues): Required<LeaderElectionDurations> {
  const durations: LeaderElectionDurations = {};
  for (const [field, { flag, fallback }] of Object.entries(DURATION_FLAGS)) {
    const raw = stringFlag(values, flag) ?? fallback;
    let ms: number;
    try {
      ms = parseGoDuration(raw);
    } catch {
      throw new UsageError(`${prefix}: flag --${flag} must be a duration such as 15s, 500ms or 1m, got "${raw}"`);
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
    throw new UsageError(`${prefix}: ${message.replace(/^leader election: /, "")}`);
  }
}

const NOT_EMPTY = [
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
];

/**
 * Reads and checks the manager flags of `values` (parsed with {@link MANAGER_FLAGS}); `prefix` starts every error
 * message (`my-operator run`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MANAGER_FLAGS, parseManagerFlags } from "./manager_flags.ts";
 * import { parseFlags } from "./parse_flags.ts";
 * const defaults = { leaderElectionId: "my-operator-leader", webhookServiceName: "my-operator-webhook" };
 * const values = parseFlags("my-operator run", ["--leader-elect", "--namespace=a,b", "--shards", "auto"], MANAGER_FLAGS);
 * const flags = parseManagerFlags("my-operator run", values, defaults);
 * assert.deepEqual([flags.leaderElect, flags.leaderElectionId, flags.namespaces, flags.shards], [
 *   true, "my-operator-leader", ["a", "b"], "auto",
 * ]);
 * const bad = parseFlags("my-operator run", ["--leader-elect-lease-duration=5s"], MANAGER_FLAGS);
 * assert.throws(() => parseManagerFlags("my-operator run", bad, defaults), /--leader-elect-lease-duration \(5s\)/);
 * ```
 */
export function parseManagerFlags(prefix: string, values: FlagValues, defaults: ManagerFlagDefaults): ManagerFlags {
  const maxConcurrent = values["max-concurrent-reconciles"] === undefined
    ? undefined
    : intFlag(prefix, values, "max-concurrent-reconciles", 1);
  if (maxConcurrent === 0) {
    throw new UsageError(`${prefix}: flag --max-concurrent-reconciles must be at least 1, got "0"`);
  }
  const qpsRaw = values["kube-api-qps"];
  const kubeApiQps = qpsRaw === undefined ? undefined : Number(qpsRaw);
  if (kubeApiQps !== undefined && (typeof qpsRaw !== "string" || !/^\d+(\.\d+)?$/.test(qpsRaw))) {
    throw new UsageError(`${prefix}: flag --kube-api-qps must be a non-negative number, got "${qpsRaw}"`);
  }
  const kubeApiBurst = values["kube-api-burst"] === undefined
    ? undefined
    : intFlag(prefix, values, "kube-api-burst", 0);
  if (kubeApiBurst !== undefined && !(kubeApiQps! > 0)) {
    throw new UsageError(`${prefix}: flag --kube-api-burst needs --kube-api-qps > 0`);
  }
  const shardBuckets = intFlag(prefix, values, "shard-buckets", DEFAULT_SHARD_BUCKETS);
  if (shardBuckets < 1 || shardBuckets > 65536) {
    throw new UsageError(`${prefix}: flag --shard-buckets must be between 1 and 65536, got "${shardBuckets}"`);
  }
  for (const flag of NOT_EMPTY) {
    if (values[flag] === "") throw new UsageError(`${prefix}: flag --${flag} must not be empty`);
  }
  return {
    kubeconfig: stringFlag(values, "kubeconfig"),
    context: stringFlag(values, "context"),
    namespaces: [...new Set(listFlag(values, "namespace"))],
    leaderElect: values["leader-elect"] === true,
    leaderElectionId: stringFlag(values, "leader-election-id") ?? defaults.leaderElectionId,
    leaderElectionNamespace: stringFlag(values, "leader-election-namespace") ?? defaults.leaderElectionNamespace,
    leaderElection: leaderElectionFlags(prefix, values),
    exitOnLostLeadership: values["exit-on-lost-leadership"] === true,
    exitOnCacheSyncTimeout: values["exit-on-cache-sync-timeout"] === true,
    shards: enumFlag(prefix, values, "shards", ["auto", "off"] as const, "off"),
    shardBuckets,
    metricsBindAddress: bindAddressFlag(prefix, values, "metrics-bind-address", defaults.metricsBindAddress ?? ":8080"),
    metricsSecure: values["metrics-secure"] === true,
    metricsCertDir: stringFlag(values, "metrics-cert-dir"),
    healthProbeBindAddress: bindAddressFlag(
      prefix,
      values,
      "health-probe-bind-address",
      defaults.healthProbeBindAddress ?? ":8081",
    ),
    webhookBindAddress: bindAddressFlag(prefix, values, "webhook-bind-address"),
    webhookCertDir: stringFlag(values, "webhook-cert-dir"),
    webhookClientCA: stringFlag(values, "webhook-client-ca"),
    webhookTokenAudience: stringFlag(values, "webhook-token-audience"),
    webhookServiceName: stringFlag(values, "webhook-service-name") ?? defaults.webhookServiceName,
    webhookServiceNamespace: stringFlag(values, "webhook-service-namespace") ?? defaults.webhookServiceNamespace,
    logFormat: enumFlag(prefix, values, "log-format", ["json", "text"] as const, defaults.logFormat ?? "json"),
    logLevel: logLevelFlag(prefix, values),
    maxConcurrentReconciles: maxConcurrent,
    gracefulShutdownMs: intFlag(prefix, values, "graceful-shutdown-timeout-seconds", 25) * 1000,
    kubeApiQps: kubeApiQps! > 0 ? kubeApiQps : undefined,
    kubeApiBurst,
  };
}

/** The help lines of the manager flags, with `defaults` filled in (one flag a line or two, indented two spaces). */
export function managerFlagsUsage(defaults: ManagerFlagDefaults): string {
  const leaseNs = defaults.leaderElectionNamespace ??
    defaults.namespaceHelp?.leaderElection ?? `the pod's namespace, else "default"`;
  const webhookNs = defaults.webhookServiceNamespace ?? defaults.namespaceHelp?.webhookService ?? "the pod's namespace";
  return `  --kubeconfig PATH                   kubeconfig file (default $KUBECONFIG, ~/.kube/config, then in-cluster)
  --context NAME                      kubeconfig context (default: current-context)
  --namespace NS                      watch only this namespace, repeatable or comma-separated (default: all)
  --leader-elect[=true|false]         elect a leader through a Lease; only the leader reconciles
  --leader-election-id NAME           Lease name (default ${defaults.leaderElectionId})
  --leader-election-namespace NS      Lease namespace (default: ${leaseNs})
  --leader-elect-lease-duration D     how long a Lease is valid without renewal (default 15s)
  --leader-elect-renew-deadline D     how long the leader tries to renew before it stops writing (default 10s)
  --leader-elect-retry-period D       interval between acquire/renew attempts (default 2s)
                                      (D: a Go duration such as 15s, 500ms, 1m; lease > renew deadline > 1.2 × retry)
  --exit-on-lost-leadership           exit 1 when the Lease is lost (controller-runtime's way); by default the
                                      replica stops its controllers, keeps its caches and campaigns again
  --exit-on-cache-sync-timeout        exit 1 when the caches have not synced within 2 minutes (controller-runtime's
                                      way); by default the replica logs it, keeps /readyz failing and waits on
  --shards auto|off                   auto: every replica runs the controllers and they split the objects by uid
                                      over bucket Leases <leader-election-id>-bucket-N (docs/sharding.md); the
                                      Lease timings above apply to the buckets (default off)
  --shard-buckets N                   buckets of the uid hash space, the same on every replica (default ${DEFAULT_SHARD_BUCKETS})
  --metrics-bind-address ADDR         /metrics address (default ${defaults.metricsBindAddress ?? ":8080"}; 0 disables)
  --metrics-secure[=true|false]       serve /metrics over HTTPS to callers allowed by TokenReview and
                                      SubjectAccessReview (get on /metrics; default false)
  --metrics-cert-dir DIR              with --metrics-secure: tls.crt and tls.key (default: self-signed)
  --health-probe-bind-address ADDR    /healthz and /readyz address (default ${
    defaults.healthProbeBindAddress ?? ":8081"
  }; 0 disables)
  --webhook-bind-address ADDR         HTTPS address of the admission/conversion webhooks
                                      (default ${defaults.webhookBindAddressHelp ?? ":9443"}; 0 disables)
  --webhook-cert-dir DIR              tls.crt and tls.key for the webhooks (cert-manager), reloaded on change
                                      (default: a self-managed CA in the Secret <service>-ca, caBundle injected)
  --webhook-client-ca FILE            require kube-apiserver's client certificate, signed by the CA in FILE
                                      (TLS handshake; controller-runtime's ClientCAName; default: not asked)
  --webhook-token-audience AUD        require a bearer token valid for AUD (TokenReview; KEP-6060 webhook tokens,
                                      alpha in Kubernetes v1.37; default: no token asked)
  --webhook-service-name NAME         the webhook Service, named in the certificate (default ${defaults.webhookServiceName})
  --webhook-service-namespace NS      its namespace, where the CA Secret lives (default: ${webhookNs})
  --log-format json|text              (default ${defaults.logFormat ?? "json"})
  --log-level LEVEL                   trace|debug|info|warning|error|fatal (default info)
  --max-concurrent-reconciles N       workers per controller (default: each controller's own, usually 1)
  --graceful-shutdown-timeout-seconds N   longest drain of in-flight reconciles on shutdown (default 25)
  --kube-api-qps N                    client-side limit, requests/s to the API server (default 0: unthrottled)
  --kube-api-burst N                  burst of that limit (default: ceil(qps))`;
}

/** What the Manager takes from the flags. */
export type ManagerOptionsFromFlags = Pick<
  ManagerOptions,
  | "namespaces"
  | "leaderElection"
  | "sharding"
  | "metricsBindAddress"
  | "metricsSecure"
  | "metricsCertDir"
  | "healthProbeBindAddress"
  | "gracefulShutdownMs"
  | "maxConcurrentReconciles"
  | "exitOnCacheSyncTimeout"
>;

/**
 * The Manager's options from `flags`: namespaces, the leader election and sharding Leases (in `leaseNamespace`, this
 * replica named `identity`, default the Manager's), the servers' addresses, drain time and concurrency.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MANAGER_FLAGS, managerOptionsFromFlags, parseManagerFlags } from "./manager_flags.ts";
 * import { parseFlags } from "./parse_flags.ts";
 * const values = parseFlags("my-operator run", ["--leader-elect", "--metrics-bind-address=0"], MANAGER_FLAGS);
 * const flags = parseManagerFlags("my-operator run", values, { leaderElectionId: "mine", webhookServiceName: "w" });
 * const opts = managerOptionsFromFlags(flags, { leaseNamespace: "my-operator-system" });
 * assert.deepEqual([opts.leaderElection?.id, opts.leaderElection?.namespace, opts.metricsBindAddress, opts.sharding], [
 *   "mine", "my-operator-system", "0", undefined,
 * ]);
 * ```
 */
export function managerOptionsFromFlags(
  flags: ManagerFlags,
  where: { leaseNamespace: string; identity?: string },
): ManagerOptionsFromFlags {
  const lease = { id: flags.leaderElectionId, identity: where.identity, namespace: where.leaseNamespace };
  return {
    namespaces: flags.namespaces,
    leaderElection: flags.leaderElect
      ? { ...lease, ...flags.leaderElection, exitOnLostLeadership: flags.exitOnLostLeadership }
      : undefined,
    sharding: flags.shards === "auto" ? { ...lease, buckets: flags.shardBuckets, ...flags.leaderElection } : undefined,
    metricsBindAddress: flags.metricsBindAddress,
    metricsSecure: flags.metricsSecure,
    metricsCertDir: flags.metricsCertDir,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    gracefulShutdownMs: flags.gracefulShutdownMs,
    maxConcurrentReconciles: flags.maxConcurrentReconciles,
    exitOnCacheSyncTimeout: flags.exitOnCacheSyncTimeout,
  };
}
