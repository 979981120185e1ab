/**
 * FarmPods: a read-only view of the cluster's Pods, each renamed `farm-<pod>` with `spec.containers` = the number
 * of containers. Served from the Pod cache (an informer), never by listing per request; an unsynced or failing
 * cache answers 503 ServiceUnavailable.
 * @module
 */
import { resourceId } from "../runtime/apimachinery/names.ts";
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { KubeObject } from "../runtime/types.ts";
import type { PodCache, PodObject } from "./cluster.ts";
import { FARM_API_VERSION, FARMPODS } from "./llama.ts";

/** The prefix of every FarmPod name. */
export const FARMPOD_PREFIX = "farm-";

/** A FarmPod. */
export interface FarmPod extends KubeObject {
  /** How many containers the Pod has. */
  spec: { containers: number };
}

/**
 * Maps a Pod to its FarmPod.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toFarmPod } from "./farmpods.ts";
 * const fp = toFarmPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{}, {}] } });
 * assert.ok(fp.metadata.name === "farm-web" && fp.spec.containers === 2);
 * ```
 */
export function toFarmPod(pod: PodObject): FarmPod {
  const m = pod.metadata;
  return {
    apiVersion: FARM_API_VERSION,
    kind: "FarmPod",
    metadata: {
      name: `${FARMPOD_PREFIX}${m.name}`,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
      labels: m.labels,
    },
    spec: { containers: Array.isArray(pod.spec?.containers) ? pod.spec.containers.length : 0 },
  };
}

/** Throws 503 unless the cache can answer. */
export function requireSynced(pods: PodCache | undefined): PodCache {
  if (!pods) {
    throw new ApiError(
      failureStatus(503, "ServiceUnavailable", "farmpods are not served: this server has no cluster connection"),
      { verb: "list", resource: "farmpods.farm.example.com" },
    );
  }
  if (!pods.hasSynced()) {
    const why = pods.lastError?.();
    throw new ApiError(
      failureStatus(
        503,
        "ServiceUnavailable",
        `the pod cache is not synced yet${why ? `: ${why}` : ""}; retry shortly`,
        { retryAfterSeconds: 1 },
      ),
      { verb: "list", resource: "farmpods.farm.example.com" },
    );
  }
  return pods;
}

/** FarmPods of a namespace (or all), sorted, from the cache. */
export function listFarmPods(pods: PodCache | undefined, namespace: string | undefined): FarmPod[] {
  return requireSynced(pods).list(namespace).map(toFarmPod)
    .sort((a, b) =>
      `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}` ? -1 : 1
    );
}

/** One FarmPod by its `farm-` name; 404 when absent. */
export function getFarmPod(pods: PodCache | undefined, namespace: string, name: string): FarmPod {
  const cache = requireSynced(pods);
  const pod = name.startsWith(FARMPOD_PREFIX)
    ? cache.get(`${namespace}/${name.slice(FARMPOD_PREFIX.length)}`)
    : undefined;
  if (!pod) {
    throw new ApiError(
      failureStatus(404, "NotFound", `${resourceId(FARMPODS)} "${name}" not found`, {
        name,
        group: FARMPODS.group,
        kind: FARMPODS.plural,
      }),
      { verb: "get", resource: "farmpods.farm.example.com", namespace, name },
    );
  }
  return toFarmPod(pod);
}

/** The largest Pod resourceVersion in the cache, as the list's resourceVersion (RVs compared numerically). */
export function farmPodListRV(pods: FarmPod[]): string {
  let max = 0;
  for (const p of pods) max = Math.max(max, Number(p.metadata.resourceVersion ?? 0) || 0);
  return String(max);
}
