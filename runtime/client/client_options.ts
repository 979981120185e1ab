/**
 * The option and request types of the typed REST client (`KubeClient`): construction options, per-call options
 * (create, update, patch, delete, list, watch) and the raw request/response shapes. Re-exported by client.ts.
 * @module
 */

import type { Clock } from "../clock.ts";
import type { CallInfo } from "./errors.ts";
import type { ClusterConfig } from "./kubeconfig.ts";

/**
 * A write fence: what a fenced client and a controller need from it. The implementations (the leader's
 * `LeaderFence`, a shard bucket's fence) and every place a write passes one are in runtime/leader/write_fence.ts.
 */
export interface WriteFence {
  /** Throws (a NotLeaderError naming `call`) unless a write may leave the process now. */
  check(call: CallInfo): void;
  /** Aborted once writes are refused (leadership ended or the renew deadline passed); a new term gets a new signal. */
  readonly signal: AbortSignal;
}

/** The metric hooks the client uses (structurally a subset of runtime/observe/metrics.ts `Metrics`). */
export interface ClientMetrics {
  /** rest_client_requests_total{code,method,host}; a request that got no response counts as code "<error>". */
  restClientRequests: { inc(labels: { code: string; method: string; host: string }): void };
  /** rest_client_request_duration_seconds{verb,host}: until the response headers arrive or the request fails. */
  restClientRequestDuration?: { observe(labels: { verb: string; host: string }, seconds: number): void };
}

/** Construction options. */
export interface KubeClientOptions {
  /** Where and who. */
  config: ClusterConfig;
  /** Time for retries (default RealClock). */
  clock?: Clock;
  /** rest_client_requests_total hook. */
  metrics?: ClientMetrics;
  /** User-Agent header (default `kubeop`). */
  userAgent?: string;
  /** Field manager for apply/update (default `kubeop`). */
  fieldManager?: string;
  /** Retries of 429/5xx-with-Retry-After responses (default 5). */
  maxRetries?: number;
  /** Longest honoured Retry-After (default 30 000 ms). */
  maxRetryAfterMs?: number;
  /**
   * Client-side rate limit, requests per second over every call and watch (client-go's rest.Config QPS with a token
   * bucket). Absent or ≤ 0: unthrottled, as controller-runtime's GetConfig (QPS -1), relying on the server's API
   * Priority and Fairness.
   */
  qps?: number;
  /** Bucket size with `qps` (client-go's Burst); default `ceil(qps)`. */
  burst?: number;
  /**
   * Where the proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`) are read; default the process
   * environment. A proxy for the server takes unary calls and watches alike (runtime/http/proxy.ts).
   */
  proxyEnv?: { get(name: string): string | undefined };
  /** Checked right before every non-GET request is sent (see `KubeClient.withWriteFence`). */
  writeFence?: WriteFence;
}

/** Options shared by calls on one object or collection. */
export interface NamespaceOption {
  /** Namespace of namespaced resources. */
  namespace?: string;
  /** Cancels the call. */
  signal?: AbortSignal;
  /**
   * A write fence for this call alone, checked right before each attempt is sent (after throttling and credentials)
   * besides the client's own, and aborting the call when its term ends; reads ignore it. Sharded reconciles pass
   * their bucket's fence (the write chain's fence step, runtime/leader/write_fence.ts `fenceWrites`).
   */
  fence?: WriteFence;
}

/** Query options of a list call. */
export interface ListOptions extends NamespaceOption {
  /** e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** Page size. */
  limit?: number;
  /** Continue token of the previous page. */
  continue?: string;
  /** Snapshot / start resourceVersion. */
  resourceVersion?: string;
  /** How `resourceVersion` is interpreted. */
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  /** Ask for PartialObjectMetadataList (metadata only). */
  metadataOnly?: boolean;
  /**
   * KEP-5958: ask the server to leave `metadata.managedFields` out (runtime/client/collection_accept.ts). A server
   * without the feature sends them anyway, so a caller that must not see them still drops them itself.
   */
  dropManagedFields?: boolean;
  /**
   * KEP-5866 (`ShardedListAndWatch`): only objects whose field hash is in these ranges, e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`
   * (runtime/apimachinery/shard_selector.ts formats them). A server that honours it echoes it in
   * `metadata.shardInfo.selector`; one without the gate ignores it.
   */
  shardSelector?: string;
  /** Called with the size of each response body (byte accounting per informer). */
  onBytes?: (bytes: number) => void;
}

/** Options of a watch call. */
export interface WatchOptions extends NamespaceOption {
  /** Snapshot / start resourceVersion. */
  resourceVersion?: string;
  /** e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** Ask for BOOKMARK events. */
  allowWatchBookmarks?: boolean;
  /** Server ends the watch after this long. */
  timeoutSeconds?: number;
  /** WatchList: start with synthetic ADDED events for the current state. */
  sendInitialEvents?: boolean;
  /** How `resourceVersion` is interpreted. */
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  /** Ask for PartialObjectMetadata(List) only. */
  metadataOnly?: boolean;
  /** KEP-5958: ask the server to leave `metadata.managedFields` out (see {@link ListOptions.dropManagedFields}). */
  dropManagedFields?: boolean;
  /** Called once the server accepted the watch (HTTP 200), before any event. */
  onOpen?: () => void;
  /** Called for frames that are not JSON (the stream continues). */
  onMalformed?: (line: string, error: unknown) => void;
  /** KEP-5866 shard selector (see {@link ListOptions.shardSelector}); a server without the gate ignores it. */
  shardSelector?: string;
  /** Called with the size of each run of body bytes read from the stream (byte accounting per informer). */
  onBytes?: (bytes: number) => void;
}

/** Patch flavours and their content types. */
export type PatchType = "merge" | "json" | "apply" | "strategic";

/** Options of a create call. */
export interface CreateOptions extends NamespaceOption {
  /** Validate and default on the server without persisting. */
  dryRun?: boolean;
}

/** Options of an update (PUT) call. */
export interface UpdateOptions extends NamespaceOption {
  /** `status` writes the status subresource. */
  subresource?: "status";
}

/** Options of a patch call. */
export interface PatchOptions extends NamespaceOption {
  /** Which patch flavour `body` is. */
  type: PatchType;
  /** e.g. `status`. */
  subresource?: string;
  /** Server-side apply: take over conflicting fields. */
  force?: boolean;
}

/** Options of a delete call. */
export interface DeleteOptions extends NamespaceOption {
  /** How dependents are deleted. */
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  /** Delete only this uid / resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Grace period for pods. */
  gracePeriodSeconds?: number;
}

/** A raw response. */
export interface RawResponse {
  /** HTTP status code. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The whole body. */
  body: Uint8Array;
}

/** Options of `KubeClient.request`. */
export interface RequestOptions {
  /** Query parameters (undefined ones are left out). */
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON-encoded unless a string. */
  body?: unknown;
  /** Default application/json. */
  contentType?: string;
  /** Default application/json. */
  accept?: string;
  /** More request headers (e.g. `If-None-Match`); Accept, Content-Type and Authorization come from the options above. */
  headers?: Record<string, string>;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** A write fence for this call (see {@link NamespaceOption.fence}). */
  fence?: WriteFence;
  /** Describes the call in errors (default: method + path). */
  call?: CallInfo;
  /** Throw an ApiError on non-2xx (default true for typed calls, false for request()). */
  throwOnError?: boolean;
}

/** The Content-Type of each patch type. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
  strategic: "application/strategic-merge-patch+json",
};
