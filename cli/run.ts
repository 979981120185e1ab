/**
 * `kubeop run`: runs the selected controllers against a cluster with the flags of DESIGN §2 (kubebuilder's
 * scaffold flags). SIGTERM/SIGINT stop it gracefully (drain ≤ 25 s, release the Lease, exit 0); losing the Lease
 * exits 1; a usage error exits 2 with a one-line message naming the flag.
 * @module
 */

import { loadSeedSystems } from "../controllers/load.ts";
import { CONTROLLER_NAMES, type ControllerName } from "../controllers/seed_system.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { defaultIdentity, LeadershipLostError } from "../runtime/leader/leader.ts";
import { configureLogging, kubeopLogger } from "../runtime/observe/log.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { WEBHOOK_DEFAULTS } from "../runtime/webhook/manifests.ts";
import {
  MANAGER_FLAGS,
  type ManagerFlagDefaults,
  type ManagerFlags,
  managerFlagsUsage,
  managerOptionsFromFlags,
  parseManagerFlags,
} from "../runtime/flags/manager_flags.ts";
import { type FlagSpec, listFlag, parseFlags, UsageError } from "./flags.ts";
import { loadCliClusterConfig } from "./cluster.ts";
import { describeIdentity } from "./identity.ts";
import { podNamespace } from "./pod_namespace.ts";
import { listenDetail, listening, logStartup, type OnOff } from "./startup_summary.ts";
import { stopOnSignals } from "./signals.ts";
import { runningInCluster, webhookServing } from "./webhook_default.ts";
import { KUBEOP_VERSION } from "./version.ts";
import { readEnvIfAllowed, watchListFromEnv } from "./watch_list_env.ts";

const SPEC: FlagSpec = { ...MANAGER_FLAGS, controllers: { type: "string" }, help: { type: "boolean", short: "h" } };

/** kubeop's defaults of the manager flags (runtime/flags/manager_flags.ts). */
const DEFAULTS: ManagerFlagDefaults = {
  leaderElectionId: "kubeop",
  webhookServiceName: WEBHOOK_DEFAULTS.serviceName,
  webhookBindAddressHelp: ":9443 in a pod, off elsewhere",
  namespaceHelp: { webhookService: `the pod's namespace, else ${WEBHOOK_DEFAULTS.namespace}` },
};

const USAGE = `Usage: kubeop run [flags]

Runs the controllers against a cluster.

Flags:
  --controllers LIST                  comma-separated: ${CONTROLLER_NAMES.join(",")} (default: all)
${managerFlagsUsage(DEFAULTS)}`;

/** Everything `kubeop run` was asked to do: the manager flags and `--controllers`. */
export interface RunOptions extends ManagerFlags {
  /** `--controllers`. */
  controllers: ControllerName[];
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
  return {
    ...parseManagerFlags("kubeop run", values, DEFAULTS),
    controllers: [...new Set(requested)] as ControllerName[],
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
      watchList: watchListFromEnv(readEnvIfAllowed),
      ...managerOptionsFromFlags(opts, { leaseNamespace, identity }),
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
