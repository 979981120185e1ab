/**
 * `kubeop dev`: the embedded control plane. Starts the fake API server on 127.0.0.1 (`--port`, default a free
 * port), writes a kubeconfig (`--kubeconfig-out`, default .kubeop/dev.kubeconfig), runs every registered starter
 * (CRDs, controllers, farm API are added by later steps through {@link DevOptions.extraStarters}), prints
 * `kubeop dev ready: KUBECONFIG=<path>` and stops cleanly on SIGINT/SIGTERM.
 * @module
 */
import { startFarmForDev } from "../apiservice/dev_starter.ts";
import { devKubeletBehaviour, startSeedControllers } from "../controllers/dev.ts";
import { CONTROLLER_NAMES } from "../controllers/mod.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import { configureLogging, kubeopLogger } from "../runtime/observe/log.ts";
import {
  type FakeApiServer,
  type FakeKubeletOptions,
  type FeatureGates,
  parseFeatureGates,
  startDevApiServer,
} from "../testing/mod.ts";
import { enumFlag, type FlagSpec, intFlag, logLevelFlag, parseFlags, stringFlag, UsageError } from "./flags.ts";
import { describeIdentity } from "./identity.ts";
import { logStartup } from "./startup_summary.ts";
import { KUBEOP_VERSION } from "./version.ts";

/** Starts something next to the dev server; returns how to stop it. */
export type DevStarter = (server: FakeApiServer) => Promise<() => Promise<void>>;

/** Options of {@link startDev}. */
export interface DevOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  /** Where the kubeconfig is written; default `.kubeop/dev.kubeconfig`. */
  kubeconfigOut?: string;
  /** Persist objects here and restore them on start. */
  dataDir?: string;
  /** Run the fake kubelet (default: scripted by devKubeletBehaviour); options replace the script. */
  kubelet?: boolean | FakeKubeletOptions;
  /** Started in order after the server; stopped in reverse order. */
  extraStarters?: DevStarter[];
  /** kube-apiserver feature gates of the fake server (e.g. `{ ShardedListAndWatch: true }`); v1.37's defaults. */
  featureGates?: Partial<FeatureGates>;
  /**
   * Requests without credentials are `system:anonymous`, authorized by RBAC (default true, as kube-apiserver);
   * false answers them 401 (`--anonymous-auth=false`). Never the admin: that takes the kubeconfig's credentials.
   */
  anonymousAuth?: boolean;
}

/** A running dev control plane. */
export interface DevEnvironment {
  server: FakeApiServer;
  kubeconfigPath: string;
  /** Where the controllers' webhooks listen (`https://127.0.0.1:<port>`), when served. */
  webhooksUrl?: string;
  /** The farm API server's own port (`https://127.0.0.1:<port>`; delegated auth against the dev server). */
  farmUrl?: string;
  stop(): Promise<void>;
}

/**
 * The starters every `kubeop dev` runs, given where the kubeconfig goes (its directory holds generated certs);
 * `report.webhooksUrl` is set once the webhooks serve.
 */
export function defaultDevStarters(
  kubeconfigPath: string,
  report: { webhooksUrl?: string; farmUrl?: string } = {},
): DevStarter[] {
  const dir = kubeconfigPath.includes("/") ? kubeconfigPath.slice(0, kubeconfigPath.lastIndexOf("/")) : ".";
  return [
    // the seed systems: install their CRDs, run the four controllers
    (server) =>
      startSeedControllers({ kubeconfig: server.kubeconfig, onWebhooksServing: (url) => report.webhooksUrl = url }),
    // the farm aggregated API (llamas, farmpods), registered in-process for farm.example.com/v1alpha
    (server) =>
      startFarmForDev(server, { certDir: `${dir}/farm-certs`, onServing: (farm) => report.farmUrl = farm.url }),
  ];
}

/** The default kubeconfig path. */
export const DEFAULT_KUBECONFIG_OUT = ".kubeop/dev.kubeconfig";

/**
 * Starts the dev control plane.
 *
 * @example
 * ```ts
 * import { startDev } from "./dev.ts";
 * const dev = await startDev({ kubeconfigOut: await Deno.makeTempFile() });
 * await dev.stop();
 * ```
 */
export async function startDev(opts: DevOptions = {}): Promise<DevEnvironment> {
  const kubelet = opts.kubelet === false
    ? false
    : typeof opts.kubelet === "object"
    ? opts.kubelet
    : { behaviour: devKubeletBehaviour };
  const server = await startDevApiServer({
    port: opts.port ?? 0,
    dataDir: opts.dataDir,
    kubelet,
    anonymousAuth: opts.anonymousAuth ?? true,
    featureGates: opts.featureGates,
  });
  const stops: Array<() => Promise<void>> = [];
  const kubeconfigPath = opts.kubeconfigOut ?? DEFAULT_KUBECONFIG_OUT;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const s of stops.reverse()) await s().catch(() => {});
    await server.stop();
  };
  const report: { webhooksUrl?: string; farmUrl?: string } = {};
  try {
    for (const starter of [...defaultDevStarters(kubeconfigPath, report), ...(opts.extraStarters ?? [])]) {
      stops.push(await starter(server));
    }
    await server.writeKubeconfig(kubeconfigPath);
  } catch (err) {
    await stop();
    throw err;
  }
  return { server, kubeconfigPath, webhooksUrl: report.webhooksUrl, farmUrl: report.farmUrl, stop };
}

