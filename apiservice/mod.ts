/**
 * The farm aggregated API server (seed 001, `farm.example.com/v1alpha`): {@link FarmApiServer}, a Runnable, wires the
 * serving certificate, the Llama store (memory or ConfigMap), the FarmPod cache, delegated auth and the router into
 * one HTTPS listener. Used by `kubeop apiserver` and, in-process, by `kubeop dev`.
 * @module
 */
import { deepEqual } from "../runtime/apimachinery/equality.ts";
import { type Clock, RealClock } from "../runtime/clock.ts";
import type { ConnectionDeadlines } from "../runtime/http/http_deadlines.ts";
import type { Runnable } from "../runtime/manager/runnable.ts";
import {
  AUTHENTICATION_CONFIGMAP,
  Authenticator,
  type RequestHeaderConfig,
  requestHeaderFromConfigMap,
} from "./authn.ts";
import { CachingAuthorizer } from "./authz.ts";
import type { FarmCluster } from "./cluster.ts";
import { servingCertFromSecret } from "./cert_secret.ts";
import { ConfigMapStorage } from "./configmap_storage.ts";
import { createAuthGate } from "./gate.ts";
import { LlamaStore } from "./llama_store.ts";
import { createFarmRouter } from "./router.ts";
import { loadServingCert, watchFiles } from "./serving_cert.ts";
import { startTlsServer } from "./tls_server.ts";
import { authMetrics } from "../runtime/observe/auth_metrics.ts";
import { Registry } from "../runtime/observe/prom_client.ts";

export type { FarmCluster } from "./cluster.ts";
export type { RequestHeaderConfig } from "./authn.ts";
export { REQUESTHEADER_DEFAULTS } from "./authn.ts";
export { MemoryFarmCluster } from "./memory_cluster.ts";
export { FARM_API_VERSION, FARM_GROUP, FARM_VERSION } from "./llama.ts";

/** Options of {@link FarmApiServer}. */
export interface FarmApiServerOptions {
  /** Default 8443; 0 = a free port. */
  port?: number;
  /** Default "0.0.0.0"; tests use "127.0.0.1". */
  bindAddress?: string;
  /** Serving certificate file (PEM). */
  tlsCertFile?: string;
  /** Serving key file (PEM). */
  tlsPrivateKeyFile?: string;
  /** Where a generated serving cert is kept (default `.kubeop/farm-certs`). */
  certDir?: string;
  /** SANs of a generated serving cert (default localhost, 127.0.0.1, plus `<serviceName>.<serviceNamespace>.svc`). */
  hosts?: string[];
  /** For the default SANs: the Service in front of this server (default kubeop-farm in kubeop-system). */
  serviceName?: string;
  /** Namespace of the Service in front of the server. */
  serviceNamespace?: string;
  /** Keep the serving cert in this Secret instead of --cert-dir (generated once, shared by replicas). */
  certSecret?: { namespace: string; name: string };
  /** Write the serving CA into this APIService's spec.caBundle at start (e.g. v1alpha.farm.example.com). */
  apiServiceName?: string;
  /** How often the cert files are checked for changes (default 60 s). */
  certReloadIntervalMs?: number;
  /** The cluster (SubjectAccessReview, ConfigMaps, Pods). Required for delegated auth and configmap storage. */
  cluster?: FarmCluster;
  /** Default "memory". */
  storage?: "memory" | "configmap";
  /** ConfigMap of `storage: "configmap"` (default kube-system/farm-llamas). */
  storageNamespace?: string;
  /** ConfigMap name of configmap storage. */
  storageName?: string;
  /** Default "delegated". "none" serves everyone (local development only). */
  auth?: "delegated" | "none";
  /**
   * Delegated auth: a request without credentials is system:anonymous, authorized by SubjectAccessReview like anyone
   * (default true, k8s.io/apiserver's default); false answers it 401.
   */
  anonymousAuth?: boolean;
  /** The cluster's client CA (client-ca-file); when absent it is read from extension-apiserver-authentication. */
  clientCAPEM?: string;
  /** Front-proxy options (flags); when absent they are read from kube-system/extension-apiserver-authentication. */
  requestHeader?: RequestHeaderConfig;
  /** How often kube-system/extension-apiserver-authentication is re-read when it supplies the requestheader
   * options (default 60 s; 0 = never). */
  authConfigRefreshMs?: number;
  /** SubjectAccessReview cache TTLs (default 10 s each). */
  authorizationAllowTtlMs?: number;
  /** SubjectAccessReview cache TTL for denials, ms. */
  authorizationDenyTtlMs?: number;
  /** Interval of BOOKMARK events on watches that allow them, ms. */
  bookmarkIntervalMs?: number;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock?: Clock;
  /** Header-read and idle connection deadlines (defaults 20 s and 90 s; see docs/http_timeouts.md). */
  deadlines?: ConnectionDeadlines;
  /** Where warnings go (default console.error). */
  log?: (message: string) => void;
}

