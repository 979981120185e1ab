/**
 * Everything long-lived in an operator process is a {@link Runnable} (controller-runtime's `manager.Runnable`): it
 * runs from `start(signal)` until `signal` aborts, then cleans up and resolves. The Manager starts runnables in
 * groups (servers, caches, then the leader-gated ones) and stops them in reverse; {@link startRunnable} runs one on
 * its own (e.g. the farm API server in `kubeop apiserver`).
 * @module
 */

import type { ControllerDeps } from "../controller/controller.ts";
import type { ResourceType } from "../types.ts";
import type { WatchScope } from "../watch/watch_runner.ts";

/**
 * The group a runnable starts in. `servers` (HTTP listeners: probes, metrics, later webhooks) start first, `caches`
 * next; both run on every replica. Runnables without a group start once the caches synced: on the leader only, or
 * on every replica when {@link Runnable.needLeaderElection} is false.
 */
export type RunnableGroupName = "servers" | "caches";

/**
 * Something the Manager runs.
 *
 * @example
 * ```ts
 * import type { Runnable } from "./runnable.ts";
 * // Logs a heartbeat on every replica (not only the leader) until the manager stops.
 * const heartbeat: Runnable = {
 *   name: "heartbeat",
 *   needLeaderElection: false,
 *   start: (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
 * };
 * // manager.add(heartbeat);
 * ```
 */
export interface Runnable {
  /** Unique per manager; names logs. */
  readonly name: string;
  /**
   * Runs until `signal` aborts, then stops (a controller drains its in-flight reconciles) and resolves. A rejection
   * stops the whole manager with that error. Resolving early is allowed and means "nothing left to do".
   */
  start(signal: AbortSignal): Promise<void>;
  /** Only the Lease holder runs it (default true). Ignored for the `servers` and `caches` groups. */
  readonly needLeaderElection?: boolean;
  /** Start in an earlier group than the default (see {@link RunnableGroupName}). */
  readonly group?: RunnableGroupName;
  /**
   * Resolves once the runnable does its job (a server listens, a cache has synced); rejects when it cannot. The
   * manager starts the next group only after every runnable of this one is ready. Absent: ready once started.
   */
  ready?(signal: AbortSignal): Promise<void>;
}

/**
 * A runnable that takes the manager's controller services when it is added (every Controller): {@link Manager.add}
 * calls {@link ControllerRunnable.bind} at once — before start, before any plug-in sees it — and requests the
 * informers it reads so a standby replica's caches are warm when it takes over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Controller } from "../controller/controller.ts";
 * import { done } from "../controller/reconcile.ts";
 * import { CoreTypes } from "../types.ts";
 * import { isControllerRunnable } from "./runnable.ts";
 * const ctl = new Controller({ name: "pods", for: CoreTypes.Pod, reconcile: () => Promise.resolve(done()) });
 * assert.ok(isControllerRunnable(ctl)); // manager.add(ctl) hands it client, informers, recorder, clock, admission
 * assert.ok(!isControllerRunnable({ name: "server", start: () => Promise.resolve() }));
 * ```
 */
export interface ControllerRunnable extends Runnable {
  /** Receives the manager's services; {@link Manager.add} calls it. */
  bind(deps: ControllerDeps): unknown;
  /** The informers it reads (its For informer first). */
  watchedResources?(): { rt: ResourceType; opts?: WatchScope }[];
  /**
   * Splits its work by the shard ring when the manager shards (docs/sharding.md): then it runs on every replica with
   * the shard admission and without the leader fence, whatever `needLeaderElection` says. Every Controller is.
   */
  readonly shardable?: boolean;
}

/**
 * Whether `r` takes the manager's controller services.
 *
 * @example
 * ```ts
 * import { isControllerRunnable } from "./runnable.ts";
 * isControllerRunnable({ name: "idle", start: () => Promise.resolve() }); // false
 * ```
 */
export function isControllerRunnable(r: Runnable): r is ControllerRunnable {
  return typeof (r as Partial<ControllerRunnable>).bind === "function";
}

/** A started runnable: await `ready` to know it serves, `done` to know it stopped (both may reject). */
export interface RunningRunnable {
  /** Settles with {@link Runnable.ready} (or with `done`, whichever settles first). */
  readonly ready: Promise<void>;
  /** Settles with {@link Runnable.start}. */
  readonly done: Promise<void>;
}

/**
 * Starts `runnable` with `signal`; a synchronous throw from `start` becomes a rejected `done`. `readySignal` aborts
 * the readiness wait only (default `signal`). Rejections of `ready` and `done` are marked handled here, so a caller
 * that gives up after `ready` rejected does not crash the process; await `done` to see the outcome.
 *
 * @example
 * ```ts
 * import { startRunnable } from "./runnable.ts";
 * const stop = new AbortController();
 * const run = startRunnable({
 *   name: "idle",
 *   start: (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
 * }, stop.signal);
 * await run.ready;
 * stop.abort();
 * await run.done;
 * ```
 */
export function startRunnable(
  runnable: Runnable,
  signal: AbortSignal,
  readySignal: AbortSignal = signal,
): RunningRunnable {
  let done: Promise<void>;
  try {
    done = runnable.start(signal);
  } catch (error) {
    done = Promise.reject(error);
  }
  const ready = runnable.ready ? Promise.race([runnable.ready(readySignal), done]) : Promise.resolve();
  done.catch(() => {});
  ready.catch(() => {});
  return { ready, done };
}
