/**
 * The recent changes of the FarmPods, so a farmpod watch can resume from a resourceVersion as kube-apiserver's watch
 * cache does: changes after it are replayed, one older than the window answers an in-stream 410 Expired (the
 * client relists). FarmPods mirror Pods, so their resourceVersions are the Pods' and the window starts at the newest
 * Pod the cache held when it synced.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { KubeObject } from "../runtime/types.ts";
import type { PodCache, PodObject } from "./cluster.ts";
import { toFarmPod } from "./farmpods.ts";
import { copyJson } from "../runtime/apimachinery/json_copy.ts";

/** One FarmPod change. */
export interface FarmPodChange {
  /** Watch event type. */
  type: "ADDED" | "MODIFIED" | "DELETED";
  /** The FarmPod after the change (its last state, for DELETED). */
  object: KubeObject;
  /** The Pod's resourceVersion of this change. */
  resourceVersion: number;
}

const rvOf = (pod: PodObject) => Number(pod.metadata.resourceVersion ?? 0) || 0;

/**
 * A bounded history of FarmPod changes fed by the Pod cache, with live subscriptions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FarmPodHistory, type FarmPodChange } from "./farmpod_history.ts";
 * import { MemoryPodCache } from "./memory_cluster.ts";
 * const pods = new MemoryPodCache(); // podCacheFromInformer(...) in the server
 * const history = new FarmPodHistory(pods);
 * pods.put({ metadata: { name: "web", namespace: "default", resourceVersion: "5" }, spec: { containers: [{}] } });
 * const live: FarmPodChange[] = [];
 * const { replay, unsubscribe } = history.subscribe(0, (change) => live.push(change)); // a watch from resourceVersion 0
 * assert.deepEqual(replay.map((c) => [c.type, c.object.metadata.name]), [["ADDED", "farm-web"]]);
 * pods.delete("default", "web");
 * assert.deepEqual(live.map((c) => c.type), ["DELETED"]);
 * unsubscribe();
 * ```
 */
export class FarmPodHistory {
  readonly #size: number;
  readonly #pods: PodCache;
  #history: FarmPodChange[] = [];
  /** Changes with a resourceVersion above this are all in #history (once the cache synced). */
  #floor = 0;
  #latest = 0;
  #listeners = new Set<(change: FarmPodChange) => void>();

  /** Attaches to `pods`; keeps the last `size` changes (default 1000, kube's watch cache default is 100 per type). */
  constructor(pods: PodCache, opts: { size?: number } = {}) {
    this.#pods = pods;
    this.#size = opts.size ?? 1000;
    // What the cache holds already is state, not changes: the window starts after it.
    for (const pod of pods.list()) this.#floor = this.#latest = Math.max(this.#floor, rvOf(pod));
    const record = (type: FarmPodChange["type"], pod: PodObject) => {
      const rv = rvOf(pod);
      this.#latest = Math.max(this.#latest, rv);
      if (!pods.hasSynced()) {
        this.#floor = Math.max(this.#floor, rv); // the initial list: state, not changes
        return;
      }
      const change: FarmPodChange = { type, object: toFarmPod(pod), resourceVersion: rv };
      this.#history.push(change);
      while (this.#history.length > this.#size) this.#floor = this.#history.shift()!.resourceVersion;
      for (const listener of [...this.#listeners]) listener(copyJson(change));
    };
    pods.addHandler({
      added: (p) => record("ADDED", p),
      modified: (_old, p) => record("MODIFIED", p),
      deleted: (p) => record("DELETED", p),
    });
  }

  /** The newest Pod resourceVersion seen (deletions included). */
  get latestResourceVersion(): number {
    return this.#latest;
  }

  /**
   * Subscribes to changes after `sinceRV`, replaying the recorded ones first; 410 Expired (ApiError) when `sinceRV`
   * is older than the window.
   */
  subscribe(
    sinceRV: number,
    listener: (change: FarmPodChange) => void,
  ): { replay: FarmPodChange[]; unsubscribe: () => void } {
    if (this.#pods.hasSynced() && sinceRV < this.#floor) {
      throw new ApiError(
        failureStatus(410, "Expired", `too old resource version: ${sinceRV} (${this.#floor})`),
        { verb: "watch", resource: "farmpods.farm.example.com" },
      );
    }
    const replay = this.#history.filter((c) => c.resourceVersion > sinceRV).map((c) => copyJson(c));
    this.#listeners.add(listener);
    return { replay, unsubscribe: () => this.#listeners.delete(listener) };
  }
}
