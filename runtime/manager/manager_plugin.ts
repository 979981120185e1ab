/**
 * Manager plug-ins: what a feature such as sharding (runtime/shard/manager_shards.ts) adds to a Manager without the
 * Manager knowing it — the services of the controllers it adds (and whether they run on every replica), runnables of
 * its own, a hook before the groups start, and /readyz lines. The Manager's start loop runs plug-in runnables in the
 * every-replica group like any other.
 * @module
 */

import type { ControllerDeps } from "../controller/controller.ts";
import type { CheckResult } from "./probes.ts";
import type { ControllerRunnable, Runnable } from "./runnable.ts";

/** Where and with what a controller runs. */
export interface ControllerPlacement {
  /** The controller's services. */
  deps: ControllerDeps;
  /** Runs on every replica (after the caches synced) instead of on the leader only. */
  everyReplica?: boolean;
}

/**
 * A feature plugged into a Manager.
 *
 * @example
 * ```ts
 * import type { ManagerPlugin } from "./manager_plugin.ts";
 * // Runs every controller on every replica, unfenced (a sketch: sharding does this plus its admission).
 * const everywhere: ManagerPlugin = {
 *   name: "everywhere",
 *   placeController: (_c, deps) => ({ deps: { ...deps, admission: undefined }, everyReplica: true }),
 * };
 * ```
 */
export interface ManagerPlugin {
  /** Names the plug-in in logs. */
  readonly name: string;
  /** Adjusts the services of a controller being added (`deps`: the manager's defaults) and where it runs. */
  placeController?(controller: ControllerRunnable, deps: ControllerDeps): ControllerPlacement;
  /** Called once when the manager starts, before the informers start (every controller was added). */
  starting?(): void;
  /** Runnables the manager runs for the plug-in (every replica, after the caches synced). */
  runnables?(): Runnable[];
  /** Lines of the /readyz report. */
  checks?(): CheckResult[];
}
