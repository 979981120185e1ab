/**
 * {@link startFakeApiServer}: assembles the store, watch hub, garbage collector, CRD controller, fault hooks and
 * router, and serves them over HTTP on 127.0.0.1 (port 0 by default). Restart keeps the port and, on request, the
 * objects.
 * @module
 */
import { DEFAULT_FEATURE_GATES, type FeatureGates } from "./feature_gates.ts";
import YAML from "yaml";
import { type Clock, RealClock } from "../../runtime/clock.ts";
import { CrdController } from "./crd.ts";
import { CrdFinalizer } from "./crd_finalizer.ts";
import { FakeStore } from "./commit_path.ts";
import { FaultHooks } from "./faults.ts";
import { GarbageCollector } from "./gc.ts";
import { startQuotaController } from "./quota_controller.ts";
import { StorageProtection } from "./storage_protection_controller.ts";
import { type AggregatedTarget, proxy, type RouterContext, routeRequest } from "./http_router.ts";
import { watchFramesMark, watchFramesSent } from "./watch_stream.ts";
import type { ResourceRoute } from "./http_resources.ts";
import { ResourceRegistry } from "./registry.ts";
import { FakeKubelet, type FakeKubeletOptions } from "./kubelet.ts";
import { podSubresources } from "./pod_subresources.ts";
import { streamingSubresources } from "./streaming_subresources.ts";
import { componentStatusHandler } from "./component_statuses.ts";
import { namespaceFinalizeHandler } from "./namespace_finalize.ts";
import { scaleHandler } from "./scale_subresource.ts";
import { startNamespaceDefaults } from "./namespace_defaults.ts";
import { ApiServiceController } from "./apiservice_controller.ts";
import { createServerPki, extensionApiserverAuthentication, type ServerPki } from "./server_pki.ts";
import { type HttpListener, serveNodeHttp } from "./https_server.ts";
import { RbacAuthorizer } from "./rbac_authorizer.ts";
import type { AnonymousMode } from "./authn.ts";
import { installBootstrapPolicy } from "./rbac_bootstrap.ts";
import { installSystemPriorityClasses } from "./system_priority_classes.ts";
import { installFlowControlBootstrap } from "./flowcontrol_bootstrap.ts";
import { startFlowSchemaStatus } from "./flowschema_status.ts";
import { startClusterRoleAggregation } from "./rbac_aggregation.ts";
import { ServiceAccountTokens, tokenRequestHandler } from "./service_account_tokens.ts";
import type { ConnectionDeadlines } from "../../runtime/http/http_deadlines.ts";
import { loadSnapshot, Persistence } from "./persistence.ts";
import { openApiHandler } from "./http_openapi.ts";
import { ObjectStore, type StoreSnapshot } from "./object_storage.ts";
import { WatchHub } from "./watch_hub.ts";
import { Registry } from "../../runtime/observe/prom_client.ts";
import { authMetrics } from "../../runtime/observe/auth_metrics.ts";
import { DEFAULT_NAMESPACES } from "./strategies/namespaces.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** Options of {@link startFakeApiServer}. */
export interface FakeApiServerOptions {
  /** Port on 127.0.0.1; default 0 (a free port). */
  port?: number;
  /** Serve HTTPS (generated CA); client certificates signed by it (or by `clientCA`) authenticate (mTLS). */
  tls?: boolean | { clientCA?: string };
  /**
   * The admin bearer token (`kubeop-dev`, system:masters); default a random one. Given, requests without credentials
   * are refused (401) unless `anonymousAuth` says otherwise, as before anonymous auth existed.
   */
  token?: string;
  /**
   * Authenticate requests without credentials as `system:anonymous` (group system:unauthenticated), authorized by
   * RBAC like any user — kube-apiserver's default, under which the bootstrap policy lets them read only /version,
   * /healthz, /livez and /readyz. `false` answers them 401, as `--anonymous-auth=false` does. Default true, except
   * when `token` or `tls.clientCA` is given.
   */
  anonymousAuth?: boolean;
  /**
   * Test convenience, off by default and never in `kubeop dev`: requests without credentials act as the admin
   * instead of `system:anonymous`. Bad credentials are still refused (401).
   */
  anonymousAdmin?: boolean;
  /** Drives timestamps, bookmarks and timeouts; default RealClock. */
  clock?: Clock;
  /** Interval of BOOKMARK events on watches that allow them; default 60 000 ms. */
  bookmarkIntervalMs?: number;
  /** How many changes of history watches can resume from; default 10 000. */
  compactionWindow?: number;
  /** Persist objects here (append log + snapshot) and restore them on start. */
  dataDir?: string;
  /** Run the fake kubelet (node `fake-node`; pods go Pending → Running → Succeeded/Failed). */
  kubelet?: boolean | FakeKubeletOptions;
  /**
   * Delete pods bound to a node gracefully (deletionTimestamp + grace period until the kubelet confirms), as
   * kube-apiserver does; default: on when the fake kubelet runs (with no kubelet, nothing would confirm). Pods bound
   * to another node than the fake kubelet's stay Terminating until deleted with gracePeriodSeconds 0.
   */
  gracefulPodDeletion?: boolean;
  /**
   * Give each namespace the ServiceAccount `default` and the ConfigMap `kube-root-ca.crt` (cluster CA), as
   * kube-controller-manager does on real clusters; default false (tests count objects), `kubeop dev` sets it.
   */
  defaultNamespaceObjects?: boolean;
  /**
   * Run kube-controller-manager's ResourceQuota controller (quota_controller.ts: `status.hard` from `spec.hard`,
   * `status.used` recounted); default false, as on a cluster without it (the conformance tier's); `kubeop dev` sets it.
   */
  quotaController?: boolean;
  /**
   * Run kube-controller-manager's pvc-protection, pv-protection and vac-protection controllers
   * (storage_protection_controller.ts): the finalizers kube-apiserver's StorageObjectInUseProtection admission adds to
   * every PersistentVolume, claim and VolumeAttributesClass are removed once the object is being deleted and unused
   * (a claim no scheduled pod names, a volume not Bound, a class nothing names), so a deleted claim does not stay
   * Terminating. Default true, as the garbage collector and namespace controller always run: every cluster's
   * kube-controller-manager runs them, and so does the test tiers' real control plane. `false`: the finalizers stay
   * until a client removes them, as on a cluster whose kube-controller-manager does not run these controllers.
   */
  storageProtection?: boolean;
  /**
   * Header-read and idle connection deadlines (defaults 20 s and 90 s; watches are never cut). Tests set small ones.
   * See docs/http_timeouts.md.
   */
  deadlines?: ConnectionDeadlines;
  /**
   * Authorize requests with RBAC (Roles, ClusterRoles and their bindings, as kube-apiserver does); default true.
   * Requests with the admin token or the admin client certificate act as `kubeop-dev` in group system:masters,
   * which RBAC always allows. `false`: every authenticated request is allowed, `system:anonymous` included (kube's
   * AlwaysAllow), and SubjectAccessReviews are answered allowed (unless faults deny them).
   */
  rbac?: boolean;
  /**
   * kube-apiserver feature gates, over v1.37's defaults ({@link DEFAULT_FEATURE_GATES}): e.g.
   * `{ ShardedListAndWatch: true }` honours KEP-5866 `shardSelector` on list and watch (alpha, off by default: the
   * parameter is then ignored, as a real server does); `{ ManagedFieldsOptOut: true }` honours KEP-5958's
   * `Accept: application/json;drop=metadata.managedFields` (alpha in v1.38, off by default: ignored).
   */
  featureGates?: Partial<FeatureGates>;
}

