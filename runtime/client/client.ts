/**
 * The typed REST client: one HTTP transport per cluster for unary calls and watches alike (kubeop's own HTTP/1.1 —
 * a keep-alive pool, a connection per watch — or fetch through a proxy; api_http_client.ts decides, and builds the
 * TLS options, once), bearer credentials that refresh on 401, typed {@link ApiError}s carrying the Kubernetes Status
 * and the call, 429/5xx `Retry-After` honoured with bounded retries on the injected clock, list pagination.
 * @module
 */

import { type ApiTransport, clusterTls, createApiTransport } from "../http/api_http_client.ts";
import { resourceId as resourceName } from "../apimachinery/names.ts";
import type { Clock } from "../clock.ts";
import { RealClock } from "../clock.ts";
import { BearerCredentials } from "./credentials.ts";
import { collectionAccept } from "./collection_accept.ts";
import { resourcePath } from "./resource_path.ts";
import { ApiError, type CallInfo } from "./errors.ts";
import { LineSplitter } from "../http/json_lines.ts";
import type { ClusterConfig } from "./kubeconfig.ts";
import { TokenBucketRateLimiter } from "../queue/rate_limiter.ts";
import { parseRetryAfter, toStatus } from "../http/response_status.ts";
import { watchEvents } from "../watch/watch_events.ts";
import { writeGate } from "../leader/write_fence.ts";
import { DEAD_PATH_SILENCE_MS } from "../http/silence_deadline.ts";
import { apiVersionOf, type KubeList, type KubeObject, type ResourceType, type WatchEvent } from "../types.ts";
import { PATCH_CONTENT_TYPES } from "./client_options.ts";
import type {
  ClientMetrics,
  CreateOptions,
  DeleteOptions,
  KubeClientOptions,
  ListOptions,
  NamespaceOption,
  PatchOptions,
  RawResponse,
  RequestOptions,
  UpdateOptions,
  WatchOptions,
  WriteFence,
} from "./client_options.ts";

export type {
  ClientMetrics,
  CreateOptions,
  DeleteOptions,
  KubeClientOptions,
  ListOptions,
  NamespaceOption,
  PatchOptions,
  PatchType,
  RawResponse,
  RequestOptions,
  UpdateOptions,
  WatchOptions,
} from "./client_options.ts";
export { toStatus } from "../http/response_status.ts";
export { resourcePath } from "./resource_path.ts";

/** What a client and its fenced views share: one HTTP transport and one set of credentials per cluster. */
interface Connection {
  credentials: BearerCredentials;
  transport: ApiTransport;
  /** The exec plugin's certificate the current transport presents (rebuilt when the plugin rotates it). */
  execCertPEM?: string;
  closed: boolean;
  /** Token bucket of `qps`/`burst` when set: one per cluster connection, fenced views included. */
  throttle?: TokenBucketRateLimiter;
  /** The server answered 406 to KEP-5958's `drop` parameter (./collection_accept.ts): not sent again. */
  dropRefused?: boolean;
}

/**
 * A client for one cluster.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { VirtualClock } from "../clock.ts";
 * import { LeaderFence } from "../leader/write_fence.ts";
 * import { CoreTypes } from "../types.ts";
 * import { KubeClient } from "./client.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true }); // stands in for kube-apiserver
 * const client = new KubeClient({ config: { server: cluster.url } }); // in a program: loadClusterConfig()
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "default" }, data: { k: "v" } });
 * assert.equal((await client.get(CoreTypes.ConfigMap, "a", { namespace: "default" })).metadata.name, "a");
 * // withWriteFence: a view whose writes pass a leader's fence (LeaderElector.fence); refused writes are never sent
 * const fence = new LeaderFence({ clock: new VirtualClock(), renewDeadlineMs: 10_000, lease: "default/l", identity: "a" });
 * await assert.rejects(client.withWriteFence(fence).delete(CoreTypes.ConfigMap, "a", { namespace: "default" }), /leader/);
 * client.close();
 * await cluster.stop();
 * ```
 */