const SPEC: FlagSpec = {
  port: { type: "string" },
  "kubeconfig-out": { type: "string" },
  "data-dir": { type: "string" },
  "feature-gates": { type: "string" },
  "anonymous-auth": { type: "boolean" },
  "log-format": { type: "string" },
  "log-level": { type: "string" },
  help: { type: "boolean", short: "h" },
};

const USAGE = `Usage: kubeop dev [flags]

Runs an embedded control plane (fake API server, fake kubelet, controllers and their webhooks, farm API) for kubectl.

Flags:
  --port N                 port on 127.0.0.1 (default 0: a free port)
  --kubeconfig-out PATH    kubeconfig to write (default ${DEFAULT_KUBECONFIG_OUT})
  --data-dir DIR           persist objects across restarts
  --feature-gates A=true   kube-apiserver gates the fake implements, as kube-apiserver spells them; v1.37's defaults
                           (ShardedListAndWatch=true: honour KEP-5866 shardSelector on list and watch;
                           ManagedFieldsOptOut=true: honour KEP-5958 Accept drop=metadata.managedFields)
  --anonymous-auth=false   answer requests without credentials 401 (default true: system:anonymous, RBAC decides)
  --log-format text|json   controller and farm API logs on stderr (default text)
  --log-level LEVEL        trace|debug|info|warning|error|fatal (default info)`;

/** `kubeop dev` entry: returns the exit code once stopped by SIGINT/SIGTERM. */
export async function devCommand(args: string[]): Promise<number> {
  const values = parseFlags("dev", args, SPEC);
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const port = intFlag("dev", values, "port", 0);
  if (port > 65535) throw new UsageError(`kubeop dev: flag --port must be ≤ 65535, got "${port}"`);
  const featureGates = featureGatesFlag(stringFlag(values, "feature-gates"));
  await configureLogging({
    format: enumFlag("dev", values, "log-format", ["text", "json"] as const, "text"),
    level: logLevelFlag("dev", values),
  });
  const dev = await startDev({
    port,
    kubeconfigOut: stringFlag(values, "kubeconfig-out") ?? DEFAULT_KUBECONFIG_OUT,
    dataDir: stringFlag(values, "data-dir"),
    featureGates,
    anonymousAuth: values["anonymous-auth"] !== false,
  });
  const absolute = dev.kubeconfigPath.startsWith("/") ? dev.kubeconfigPath : `${Deno.cwd()}/${dev.kubeconfigPath}`;
  await logDevStartup(dev, absolute);
  console.log(`kubeop dev ready: KUBECONFIG=${absolute}`);
  const { promise, resolve } = Promise.withResolvers<void>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const onSignal = () => resolve();
  for (const sig of signals) Deno.addSignalListener(sig, onSignal);
  await promise;
  for (const sig of signals) Deno.removeSignalListener(sig, onSignal);
  await dev.stop();
  return 0;
}

/** The startup lines of `kubeop dev` (./startup_summary.ts): the embedded server, its admin identity, the four controllers. */
async function logDevStartup(dev: DevEnvironment, kubeconfigPath: string): Promise<void> {
  const config = { ...await parseKubeconfig(dev.server.kubeconfig), source: kubeconfigPath };
  logStartup(kubeopLogger("dev"), {
    command: "dev",
    version: KUBEOP_VERSION,
    cluster: config,
    identity: await describeIdentity(config),
    namespaces: [],
    controllers: CONTROLLER_NAMES,
    leaderElection: { on: false, why: "one process" },
    sharding: { on: false, why: "one process" },
    webhooks: dev.webhooksUrl
      ? { on: true, detail: `https on ${dev.webhooksUrl.replace(/^https:\/\//, "")}, registered by URL` }
      : { on: false },
    metrics: { on: false, why: "kubeop dev serves none; kubeop run does" },
    probes: { on: false, why: "kubeop dev serves none; kubeop run does" },
    extra: [{
      message: "farm API: {farmApi}",
      props: {
        farmApi: `farm.example.com/v1alpha, aggregated in-process, served through ${config.server}` +
          (dev.farmUrl ? ` and on ${dev.farmUrl} (delegated auth)` : ""),
      },
    }],
  });
}

function featureGatesFlag(value: string | undefined): FeatureGates | undefined {
  if (value === undefined) return undefined;
  try {
    return parseFeatureGates(value);
  } catch (err) {
    throw new UsageError(`kubeop dev: flag --feature-gates: ${(err as Error).message}`);
  }
}