/** A running fake API server. */
export interface FakeApiServer {
  /** e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Kubeconfig YAML for this server, with admin credentials (the client certificate over HTTPS, else the token). */
  readonly kubeconfig: string;
  /** Writes {@link FakeApiServer.kubeconfig} to a file (mode 0600). */
  writeKubeconfig(path: string): Promise<void>;
  /** Closes open watches and the listener. */
  stop(): Promise<void>;
  /** Answers one request in-process, as the listener would but with no socket (tests, fuzzing). */
  handle(req: Request): Promise<Response>;
  /**
   * Stops and starts again on the same port, keeping the objects unless `keepState` is false. Without the state,
   * resourceVersions still count up from where they were, so a client resuming a watch gets 410 Expired and relists.
   */
  restart(opts?: { keepState?: boolean }): Promise<void>;
  /** Inject failures, latency and authorization decisions. */
  readonly faults: FaultHooks;
  /** Direct, synchronous object access for test setup and assertions. */
  readonly store: FakeStore;
  /** Serves `/apis/<group>/<version>` from another server (what an APIService does). */
  registerAggregatedApi(group: string, version: string, target: AggregatedTarget): void;
  /** The fake kubelet, when enabled. */
  readonly kubelet?: FakeKubelet;
  /** The cluster CA (PEM) when serving HTTPS. */
  readonly caPEM?: string;
  /** An admin client certificate signed by the cluster CA (HTTPS only). */
  readonly clientCert?: { certPEM: string; keyPEM: string };
  /** The admin bearer token (`token`, or the random one); `Authorization: Bearer <it>` acts as the admin. */
  readonly adminToken: string;
}

