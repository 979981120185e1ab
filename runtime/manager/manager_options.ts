/**
 * The configuration types of runtime/manager/manager.ts: construction options (client, addresses, durations, leader
 * election), the shared-cache view the Manager needs, and the addresses it reports once its servers listen.
 * @module
 */

import type { KubeClient } from "../client/client.ts";
import type { Clock } from "../clock.ts";
import type { InformerSource } from "../cache/cache.ts";
import type { EventRecorder } from "../observe/events.ts";
import type { LeaseLock } from "../leader/lease_lock.ts";
import type { Logger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import type { WatchHealth } from "../watch/watch_runner.ts";
import type { ManagerSharding } from "../shard/manager_shards.ts";

export type { ManagerSharding };

/** The shared caches (runtime/cache/informers.ts `InformerRegistry` satisfies it). */
export interface ManagerInformers extends InformerSource {
  /** Runs every informer until `signal` aborts. */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves once all informers listed; rejects (naming them) after `timeoutMs`. */
  waitForSync(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** True when every informer has synced. */
  hasSynced(): boolean;
  /** Per-watch health, for /readyz. */
  health?(): WatchHealth[];
}

/** Leader election settings (DESIGN §3). */
export interface ManagerLeaderElection {
  /** Lease name (`--leader-election-id`). */
  id: string;
  /** Lease namespace (`--leader-election-namespace`). */
  namespace: string;
  /** Default 15. */
  leaseSeconds?: number;
  /** Default 10. */
  renewDeadlineSeconds?: number;
  /** Default 2. */
  retryPeriodSeconds?: number;
  /** Default `hostname_uuid`. */
  identity?: string;
  /** Replaces the Lease lock on the API server (tests). */
  lock?: LeaseLock;
  /** Random source for retry jitter (tests). */
  random?: () => number;
  /**
   * What losing the Lease (no renewal within the renew deadline) does. Default false: a graceful transition
   * (KEP-5366) — the leader-gated runnables stop and drain (the write fence is already shut), the caches stay warm,
   * and the replica campaigns again, leading again once the Lease can be had. `true` keeps controller-runtime's
   * behaviour: {@link Manager.start} rejects with `LeadershipLostError` (`kubeop run --exit-on-lost-leadership`).
   */
  exitOnLostLeadership?: boolean;
}

/** Construction options of {@link Manager}. */
export interface ManagerOptions {
  /** The cluster client (controllers write through it; caches list/watch through it). */
  client: KubeClient;
  /** Time source (default the wall clock). */
  clock?: Clock;
  /** Parent logger (default `kubeop.manager`). */
  logger?: Logger;
  /** Registry served on /metrics (default a new one). */
  metrics?: Metrics;
  /** Restrict namespaced caches to these namespaces (default: all). */
  namespaces?: string[];
  /**
   * Start the caches with WatchList (`sendInitialEvents`, one streaming request per informer; default true) or with
   * a paginated list then a watch (false). WatchList keeps kube-apiserver from building whole lists in memory, but its
   * consistent initial events wait for the server's watch cache to be confirmed fresh (an etcd progress notification,
   * requested every 100 ms), which a list does not: `false` starts ~50 ms sooner against a quiet kube-apiserver.
   * `kubeop run` reads client-go's `KUBE_FEATURE_WatchListClient` environment variable for it.
   */
  watchList?: boolean;
  /** When set, only the Lease holder runs controllers (the non-shardable runnables, when sharding is on). */
  leaderElection?: ManagerLeaderElection;
  /**
   * When set, controllers run on every replica and split the work by uid over a ring of bucket Leases
   * (docs/sharding.md); `kubeop run --shards auto`.
   */
  sharding?: ManagerSharding;
  /** `/metrics` address; "0" (the default) disables it. The CLI default is ":8080". */
  metricsBindAddress?: string;
  /**
   * Serve /metrics over HTTPS, only to callers whose bearer token passes a TokenReview and whose user may `get` the
   * non-resource URL `/metrics` (SubjectAccessReview): kubebuilder's `--metrics-secure`. Default false.
   */
  metricsSecure?: boolean;
  /** With {@link ManagerOptions.metricsSecure}: directory holding `tls.crt` and `tls.key` (default self-signed). */
  metricsCertDir?: string;
  /** `/healthz` `/readyz` address; "0" (the default) disables it. The CLI default is ":8081". */
  healthProbeBindAddress?: string;
  /** Longest wait for in-flight reconciles on shutdown. Default 25 000 ms (inside a pod's 30 s grace period). */
  gracefulShutdownMs?: number;
  /**
   * How long the caches' first sync may take before it is reported: an error log naming the resources not synced,
   * then again every period while /readyz keeps failing. Default 120 000 ms.
   */
  cacheSyncTimeoutMs?: number;
  /**
   * Stop (start() rejects with CacheSyncTimeoutError) once the caches have not synced within `cacheSyncTimeoutMs`, as
   * controller-runtime does. By default the manager keeps waiting, as kube-controller-manager does: a replica started
   * while the API server is down, or before a CRD it watches is installed, serves as soon as it can instead of exiting
   * into a restart loop (`--exit-on-cache-sync-timeout`).
   */
  exitOnCacheSyncTimeout?: boolean;
  /** Workers of every controller that does not set its own (`--max-concurrent-reconciles`). */
  maxConcurrentReconciles?: number;
  /** Replaces the shared caches (default: an InformerRegistry over `client`). */
  informers?: ManagerInformers;
  /** Replaces the Event recorder (default: events.k8s.io/v1 through `client`). */
  recorder?: EventRecorder & { close?(): Promise<void> };
  /** Watches failing this many times in a row make /readyz fail. Default 3. */
  unhealthyWatchFailures?: number;
  /**
   * A synced watch without an open stream for this long makes /readyz fail (an apiserver outage, a deleted CRD).
   * Default 5 000 ms: longer than a routine re-watch, short enough that traffic leaves a blind replica. /livez is
   * not affected: restarting every replica during an apiserver outage would not help.
   */
  watchDisconnectGraceMs?: number;
}

/** Addresses the manager's servers listen on, once started. */
export interface ManagerEndpoints {
  /** e.g. `http://127.0.0.1:41234`; /healthz, /livez, /readyz. */
  healthProbe?: string;
  /** /metrics. */
  metrics?: string;
}