/** What a listening farm API server offers (see {@link FarmApiServer}'s getters). */
interface Serving {
  url: string;
  port: number;
  caPEM: string;
  handler: (req: Request) => Promise<Response>;
  store: LlamaStore;
  metrics: Registry;
}

/**
 * The farm API server, a {@link Runnable}: `start(signal)` loads the serving cert, opens the Llama store, listens and
 * serves until `signal` aborts, then stops the listener, watches and timers. The getters work once it is ready.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startRunnable } from "../runtime/manager/runnable.ts";
 * import { startFakeApiServer } from "../testing/mod.ts";
 * import { FarmApiServer } from "./mod.ts";
 * const certDir = await Deno.makeTempDir();
 * const farm = new FarmApiServer({ port: 0, bindAddress: "127.0.0.1", auth: "none", certDir, log: () => {} });
 * const stop = new AbortController();
 * const run = startRunnable(farm, stop.signal);
 * await run.ready;
 * const fake = await startFakeApiServer({ anonymousAdmin: true });
 * fake.registerAggregatedApi("farm.example.com", "v1alpha", { url: farm.url, caPEM: farm.caPEM }); // an APIService
 * const llamas = await fetch(`${fake.url}/apis/farm.example.com/v1alpha/namespaces/default/llamas`).then((r) => r.json());
 * assert.deepEqual(llamas.items.map((l: { metadata: { name: string } }) => l.metadata.name), ["dolly"]);
 * await fake.stop();
 * stop.abort();
 * await run.done;
 * await Deno.remove(certDir, { recursive: true });
 * ```
 */
export class FarmApiServer implements Runnable {
  /** Names the server in logs. */
  readonly name = "farm-apiserver";
  /** An HTTP server: in a Manager it starts with the servers group. */
  readonly group = "servers";
  readonly #opts: FarmApiServerOptions;
  readonly #ready: Promise<void>;
  #listening: () => void = () => {};
  #failed: (error: unknown) => void = () => {};
  #serving: Serving | undefined;