interface State {
  objects: ObjectStore;
  store: FakeStore;
  hub: WatchHub;
  gc: GarbageCollector;
  crds: CrdController;
  crdFinalizer: CrdFinalizer;
  persistence?: Persistence;
  apiServices: ApiServiceController;
}

class Server implements FakeApiServer {
  readonly faults: FaultHooks;
  #opts: FakeApiServerOptions;
  #clock: Clock;
  #state!: State;
  #http?: HttpListener;
  #port = 0;
  #aggregated = new Map<string, AggregatedTarget>();
  #openApi = openApiHandler(() => this.#state.store.registry, () => [...this.#aggregated.keys()]);
  #subresources: Map<string, (req: Request, route: ResourceRoute, url: URL) => Promise<Response>>;
  kubelet?: FakeKubelet;
  #tokens: ServiceAccountTokens;
  #rbac?: RbacAuthorizer;
  /** GET /metrics: kube-apiserver's authentication and authorization counters. */
  readonly #metrics = new Registry();
  readonly adminToken: string;

  /** Generated when first needed (HTTPS, the auth ConfigMap, the front-proxy client certificate): ~14 ms. */
  #pki?: ServerPki;
  #pkiPending?: Promise<ServerPki>;

  /** @param pki given when needed from the start (HTTPS, default namespace objects); otherwise made on demand. */
  constructor(opts: FakeApiServerOptions, pki?: ServerPki) {
    this.#opts = opts;
    this.adminToken = opts.token ?? randomToken();
    this.#pki = pki;
    this.#clock = opts.clock ?? new RealClock();
    this.faults = new FaultHooks({
      hub: () => this.#state.hub,
      objects: () => this.#state.objects,
      clock: this.#clock,
    });
    this.#subresources = podSubresources(() => this.#state.store, this.#clock);
    for (const [key, handler] of streamingSubresources(() => this.#state.store, () => this.kubelet)) {
      this.#subresources.set(key, handler);
    }
    this.#subresources.set("/componentstatuses", componentStatusHandler(this.#clock));
    this.#subresources.set("/namespaces/finalize", namespaceFinalizeHandler(() => this.#state.store));
    this.#subresources.set("*/*/scale", scaleHandler(() => this.#state.store));
    for (const key of ["apps/deployments", "apps/replicasets", "apps/statefulsets", "/replicationcontrollers"]) {
      this.#subresources.set(`${key}/scale`, scaleHandler(() => this.#state.store));
    }
    this.#tokens = new ServiceAccountTokens(() => this.#state.store, this.#clock);
    this.#rbac = opts.rbac === false ? undefined : new RbacAuthorizer(() => this.#state.store);
    this.#subresources.set(
      "/serviceaccounts/token",
      tokenRequestHandler(() => this.#state.store, () => this.#tokens, this.#clock),
    );
    this.#state = this.#build(opts.dataDir ? loadSnapshot(opts.dataDir) : undefined);
    if (opts.kubelet) {
      this.kubelet = new FakeKubelet({
        store: () => this.#state.store,
        clock: this.#clock,
        options: typeof opts.kubelet === "object" ? opts.kubelet : undefined,
      });
      this.kubelet.start();
    }
  }

  get url(): string {
    return `${this.#opts.tls ? "https" : "http"}://127.0.0.1:${this.#port}`;
  }

  get caPEM(): string | undefined {
    return this.#opts.tls ? this.#pki?.caPEM : undefined;
  }

  get clientCert(): { certPEM: string; keyPEM: string } | undefined {
    return this.#opts.tls ? this.#pki?.adminClient : undefined;
  }

  get store(): FakeStore {
    return this.#state.store;
  }

  get kubeconfig(): string {
    const b64 = (text: string) => btoa(text);
    const user: Record<string, string> = this.#opts.token
      ? { token: this.#opts.token }
      : this.#opts.tls && this.#pki
      ? {
        "client-certificate-data": b64(this.#pki.adminClient.certPEM),
        "client-key-data": b64(this.#pki.adminClient.keyPEM),
      }
      : { token: this.adminToken };
    const cluster: Record<string, string> = { server: this.url };
    if (this.#opts.tls && this.#pki) cluster["certificate-authority-data"] = b64(this.#pki.caPEM);
    return YAML.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "kubeop-fake", cluster }],
      users: [{ name: "kubeop-fake", user }],
      contexts: [{
        name: "kubeop-fake",
        context: { cluster: "kubeop-fake", user: "kubeop-fake", namespace: "default" },
      }],
      "current-context": "kubeop-fake",
      preferences: {},
    });
  }

  async writeKubeconfig(path: string): Promise<void> {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    if (dir) await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(path, this.kubeconfig, { mode: 0o600 });
  }

  handle(req: Request): Promise<Response> {
    return this.#route(req);
  }

  registerAggregatedApi(group: string, version: string, target: AggregatedTarget): void {
    this.#aggregated.set(`${group}/${version}`, target);
  }

  #build(snapshot?: StoreSnapshot, startRv?: number): State {
    const objects = new ObjectStore({ compactionWindow: this.#opts.compactionWindow, snapshot, startRv });
    // Record from the first commit so the default namespaces are persisted too.
    const persistence = this.#opts.dataDir ? new Persistence(this.#opts.dataDir, objects) : undefined;
    const registry = new ResourceRegistry();
    const store = new FakeStore({
      registry,
      objects,
      clock: this.#clock,
      gracefulPodDeletion: this.#opts.gracefulPodDeletion ?? Boolean(this.#opts.kubelet),
    });
    const hub = new WatchHub(objects);
    const gc = new GarbageCollector(store);
    const crdFinalizer = new CrdFinalizer(store);
    const crds = new CrdController(store, (storageKey) => {
      for (const sink of hub.sinks()) if (sink.storageKey === storageKey) sink.drop();
    });
    const apiServices = new ApiServiceController(store, (gv, target) => {
      if (target) this.#aggregated.set(gv, target);
      else this.#aggregated.delete(gv);
    }, (target, path, signal) => {
      const url = new URL(path, "http://aggregator.invalid");
      const req = new Request(url, { headers: { accept: "application/json" }, signal });
      return this.#ensurePki().then((pki) => proxy(req, url, target, pki.frontProxyClient));
    });
    if (!snapshot) {
      for (const name of DEFAULT_NAMESPACES) {
        store.create({ group: "", version: "v1", plural: "namespaces" }, { metadata: { name } }, {
          shared: true,
          fieldManager: "kube-apiserver",
        });
      }
      // The watch cache starts after the bootstrap objects exist (the cacher's first list): watches from an older
      // resourceVersion get 410 Expired, as on a real server.
      objects.compact();
    } else gc.enqueueAll();
    installBootstrapPolicy(store);
    installSystemPriorityClasses(store);
    installFlowControlBootstrap(store);
    startFlowSchemaStatus(store);
    startClusterRoleAggregation(store);
    if (this.#pki) this.#publishAuthConfig(store, this.#pki);
    if (this.#opts.defaultNamespaceObjects) startNamespaceDefaults(store, this.#pki!.caPEM);
    if (this.#opts.quotaController) startQuotaController(store);
    if (this.#opts.storageProtection ?? true) new StorageProtection(store);
    return { objects, store, hub, gc, crds, crdFinalizer, persistence, apiServices };
  }

  /** The PKI, generated on first call; generating it publishes the auth ConfigMap into the current store. */
  #ensurePki(): Promise<ServerPki> {
    if (this.#pki) return Promise.resolve(this.#pki);
    this.#pkiPending ??= createServerPki().then((pki) => {
      this.#pki = pki;
      this.#publishAuthConfig(this.#state.store, pki);
      return pki;
    });
    return this.#pkiPending;
  }

  /**
   * Routes a request, first generating the PKI when it may read the auth ConfigMap (any configmaps path). A write is
   * answered only once the watch frames it caused are on their way (see {@link watchFramesSent}).
   */
  async #route(req: Request): Promise<Response> {
    if (!this.#pki && req.url.includes("/configmaps")) await this.#ensurePki();
    if (req.method === "GET" || req.method === "HEAD") return routeRequest(req, this.#context());
    const mark = watchFramesMark();
    const res = await routeRequest(req, this.#context());
    await watchFramesSent(mark);
    return res;
  }

  #publishAuthConfig(store: FakeStore, pki: ServerPki): void {
    const rt = { group: "", version: "v1", plural: "configmaps" };
    const clientCA = typeof this.#opts.tls === "object" ? this.#opts.tls.clientCA : undefined;
    const data = extensionApiserverAuthentication(pki, clientCA);
    const name = "extension-apiserver-authentication";
    const existing = store.peek(store.def(rt), "kube-system", name);
    if (existing) store.update(rt, { ...copyJson(existing), data }, { namespace: "kube-system", name });
    else store.create(rt, { metadata: { name, namespace: "kube-system" }, data }, { fieldManager: "kube-apiserver" });
  }

  #context(): RouterContext {
    const state = this.#state;
    return {
      store: state.store,
      hub: state.hub,
      clock: this.#clock,
      bookmarkIntervalMs: this.#opts.bookmarkIntervalMs ?? 60_000,
      features: { ...DEFAULT_FEATURE_GATES, ...this.#opts.featureGates },
      subresources: this.#subresources,
      faults: this.faults,
      authn: {
        token: this.adminToken,
        anonymous: anonymousMode(this.#opts),
        tokens: this.#tokens,
        tls: Boolean(this.#opts.tls),
      },
      authorizer: this.#rbac,
      authMetrics: authMetrics(this.#metrics),
      metricsText: () => this.#metrics.metrics(),
      aggregated: this.#aggregated,
      proxyClientCert: async () => (await this.#ensurePki()).frontProxyClient,
      preferredVersion: (g) => this.#state.crds.preferredVersion(g),
      serverAddress: () => `127.0.0.1:${this.#port}`,
      extraPaths: [this.#openApi],
    };
  }

  async listen(port: number): Promise<void> {
    const tls = this.#opts.tls ? await this.#ensurePki() : undefined;
    const clientCA = typeof this.#opts.tls === "object" ? this.#opts.tls.clientCA : undefined;
    this.#http = await serveNodeHttp({
      port,
      tls: tls && {
        certPEM: tls.serving.certPEM,
        keyPEM: tls.serving.keyPEM,
        clientCAs: [tls.caPEM, ...(clientCA ? [clientCA] : [])],
      },
      handler: (req) => this.#route(req),
      deadlines: this.#opts.deadlines,
    });
    this.#port = this.#http.port;
  }

  async stop(): Promise<void> {
    this.kubelet?.stop();
    // Controllers' waits on the clock end with the server (restart arms them again).
    this.#state.gc.cancelTimers();
    this.#state.crdFinalizer.cancelTimers();
    await this.#state.apiServices.drain();
    for (const sink of this.#state.hub.sinks()) sink.drop();
    const listener = this.#http;
    this.#http = undefined;
    if (listener) await listener.close();
    this.#state.persistence?.close();
    this.#state.persistence = undefined;
  }

  async restart(opts: { keepState?: boolean } = {}): Promise<void> {
    await this.stop();
    if (opts.keepState === false) {
      this.#state.gc.stop();
      if (this.#opts.dataDir) new Persistence(this.#opts.dataDir, this.#state.objects).discard();
      this.#state = this.#build(undefined, this.#state.objects.rv);
    } else if (this.#opts.dataDir) {
      this.#state.persistence = new Persistence(this.#opts.dataDir, this.#state.objects);
    }
    await this.listen(this.#port);
    this.kubelet?.start();
    this.#state.gc.enqueueAll();
    this.#state.crdFinalizer.resume();
  }
}

/**
 * Starts a fake Kubernetes API server on 127.0.0.1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "./server.ts";
 * const server = await startFakeApiServer();
 * // No credentials is system:anonymous: RBAC lets it read /version, not namespaces.
 * const anonymous = await fetch(`${server.url}/api/v1/namespaces/default`);
 * assert.equal(anonymous.status, 403);
 * await anonymous.body?.cancel();
 * const headers = { authorization: `Bearer ${server.adminToken}` }; // or the kubeconfig's credentials
 * const res = await fetch(`${server.url}/api/v1/namespaces/default`, { headers });
 * assert.ok((await res.json()).metadata.name === "default");
 * await server.stop();
 * ```
 */
export async function startFakeApiServer(opts: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  // Certificates cost most of a start: made now only when the start needs them, otherwise on first use.
  const needsPki = Boolean(opts.tls || opts.defaultNamespaceObjects);
  const server = new Server(opts, needsPki ? await createServerPki() : undefined);
  await server.listen(opts.port ?? 0);
  return server;
}

/** What requests without credentials become under `opts` (see {@link FakeApiServerOptions.anonymousAuth}). */
function anonymousMode(opts: FakeApiServerOptions): AnonymousMode {
  if (opts.anonymousAdmin) return "admin";
  const auth = opts.anonymousAuth ??
    !(opts.token !== undefined || (typeof opts.tls === "object" && !!opts.tls.clientCA));
  return auth ? "anonymous" : "refuse";
}

/** A random admin bearer token (32 bytes, base64url). */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