export class KubeClient {
  /** The cluster this client talks to. */
  readonly config: ClusterConfig;
  /** The injected clock (retries; informers default to it). */
  readonly clock: Clock;
  /** Field manager of writes and applies. */
  readonly fieldManager: string;
  readonly #options: KubeClientOptions;
  readonly #fence: WriteFence | undefined;
  #conn: Connection;
  readonly #metrics?: ClientMetrics;
  readonly #userAgent: string;
  readonly #maxRetries: number;
  readonly #maxRetryAfterMs: number;
  readonly #host: string;
  readonly #base: string;

  /** One HTTP transport per cluster; close() releases it. */
  constructor(opts: KubeClientOptions) {
    this.config = opts.config;
    this.clock = opts.clock ?? new RealClock();
    this.fieldManager = opts.fieldManager ?? "kubeop";
    this.#options = opts;
    this.#fence = opts.writeFence;
    this.#conn = {
      credentials: new BearerCredentials(opts.config, { clock: this.clock }),
      transport: this.#transport(),
      closed: false,
    };
    this.#metrics = opts.metrics;
    this.#userAgent = opts.userAgent ?? "kubeop";
    this.#maxRetries = opts.maxRetries ?? 5;
    this.#maxRetryAfterMs = opts.maxRetryAfterMs ?? 30_000;
    this.#base = opts.config.server.replace(/\/+$/, "");
    this.#host = new URL(this.#base).host;
    if (opts.qps !== undefined && opts.qps > 0) {
      const burst = Math.max(1, Math.floor(opts.burst ?? Math.ceil(opts.qps)));
      this.#conn.throttle = new TokenBucketRateLimiter({ perSecond: opts.qps, burst, clock: this.clock });
    }
  }

  /**
   * A watch found its connection dead: closes the pool's parked connections and fails requests silent for 5 s (they
   * went through the same path) instead of letting each wait out 25 s. Fenced views share the pool.
   */
  connectionsPresumedDead(): void {
    this.#conn.transport.pathPresumedDead(DEAD_PATH_SILENCE_MS);
  }

  /** The bearer credentials (exposed so a watch can force a refresh after a 401). */
  get credentials(): BearerCredentials {
    return this.#conn.credentials;
  }

  /**
   * A view of this client whose writes (every method but GET/HEAD/OPTIONS, each retry included) pass `fence` right
   * before the request is sent; a refused write throws the fence's error (NotLeaderError) without reaching the server.
   * The view shares this client's HTTP connection pool and credentials: closing either closes both.
   * (The class example shows one.)
   */
  withWriteFence(fence: WriteFence): KubeClient {
    const view = new KubeClient({ ...this.#options, clock: this.clock, writeFence: fence });
    view.#conn.transport.close();
    view.#conn = this.#conn;
    return view;
  }

  /** GET one object. */
  async get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, opts: NamespaceOption = {}): Promise<T> {
    return await this.#json<T>("GET", resourcePath(rt, { ...opts, name }), {
      signal: opts.signal,
      call: { verb: "get", resource: resourceName(rt), namespace: opts.namespace, name },
    });
  }

  /** One page of a list (or the whole list without `limit`). */
  async list<T extends KubeObject = KubeObject>(rt: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const drop = opts.dropManagedFields === true && !this.#conn.dropRefused;
    const res = await this.request("GET", resourcePath(rt, opts), {
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
        shardSelector: opts.shardSelector,
      },
      accept: collectionAccept({ list: true, metadataOnly: opts.metadataOnly, dropManagedFields: drop }),
      signal: opts.signal,
      call: { verb: "list", resource: resourceName(rt), namespace: opts.namespace },
      throwOnError: true,
    }).catch((err) => {
      if (!drop || !(err instanceof ApiError) || err.code !== 406) throw err;
      this.#conn.dropRefused = true; // a server that refuses the parameter: asked again without it
    });
    if (!res) return await this.list(rt, opts);
    opts.onBytes?.(res.body.length);
    return JSON.parse(new TextDecoder().decode(res.body)) as KubeList<T>;
  }

  /**
   * Lists every page (`limit` default 500, following `continue`); the result carries the first page's
   * resourceVersion (the snapshot all pages belong to).
   */
  async listAll<T extends KubeObject = KubeObject>(rt: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const limit = opts.limit ?? 500;
    let page = await this.list<T>(rt, { ...opts, limit });
    const items = page.items ?? [];
    const first = page;
    while (page.metadata?.continue) {
      page = await this.list<T>(rt, { ...opts, limit, continue: page.metadata.continue, resourceVersion: undefined });
      for (const item of page.items ?? []) items.push(item);
    }
    const metadata: KubeList<T>["metadata"] = {
      resourceVersion: page.metadata?.resourceVersion ?? first.metadata?.resourceVersion,
    };
    // The echo of a sharded list (KEP-5866) is on every page; the first page's stands for the whole.
    if (first.metadata?.shardInfo) metadata.shardInfo = first.metadata.shardInfo;
    return { ...first, items, metadata };
  }

  /** POST a new object (namespace from opts or the object). */
  async create<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: T,
    opts: CreateOptions = {},
  ): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata?.namespace;
    return await this.#json<T>("POST", resourcePath(rt, { namespace }), {
      body: { apiVersion: apiVersionOf(rt), kind: rt.kind, ...obj },
      query: { fieldManager: this.fieldManager, dryRun: opts.dryRun ? "All" : undefined },
      signal: opts.signal,
      fence: opts.fence,
      call: { verb: "create", resource: resourceName(rt), namespace, name: obj.metadata?.name },
    });
  }

  /** PUT the object (its resourceVersion is the precondition); `subresource: "status"` writes status. */
  async update<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: T,
    opts: UpdateOptions = {},
  ): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata?.namespace;
    const name = obj.metadata?.name;
    return await this.#json<T>("PUT", resourcePath(rt, { namespace, name, subresource: opts.subresource }), {
      body: { apiVersion: apiVersionOf(rt), kind: rt.kind, ...obj },
      query: { fieldManager: this.fieldManager },
      signal: opts.signal,
      fence: opts.fence,
      call: {
        verb: opts.subresource ? `update/${opts.subresource}` : "update",
        resource: resourceName(rt),
        namespace,
        name,
      },
    });
  }

  /** PUT the status subresource. */
  updateStatus<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: NamespaceOption = {}): Promise<T> {
    return this.update(rt, obj, { ...opts, subresource: "status" });
  }

  /** PATCH: merge, JSON patch, strategic merge, or server-side apply (fieldManager `kubeop`, optional force). */
  async patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    const apply = opts.type === "apply";
    return await this.#json<T>(
      "PATCH",
      resourcePath(rt, { namespace: opts.namespace, name, subresource: opts.subresource }),
      {
        body,
        contentType: PATCH_CONTENT_TYPES[opts.type],
        query: {
          fieldManager: this.fieldManager,
          force: apply && opts.force ? true : undefined,
        },
        signal: opts.signal,
        fence: opts.fence,
        call: { verb: `patch/${opts.type}`, resource: resourceName(rt), namespace: opts.namespace, name },
      },
    );
  }

  /** DELETE with optional propagation policy and preconditions. */
  async delete(
    rt: ResourceType,
    name: string,
    opts: DeleteOptions = {},
  ): Promise<void> {
    const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    await this.#json("DELETE", resourcePath(rt, { namespace: opts.namespace, name }), {
      body,
      signal: opts.signal,
      fence: opts.fence,
      call: { verb: "delete", resource: resourceName(rt), namespace: opts.namespace, name },
    });
  }

  /**
   * A raw call with retries and credentials; non-2xx responses are returned (not thrown) unless
   * `throwOnError` is set. The body is always fully read.
   */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    if (this.#conn.closed) throw new Error(`KubeClient for ${this.#host} is closed`);
    const url = new URL(this.#url(path, opts.query));
    const call = opts.call ?? { verb: method.toLowerCase(), path };
    let bodyText: string | undefined;
    if (opts.body !== undefined) {
      bodyText = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    }
    // The write fences (this client's and the call's): checked on each attempt and right before the bytes are written;
    // a fenced write is also aborted (mid-retry, or awaiting its answer) once a fence's term ends.
    const gate = writeGate(method, call, [this.#fence, opts.fence], opts.signal);
    const signal = gate ? gate.signal : opts.signal;
    let authRetried = false;
    for (let attempt = 0;; attempt++) {
      const headers: Record<string, string> = { ...opts.headers, "User-Agent": this.#userAgent };
      headers["Accept"] = opts.accept ?? "application/json";
      if (bodyText !== undefined) headers["Content-Type"] = opts.contentType ?? "application/json";
      await this.#wait(opts.signal);
      const auth = await this.#conn.credentials.authorization();
      if (auth) headers["Authorization"] = auth;
      if (this.config.exec) await this.#useExecCertificate();
      gate?.check(); // after every await, right before the request goes to the transport
      const sentMs = this.clock.now();
      const res = await this.#conn.transport.request({
        method,
        url,
        headers,
        body: bodyText,
        signal,
        beforeWrite: gate?.check,
      })
        .catch((err) => {
          this.#countRequest(method, "<error>", sentMs);
          throw err;
        });
      this.#countRequest(method, String(res.status), sentMs);
      const body = res.body;
      if (res.status === 401 && !authRetried && this.#conn.credentials.configured) {
        authRetried = true;
        this.#conn.credentials.invalidate();
        continue;
      }
      const retryAfter = parseRetryAfter(res.headers.get("retry-after"), this.clock.now());
      const retriable = res.status === 429 || (res.status >= 500 && retryAfter !== undefined);
      if (retriable && attempt < this.#maxRetries) {
        const waitMs = Math.min(this.#maxRetryAfterMs, (retryAfter ?? 1) * 1000);
        await this.clock.sleep(waitMs, signal);
        continue;
      }
      if (opts.throwOnError && (res.status < 200 || res.status >= 300)) {
        throw new ApiError(toStatus(res.status, body), call, retryAfter);
      }
      return { status: res.status, headers: res.headers, body };
    }
  }

  /** Waits for a token of the client-side rate limit (client-go's Request.tryThrottle); at once when unthrottled. */
  async #wait(signal?: AbortSignal): Promise<void> {
    const delay = this.#conn.throttle?.when("") ?? 0;
    if (delay > 0) await this.clock.sleep(delay, signal);
  }

  /** client-go's request metrics: the result by code ("<error>" when no response came) and the latency. */
  #countRequest(method: string, code: string, sentMs: number): void {
    this.#metrics?.restClientRequests.inc({ code, method, host: this.#host });
    this.#metrics?.restClientRequestDuration?.observe(
      { verb: method, host: this.#host },
      Math.max(0, this.clock.now() - sentMs) / 1000,
    );
  }

  /**
   * Rebuilds the transport when an exec plugin hands out a (new) client certificate; requests in flight on the old
   * one finish there.
   */
  async #useExecCertificate(): Promise<void> {
    const cert = await this.#conn.credentials.clientCertificate();
    if (!cert || cert.certPEM === this.#conn.execCertPEM) return;
    this.#conn.transport.close({ letInFlightFinish: true });
    this.#conn.transport = this.#transport(cert);
    this.#conn.execCertPEM = cert.certPEM;
  }

  /** The cluster's transport: the proxy decision and the TLS options (with an exec plugin's certificate) made once. */
  #transport(execCert?: { certPEM: string; keyPEM: string }): ApiTransport {
    const server = new URL(this.config.server);
    return createApiTransport({ server, tls: clusterTls(this.config, execCert), env: this.#options.proxyEnv });
  }

  async #json<T>(method: string, path: string, opts: RequestOptions): Promise<T> {
    const res = await this.request(method, path, { ...opts, throwOnError: true });
    if (res.body.length === 0) return undefined as T;
    return JSON.parse(new TextDecoder().decode(res.body)) as T;
  }

  #url(path: string, query?: RequestOptions["query"]): string {
    let url = this.#base + path;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== "") params.set(k, String(v));
    const qs = params.toString();
    if (qs) url += (url.includes("?") ? "&" : "?") + qs;
    return url;
  }

  /**
   * Opens a watch and calls `onEvent` for every frame, synchronously in stream order. Resolves when the server
   * ends the stream; rejects with an {@link ApiError} when the watch request itself fails (410, 401, 403, 5xx…)
   * and with a transport error when the connection breaks. Abort with `opts.signal`.
   */
  async watchStream<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    opts: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<void> {
    if (this.#conn.closed) throw new Error(`KubeClient for ${this.#host} is closed`);
    const url = new URL(this.#url(resourcePath(rt, opts), {
      watch: "true",
      resourceVersion: opts.resourceVersion,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      allowWatchBookmarks: opts.allowWatchBookmarks ? "true" : undefined,
      timeoutSeconds: opts.timeoutSeconds,
      sendInitialEvents: opts.sendInitialEvents === undefined ? undefined : String(opts.sendInitialEvents),
      resourceVersionMatch: opts.resourceVersionMatch,
      shardSelector: opts.shardSelector,
    }));
    const call: CallInfo = { verb: "watch", resource: resourceName(rt), namespace: opts.namespace };
    await this.#wait(opts.signal);
    const drop = opts.dropManagedFields === true && !this.#conn.dropRefused;
    const headers: Record<string, string> = {
      "Accept": collectionAccept({ list: false, metadataOnly: opts.metadataOnly, dropManagedFields: drop }),
      "User-Agent": this.#userAgent,
    };
    const auth = await this.#conn.credentials.authorization();
    if (auth) headers["Authorization"] = auth;
    if (this.config.exec) await this.#useExecCertificate();
    const sentMs = this.clock.now();
    const stream = await this.#conn.transport.stream({ url, headers, signal: opts.signal }).catch((err) => {
      this.#countRequest("GET", "<error>", sentMs);
      throw err;
    });
    this.#countRequest("GET", String(stream.status), sentMs);
    if (stream.status !== 200) {
      const text = await stream.text(64 * 1024).catch(() => "");
      if (drop && stream.status === 406) this.#conn.dropRefused = true;
      if (drop && stream.status === 406) return await this.watchStream(rt, opts, onEvent);
      if (stream.status === 401) this.#conn.credentials.invalidate();
      throw new ApiError(
        toStatus(stream.status, new TextEncoder().encode(text)),
        call,
        parseRetryAfter(stream.headers.get("retry-after"), this.clock.now()),
      );
    }
    opts.onOpen?.();
    const onMalformed = opts.onMalformed ?? (() => {});
    const splitter = new LineSplitter((line) => {
      let event: WatchEvent<T>;
      try {
        event = JSON.parse(line);
      } catch (err) {
        onMalformed(line, err);
        return;
      }
      onEvent(event);
    });
    const onBytes = opts.onBytes;
    await stream.readBody(
      onBytes ? (bytes) => (onBytes(bytes.length), splitter.push(bytes)) : (bytes) => splitter.push(bytes),
    );
    splitter.flush();
  }

  /** The same as {@link watchStream} as an async iterable (convenient, slower: one promise per event). */
  watch<T extends KubeObject = KubeObject>(rt: ResourceType, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    return watchEvents<T>((onEvent) => this.watchStream<T>(rt, opts, onEvent));
  }

  /**
   * Opens a connection to the API server ahead of the first request, in the background (errors are left to that
   * request). The Manager calls it as it starts: watches run on connections of their own, so otherwise a controller's first
   * write would wait for a TCP and TLS handshake (client-go's HTTP/2 connection is shared with its watches).
   */
  preconnect(): Promise<void> {
    if (this.#conn.closed) return Promise.resolve();
    return this.#conn.transport.preconnect(new URL(this.#base));
  }

  /** Releases the HTTP transport (its connections, idle and in use); further calls fail. */
  close(): void {
    if (this.#conn.closed) return;
    this.#conn.closed = true;
    this.#conn.transport.close();
  }
}
