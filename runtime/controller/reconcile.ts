/**
 * The reconcile vocabulary, in one place: what a reconcile receives ({@link ReconcileContext}), what it returns
 * ({@link Action}: {@link done} or {@link requeueAfter}; throwing retries with backoff, a TerminalError stops until the
 * object changes), how a watched object maps to keys ({@link MapFn}), and the services a controller runs with
 * ({@link ControllerDeps}). controller.ts builds on it; controller_sources.ts and controller_workers.ts read it.
 * @module
 */

import type { InformerSource } from "../cache/cache.ts";
import type { Clock } from "../clock.ts";
import type { ControllerClient } from "./controller_client.ts";
import type { EventRecorder } from "../observe/events.ts";
import type { Logger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import type { KubeObject, ResourceType } from "../types.ts";
import type { Admission } from "./admission.ts";

/** What a reconcile decided (controller-runtime's reconcile.Result; kube-rs's Action). */
export interface Action {
  /** Process the key again after this many milliseconds (absent: wait for the next change). */
  requeueAfterMs?: number;
}

/** The reconcile is complete; wait for the next change. */
export function done(): Action {
  return {};
}

/**
 * Reconcile again after `ms` milliseconds (even without a change). `requeueAfter(0)` means "again soon": the key goes
 * through the per-key backoff (controller-runtime's `Requeue: true`), so a reconcile cannot spin.
 */
export function requeueAfter(ms: number): Action {
  return { requeueAfterMs: Math.max(0, ms) };
}

/** Everything a reconcile may use. Read from `informers`, write through `client`. */
export interface ReconcileContext<T extends KubeObject = KubeObject> {
  /** `namespace/name` or `name`. */
  key: string;
  /** Namespace part of the key (absent for cluster-scoped objects). */
  namespace?: string;
  /** Name part of the key. */
  name: string;
  /** The For object as the cache has it now (undefined: deleted or not yet seen). */
  object: T | undefined;
  /** Aborted when the controller shuts down. */
  signal: AbortSignal;
  /** Uncached reads and writes; writes through it are tracked for read-your-own-writes. */
  client: ControllerClient;
  /** The shared caches: read from here. */
  informers: InformerSource;
  /** Emits Kubernetes Events (never blocks). */
  recorder: EventRecorder;
  /** Carries `{controller, key, reconcileID}`. */
  log: Logger;
  /** The injected time source. */
  clock: Clock;
  /** Unique per reconcile (uuid). */
  reconcileID: string;
  /** Records a write made some other way (the server's answer), so the next reconcile waits for the cache to show it. */
  expectWrite(rt: ResourceType, written: KubeObject): void;
  /** Records a delete made some other way. */
  expectDelete(rt: ResourceType, obj: KubeObject): void;
}

/** The runtime services a controller runs with; the Manager provides them. */
export interface ControllerDeps {
  /** The cluster client (wrapped per reconcile in the write chain of write_path.ts: own writes, fence, uid guard). */
  client: ControllerClient;
  /** The shared informer registry. */
  informers: InformerSource;
  /** Event recorder. */
  recorder: EventRecorder;
  /** Time source for queue delays, backoff and the read-your-writes timeout. */
  clock: Clock;
  /** Metrics registry (default: a private one). */
  metrics?: Metrics;
  /** Parent logger (a `controller.<name>` child is used). */
  logger?: Logger;
  /** Workers for controllers whose options do not say (the `--max-concurrent-reconciles` flag). */
  maxConcurrentReconciles?: number;
  /**
   * Who may reconcile a key now (runtime/controller/admission.ts): the leader fence (runtime/leader/leader_admission.ts)
   * when leader election is on, the shard gate (runtime/shard/shard_admission.ts) when sharding is on, or both
   * composed. The ticket's fence guards the reconcile's writes. Absent: every key is admitted.
   */
  admission?: Admission;
}

/** Maps a watched object to the keys of the For objects to reconcile. */
export type MapFn<O extends KubeObject = KubeObject> = (obj: O) => string[];