  /** Keeps the options; nothing happens before {@link FarmApiServer.start}. */
  constructor(opts: FarmApiServerOptions = {}) {
    this.#opts = opts;
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#listening = resolve;
      this.#failed = reject;
    });
    this.#ready.catch(() => {}); // start() rejects with the same error
  }

  /** `https://<bind or 127.0.0.1>:<port>`. */
  get url(): string {
    return this.#get().url;
  }
  /** The bound port (useful with port 0). */
  get port(): number {
    return this.#get().port;
  }
  /** PEM to trust for the serving cert (APIService.spec.caBundle, base64-encoded there). */
  get caPEM(): string {
    return this.#get().caPEM;
  }
  /** The router without the auth gate, for trusted in-process callers (e.g. `kubeop dev`'s fake API server). */
  get handler(): (req: Request) => Promise<Response> {
    return this.#get().handler;
  }
  /** The Llama store (for tests and diagnostics). */
  get store(): LlamaStore {
    return this.#get().store;
  }
  /** The registry behind `/metrics` (authentication_attempts, apiserver_authorization_decisions_total). */
  get metrics(): Registry {
    return this.#get().metrics;
  }

  /** Resolves once listening; rejects when setup or listening failed. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Sets up and serves until `signal` aborts, then closes everything and resolves. Rejects when setup fails. */
  async start(signal: AbortSignal): Promise<void> {
    let stop: () => Promise<void>;
    try {
      stop = await this.#listen();
    } catch (error) {
      this.#failed(error);
      throw error;
    }
    this.#listening();
    if (!signal.aborted) {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    }
    await stop();
  }

  #get(): Serving {
    if (!this.#serving) throw new Error("farm apiserver: not listening yet (await ready())");
    return this.#serving;
  }

  /** Everything up to a listening TLS server; returns how to stop it. */
  async #listen(): Promise<() => Promise<void>> {
    const opts = this.#opts;
    const clock = opts.clock ?? new RealClock();
    const log = opts.log ?? ((m: string) => console.error(m));
    const auth = opts.auth ?? "delegated";
    const cluster = opts.cluster;
    if (auth === "delegated" && !cluster) {
      throw new Error("delegated auth needs a cluster connection (SubjectAccessReview); use --auth=none for local use");
    }
    if (opts.storage === "configmap" && !cluster) throw new Error("--storage=configmap needs a cluster connection");
    if (opts.certSecret && !cluster) throw new Error("--cert-secret needs a cluster connection");

    const svc = `${opts.serviceName ?? "kubeop-farm"}.${opts.serviceNamespace ?? "kubeop-system"}.svc`;
    const hosts = opts.hosts ?? ["localhost", "127.0.0.1", svc];
    const cert = opts.certSecret && !opts.tlsCertFile
      ? {
        ...await servingCertFromSecret({ cluster: cluster!, ...opts.certSecret, hosts, clock }),
        certFile: "",
        keyFile: "",
      }
      : await loadServingCert({
        tlsCertFile: opts.tlsCertFile,
        tlsPrivateKeyFile: opts.tlsPrivateKeyFile,
        certDir: opts.certDir,
        hosts,
        clock,
      });
    if (opts.apiServiceName && cluster?.setAPIServiceCABundle) {
      try {
        if (await cluster.setAPIServiceCABundle(opts.apiServiceName, btoa(cert.caPEM))) {
          log(`farm apiserver: set spec.caBundle of APIService ${opts.apiServiceName}`);
        }
      } catch (err) {
        log(`farm apiserver: cannot set caBundle of APIService ${opts.apiServiceName}: ${(err as Error).message}`);
      }
    }

    let requestHeader = opts.requestHeader;
    const fromConfigMap = auth === "delegated" && !requestHeader;
    const readAuthConfigMap = async () => {
      try {
        const cm = await cluster!.getConfigMap(AUTHENTICATION_CONFIGMAP.namespace, AUTHENTICATION_CONFIGMAP.name);
        return { cfg: requestHeaderFromConfigMap(cm), clientCA: cm?.data?.["client-ca-file"] || undefined };
      } catch (err) {
        log(
          `farm apiserver: cannot read ${AUTHENTICATION_CONFIGMAP.namespace}/${AUTHENTICATION_CONFIGMAP.name}: ` +
            `${(err as Error).message}`,
        );
        return undefined;
      }
    };
    let clientCAPEM = opts.clientCAPEM;
    if (fromConfigMap) {
      const read = await readAuthConfigMap();
      requestHeader = read?.cfg;
      clientCAPEM ??= read?.clientCA;
      if (!requestHeader) log("farm apiserver: no requestheader client CA yet; only bearer tokens (TokenReview) work");
    }
    const trustedCAs = (rh: RequestHeaderConfig | undefined, client: string | undefined) =>
      [rh?.clientCAPEM, client].filter(Boolean).join("\n") || undefined;

    const store = await LlamaStore.open({
      clock,
      persistence: opts.storage === "configmap"
        ? new ConfigMapStorage({ cluster: cluster!, namespace: opts.storageNamespace, name: opts.storageName })
        : undefined,
    });
    // Replicas sharing configmap storage: follow the others' writes so every watch sees every change.
    const following = new AbortController();
    const followed = store.follow(following.signal, (err) => log(`farm apiserver: reloading llamas: ${err}`)).catch(
      (err) => log(`farm apiserver: following llama storage stopped: ${(err as Error).message}`),
    );
    const metrics = new Registry();
    const router = createFarmRouter({
      store,
      pods: cluster?.pods,
      clock,
      bookmarkIntervalMs: opts.bookmarkIntervalMs,
      metrics,
    });
    const authenticator = new Authenticator({ requestHeader, clientCAPEM, cluster, anonymous: opts.anonymousAuth });
    const gate = auth === "delegated"
      ? createAuthGate({
        authenticator,
        authorizer: new CachingAuthorizer({
          cluster: cluster!,
          clock,
          allowTtlMs: opts.authorizationAllowTtlMs,
          denyTtlMs: opts.authorizationDenyTtlMs,
        }),
        onError: (m) => log(`farm apiserver: ${m}`),
        metrics: authMetrics(metrics),
      })
      : undefined;

    const tls = await startTlsServer({
      hostname: opts.bindAddress ?? "0.0.0.0",
      port: opts.port ?? 8443,
      certPEM: cert.certPEM,
      keyPEM: cert.keyPEM,
      clientCAPEM: trustedCAs(requestHeader, clientCAPEM),
      requestClientCert: auth === "delegated",
      // Authentication and authorization come first, from the TLS peer and the headers: a refused caller's body
      // is never read.
      admit: gate
        ? async (head, peer) => {
          const verdict = await gate(head, peer);
          return "response" in verdict ? verdict.response : undefined;
        }
        : undefined,
      handler: (req) => router(req),
      deadlines: opts.deadlines,
    });
    const stopWatching = !cert.certFile ? () => {} : watchFiles({
      paths: [cert.certFile, cert.keyFile],
      clock,
      intervalMs: opts.certReloadIntervalMs ?? 60_000,
      onChange: async () => {
        const [certPEM, keyPEM] = await Promise.all([
          Deno.readTextFile(cert.certFile),
          Deno.readTextFile(cert.keyFile),
        ]);
        tls.update({ certPEM, keyPEM });
        log(`farm apiserver: reloaded serving certificate from ${cert.certFile}`);
      },
      onError: (err) => log(`farm apiserver: checking ${cert.certFile}: ${(err as Error).message}`),
    });
    // Like k8s.io/apiserver's dynamic CA: follow a rotated front-proxy CA without a restart.
    let stopAuthRefresh = () => {};
    const refreshMs = opts.authConfigRefreshMs ?? 60_000;
    if (fromConfigMap && refreshMs > 0) {
      let stopped = false;
      const tick = async () => {
        const read = await readAuthConfigMap();
        if (stopped) return;
        const clientCA = opts.clientCAPEM ?? read?.clientCA;
        if (read && (!deepEqual(read.cfg, authenticator.requestHeader) || clientCA !== authenticator.clientCAPEM)) {
          const trusted = trustedCAs(read.cfg, clientCA);
          if (trusted) tls.update({ clientCAPEM: trusted });
          authenticator.requestHeader = read.cfg;
          authenticator.clientCAPEM = clientCA;
          log("farm apiserver: requestheader options changed in extension-apiserver-authentication; reloaded");
        }
        cancel = clock.setTimer(refreshMs, tick);
      };
      let cancel = clock.setTimer(refreshMs, tick);
      stopAuthRefresh = () => {
        stopped = true;
        cancel();
      };
    }
    const host = !opts.bindAddress || opts.bindAddress === "0.0.0.0" ? "127.0.0.1" : opts.bindAddress;
    this.#serving = {
      url: `https://${host.includes(":") ? `[${host}]` : host}:${tls.port}`,
      port: tls.port,
      caPEM: cert.caPEM,
      handler: router,
      store,
      metrics,
    };
    return async () => {
      stopWatching();
      stopAuthRefresh();
      following.abort();
      await tls.close();
      await followed;
    };
  }
}
