/**
 * `kubeop apiserver`: the farm aggregated API server (farm.example.com/v1alpha) behind an APIService. Flags follow
 * k8s.io/apiserver's (`--secure-port`, `--tls-cert-file`, `--requestheader-*`, `--kubeconfig`); SIGTERM/SIGINT stop
 * it (exit 0).
 * @module
 */
import { REQUESTHEADER_DEFAULTS, type RequestHeaderConfig } from "../apiservice/authn.ts";
import type { FarmCluster } from "../apiservice/cluster.ts";
import { KubeFarmCluster, podCacheFromInformer } from "../apiservice/kube_cluster.ts";
import { FarmApiServer } from "../apiservice/mod.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { InformerRegistry } from "../runtime/cache/informers.ts";
import type { ClusterConfig } from "../runtime/client/kubeconfig.ts";
import { configureLogging, kubeopLogger, type LogLevel } from "../runtime/observe/log.ts";
import { startRunnable } from "../runtime/manager/runnable.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
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
import { logStartup } from "./startup_summary.ts";
import { stopOnSignals } from "./signals.ts";
import { KUBEOP_VERSION } from "./version.ts";

const SPEC: FlagSpec = {
  "secure-port": { type: "string" },
  "bind-address": { type: "string" },
  "tls-cert-file": { type: "string" },
  "tls-private-key-file": { type: "string" },
  "cert-dir": { type: "string" },
  "tls-san": { type: "string", multiple: true },
  "cert-secret": { type: "string" },
  "apiservice-name": { type: "string" },
  "service-name": { type: "string" },
  "service-namespace": { type: "string" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  "authentication-kubeconfig": { type: "string" },
  "authorization-kubeconfig": { type: "string" },
  auth: { type: "string" },
  "requestheader-client-ca-file": { type: "string" },
  "requestheader-allowed-names": { type: "string", multiple: true },
  "requestheader-username-headers": { type: "string", multiple: true },
  "requestheader-uid-headers": { type: "string", multiple: true },
  "requestheader-group-headers": { type: "string", multiple: true },
  "requestheader-extra-headers-prefix": { type: "string", multiple: true },
  "authorization-cache-ttl-seconds": { type: "string" },
  storage: { type: "string" },
  "anonymous-auth": { type: "boolean" },
  "storage-namespace": { type: "string" },
  "storage-name": { type: "string" },
  "log-format": { type: "string" },
  "log-level": { type: "string" },
  help: { type: "boolean", short: "h" },
};

const USAGE = `Usage: kubeop apiserver [flags]

Serves farm.example.com/v1alpha (llamas, farmpods) over HTTPS for an APIService.

Flags:
  --secure-port N                         HTTPS port (default 8443; 0 = a free port)
  --bind-address ADDR                     listen address (default 0.0.0.0)
  --tls-cert-file, --tls-private-key-file serving certificate; when absent a CA + cert are generated once in --cert-dir
  --cert-dir DIR                          where generated certs live (default .kubeop/farm-certs)
  --tls-san NAME                          extra SAN of a generated cert (repeatable)
  --cert-secret NS/NAME                   keep the generated CA + cert in this Secret (shared by replicas/restarts)
  --apiservice-name NAME                  write the serving CA into this APIService's spec.caBundle at start
  --service-name, --service-namespace     Service in front of this server: SAN <name>.<ns>.svc (default kubeop-farm.<pod ns>)
  --kubeconfig PATH, --context NAME       cluster for SubjectAccessReview, TokenReview, ConfigMaps and Pods
                                          (else $KUBECONFIG, ~/.kube/config, in-cluster)
  --authentication-kubeconfig, --authorization-kubeconfig
                                          accepted for k8s.io/apiserver compatibility; must equal --kubeconfig if set
  --auth delegated|none                   delegated (default): front-proxy certs + SubjectAccessReview; none: local dev
  --requestheader-client-ca-file PATH     front-proxy CA (default: from kube-system/extension-apiserver-authentication)
  --requestheader-allowed-names NAMES     allowed front-proxy cert CNs (comma-separated; empty = any)
  --requestheader-username-headers H      default X-Remote-User
  --requestheader-uid-headers H           default none
  --requestheader-group-headers H         default X-Remote-Group
  --requestheader-extra-headers-prefix P  default X-Remote-Extra-
  --authorization-cache-ttl-seconds N     SubjectAccessReview cache for allowed and denied answers (default 10)
  --anonymous-auth[=true|false]           no credentials is system:anonymous, authorized like anyone (default true,
                                          as k8s.io/apiserver); false answers it 401
  --storage memory|configmap              where llamas live (default memory)
  --storage-namespace NS, --storage-name N ConfigMap of --storage=configmap (default kube-system/farm-llamas)
  --log-format json|text, --log-level L   logging (default json, info)`;

/** Parsed `kubeop apiserver` flags. */
export interface ApiserverOptions {
  securePort: number;
  bindAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  certDir: string;
  tlsSans: string[];
  certSecret?: { namespace: string; name: string };
  apiServiceName?: string;
  serviceName: string;
  serviceNamespace?: string;
  kubeconfig?: string;
  context?: string;
  auth: "delegated" | "none";
  requestHeaderClientCAFile?: string;
  requestHeader: Omit<RequestHeaderConfig, "clientCAPEM">;
  authorizationCacheTtlMs: number;
  /** `--anonymous-auth` (default true). */
  anonymousAuth: boolean;
  storage: "memory" | "configmap";
  storageNamespace?: string;
  storageName?: string;
  logFormat: "json" | "text";
  logLevel: LogLevel;
}

/** Parses the flags (usage errors throw {@link UsageError}, exit 2). */
export function parseApiserverFlags(args: string[]): ApiserverOptions | "help" {
  const values = parseFlags("apiserver", args, SPEC);
  if (values.help) return "help";
  const kubeconfig = stringFlag(values, "kubeconfig");
  for (const other of ["authentication-kubeconfig", "authorization-kubeconfig"]) {
    const v = stringFlag(values, other);
    if (v !== undefined && v !== kubeconfig) {
      throw new UsageError(`kubeop apiserver: flag --${other} must equal --kubeconfig (one cluster connection)`);
    }
  }
  const tlsCertFile = stringFlag(values, "tls-cert-file");
  const tlsPrivateKeyFile = stringFlag(values, "tls-private-key-file");
  if (!!tlsCertFile !== !!tlsPrivateKeyFile) {
    throw new UsageError("kubeop apiserver: flags --tls-cert-file and --tls-private-key-file go together");
  }
  const securePort = intFlag("apiserver", values, "secure-port", 8443);
  if (securePort > 65535) throw new UsageError(`kubeop apiserver: flag --secure-port must be ≤ 65535`);
  const headers = (name: string, fallback: string[]) => {
    const v = listFlag(values, name);
    return v.length ? v : fallback;
  };
  const logLevel = logLevelFlag("apiserver", values);
  const certSecretFlag = stringFlag(values, "cert-secret");
  const certSecretParts = certSecretFlag?.split("/");
  if (certSecretFlag !== undefined && (certSecretParts?.length !== 2 || !certSecretParts[0] || !certSecretParts[1])) {
    throw new UsageError(`kubeop apiserver: flag --cert-secret must be NAMESPACE/NAME, got "${certSecretFlag}"`);
  }
  return {
    securePort,
    bindAddress: stringFlag(values, "bind-address") ?? "0.0.0.0",
    tlsCertFile,
    tlsPrivateKeyFile,
    certDir: stringFlag(values, "cert-dir") ?? ".kubeop/farm-certs",
    tlsSans: listFlag(values, "tls-san"),
    certSecret: certSecretParts ? { namespace: certSecretParts[0], name: certSecretParts[1] } : undefined,
    apiServiceName: stringFlag(values, "apiservice-name"),
    serviceName: stringFlag(values, "service-name") ?? "kubeop-farm",
    serviceNamespace: stringFlag(values, "service-namespace"),
    kubeconfig,
    context: stringFlag(values, "context"),
    auth: enumFlag("apiserver", values, "auth", ["delegated", "none"] as const, "delegated"),
    requestHeaderClientCAFile: stringFlag(values, "requestheader-client-ca-file"),
    requestHeader: {
      allowedNames: listFlag(values, "requestheader-allowed-names"),
      usernameHeaders: headers("requestheader-username-headers", REQUESTHEADER_DEFAULTS.usernameHeaders),
      uidHeaders: headers("requestheader-uid-headers", []),
      groupHeaders: headers("requestheader-group-headers", REQUESTHEADER_DEFAULTS.groupHeaders),
      extraHeaderPrefixes: headers("requestheader-extra-headers-prefix", REQUESTHEADER_DEFAULTS.extraHeaderPrefixes),
    },
    authorizationCacheTtlMs: intFlag("apiserver", values, "authorization-cache-ttl-seconds", 10) * 1000,
    anonymousAuth: values["anonymous-auth"] !== false,
    storage: enumFlag("apiserver", values, "storage", ["memory", "configmap"] as const, "memory"),
    storageNamespace: stringFlag(values, "storage-namespace"),
    storageName: stringFlag(values, "storage-name"),
    logFormat: enumFlag("apiserver", values, "log-format", ["json", "text"] as const, "json"),
    logLevel,
  };
}

/** `kubeop apiserver`: returns the exit code. */
export async function apiserverCommand(args: string[]): Promise<number> {
  const opts = parseApiserverFlags(args);
  if (opts === "help") {
    console.log(USAGE);
    return 0;
  }
  await configureLogging({ format: opts.logFormat, level: opts.logLevel });
  const log = kubeopLogger("apiserver");
  const needsCluster = opts.auth === "delegated" || opts.storage === "configmap" || !!opts.certSecret ||
    !!opts.apiServiceName;
  // Everything the flags name is read before anything starts: a mistake is a usage error (exit 2), nothing half-started.
  let requestHeader: RequestHeaderConfig | undefined;
  if (opts.requestHeaderClientCAFile) {
    const clientCAPEM = await readFlagFile("requestheader-client-ca-file", opts.requestHeaderClientCAFile);
    requestHeader = { ...opts.requestHeader, clientCAPEM };
  }
  if (opts.tlsCertFile) await readFlagFile("tls-cert-file", opts.tlsCertFile);
  if (opts.tlsPrivateKeyFile) await readFlagFile("tls-private-key-file", opts.tlsPrivateKeyFile);
  let config: ClusterConfig | undefined;
  let noCluster = "";
  try {
    config = await loadCliClusterConfig("apiserver", { kubeconfig: opts.kubeconfig, context: opts.context });
  } catch (err) {
    if (needsCluster || err instanceof UsageError) throw err;
    noCluster = (err as Error).message;
    log.warn("no cluster connection ({error}); farmpods answer 503", { error: noCluster });
  }
  const stop = new AbortController();
  let client: KubeClient | undefined;
  let cluster: FarmCluster | undefined;
  let informersDone: Promise<void> = Promise.resolve();
  if (config) {
    client = new KubeClient({ config, userAgent: `kubeop-apiserver/${KUBEOP_VERSION}` });
    const informers = new InformerRegistry({ client, logger: kubeopLogger("apiserver", "informer") });
    const pods = podCacheFromInformer(informers.get<KubeObject>(CoreTypes.Pod));
    cluster = new KubeFarmCluster({ client, pods });
    informersDone = informers.start(stop.signal);
  }

  const serviceNamespace = opts.serviceNamespace ?? await podNamespace() ?? "kubeop-system";
  const svc = `${opts.serviceName}.${serviceNamespace}.svc`;
  const farm = new FarmApiServer({
    port: opts.securePort,
    bindAddress: opts.bindAddress,
    tlsCertFile: opts.tlsCertFile,
    tlsPrivateKeyFile: opts.tlsPrivateKeyFile,
    certDir: opts.certDir,
    certSecret: opts.certSecret,
    apiServiceName: opts.apiServiceName,
    hosts: [
      "localhost",
      "127.0.0.1",
      svc,
      `${svc}.cluster.local`,
      `${opts.serviceName}.${serviceNamespace}`,
      ...opts.tlsSans,
    ],
    cluster,
    storage: opts.storage,
    storageNamespace: opts.storageNamespace,
    storageName: opts.storageName,
    auth: opts.auth,
    requestHeader,
    authorizationAllowTtlMs: opts.authorizationCacheTtlMs,
    authorizationDenyTtlMs: opts.authorizationCacheTtlMs,
    anonymousAuth: opts.anonymousAuth,
    log: (m) => log.warn("{message}", { message: m }),
  });
  const serving = startRunnable(farm, stop.signal);
  try {
    await serving.ready;
  } catch (err) {
    stop.abort();
    await informersDone;
    client?.close();
    throw err;
  }
  const served = farm.url.replace(/^https:\/\//, "");
  logStartup(log, {
    command: "apiserver",
    version: KUBEOP_VERSION,
    cluster: config ?? { none: noCluster },
    identity: config ? await describeIdentity(config) : undefined,
    namespaces: [],
    controllers: [],
    leaderElection: { on: false, why: "every replica serves" },
    sharding: { on: false, why: "every replica serves" },
    webhooks: { on: false, why: "the farm API serves none" },
    metrics: { on: false, why: "the farm API serves none" },
    probes: { on: true, detail: `https on ${served} (/healthz, /livez, /readyz)` },
    extra: [{
      message: "serving farm.example.com/v1alpha on {url} (auth {auth}, storage {storage})",
      props: { url: farm.url, auth: opts.auth, storage: opts.storage },
    }],
  });
  const stopped = new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve()));
  const removeSignalListeners = stopOnSignals(stop);
  try {
    await stopped;
    log.info("shutting down");
    await serving.done;
    await informersDone;
    return 0;
  } finally {
    removeSignalListeners();
    client?.close();
  }
}

/** Reads the file a flag names; an unreadable file is a usage error naming the flag and the path. */
async function readFlagFile(flag: string, path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound ? "no such file" : (err as Error).message;
    throw new UsageError(`kubeop apiserver: flag --${flag}: cannot read ${path}: ${why}`);
  }
}
