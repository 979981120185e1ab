/**
 * Llama persistence in one ConfigMap (`--storage=configmap`): `data["llamas.json"]` holds the llamas and
 * `data.resourceVersion` the store's counter, so objects and resourceVersions survive a restart. Writes carry the
 * ConfigMap's own resourceVersion as precondition; a 409 becomes {@link StorageConflictError} and the store reloads
 * and retries. One ConfigMap holds at most ~1 MiB, which bounds the farm to a few thousand llamas.
 * @module
 */
import {
  ApiError,
  failureStatus,
  isAlreadyExists,
  isConflict,
  isServerError,
  isTooManyRequests,
} from "../runtime/client/errors.ts";
import type { ConfigMapObject, FarmCluster } from "./cluster.ts";
import type { Llama } from "./llama.ts";
import { type LlamaPersistence, type LlamaState, StorageConflictError } from "./llama_store.ts";

/** Where the ConfigMap lives. */
export interface ConfigMapStorageOptions {
  /** The cluster (SubjectAccessReview, ConfigMaps, Secrets, Pods). */
  cluster: FarmCluster;
  /** Default "kube-system". */
  namespace?: string;
  /** Default "farm-llamas". */
  name?: string;
}

/**
 * A {@link LlamaPersistence} backed by a ConfigMap.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../runtime/clock.ts";
 * import { ConfigMapStorage } from "./configmap_storage.ts";
 * import { LlamaStore } from "./llama_store.ts";
 * import { MemoryFarmCluster } from "./memory_cluster.ts";
 * const cluster = new MemoryFarmCluster(); // KubeFarmCluster in the server
 * const clock = new VirtualClock();
 * const store = await LlamaStore.open({ clock, persistence: new ConfigMapStorage({ cluster }) });
 * const llama = { metadata: { name: "kuzco", namespace: "default" }, spec: { weight: 1, height: 1 } };
 * await store.create({ apiVersion: "farm.example.com/v1alpha", kind: "Llama", ...llama });
 * const cm = await cluster.getConfigMap("kube-system", "farm-llamas"); // written before the change is visible
 * assert.match(cm?.data?.["llamas.json"] ?? "", /kuzco/);
 * const reopened = await LlamaStore.open({ clock, persistence: new ConfigMapStorage({ cluster }) }); // a restart
 * assert.equal(reopened.get("default", "kuzco").spec.weight, 1);
 * ```
 */
export class ConfigMapStorage implements LlamaPersistence {
  /** Namespace (undefined: cluster scope or all namespaces). */
  readonly namespace: string;
  /** Object name. */
  readonly name: string;
  readonly #cluster: FarmCluster;
  /** The ConfigMap's resourceVersion as last read or written; undefined = not created yet. */
  #cmRV: string | undefined;

  /** Creates the instance from its options. */
  constructor(opts: ConfigMapStorageOptions) {
    this.#cluster = opts.cluster;
    this.namespace = opts.namespace ?? "kube-system";
    this.name = opts.name ?? "farm-llamas";
  }

  async load(): Promise<LlamaState | undefined> {
    const cm = await this.#cluster.getConfigMap(this.namespace, this.name);
    this.#cmRV = cm?.metadata.resourceVersion;
    if (!cm?.data?.["llamas.json"]) return undefined;
    const llamas = JSON.parse(cm.data["llamas.json"]) as Llama[];
    const resourceVersion = Number(cm.data.resourceVersion ?? 0);
    if (!Array.isArray(llamas) || !Number.isSafeInteger(resourceVersion)) {
      throw new Error(`ConfigMap ${this.namespace}/${this.name}: llamas.json or resourceVersion is malformed`);
    }
    return { resourceVersion, llamas };
  }

  /** Calls `onChange` whenever the ConfigMap changes (another replica's write, or ours), until `signal` aborts. */
  async watch(onChange: () => void, signal: AbortSignal): Promise<void> {
    await this.#cluster.watchConfigMap?.(this.namespace, this.name, onChange, signal);
  }

  async save(state: LlamaState): Promise<void> {
    const body: ConfigMapObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { "app.kubernetes.io/name": "kubeop-farm", "app.kubernetes.io/component": "llama-storage" },
      },
      data: { resourceVersion: String(state.resourceVersion), "llamas.json": JSON.stringify(state.llamas) },
    };
    try {
      if (this.#cmRV === undefined) {
        const created = await this.#cluster.createConfigMap(body);
        this.#cmRV = created.metadata.resourceVersion;
      } else {
        body.metadata.resourceVersion = this.#cmRV;
        const updated = await this.#cluster.updateConfigMap(body);
        this.#cmRV = updated.metadata.resourceVersion;
      }
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) {
        throw new StorageConflictError(
          `ConfigMap ${this.namespace}/${this.name} changed concurrently: ${(err as ApiError).message}`,
        );
      }
      throw storageFailure(`writing ConfigMap ${this.namespace}/${this.name}`, err);
    }
  }
}

/** A cluster error while persisting is the farm server's internal error, not the caller's (e.g. a 403 on configmaps). */
function storageFailure(what: string, err: unknown): ApiError {
  const cause = err instanceof ApiError ? `${err.code} ${err.reason}: ${err.status.message ?? ""}` : String(err);
  const retriable = !(err instanceof ApiError) || isTooManyRequests(err) || isServerError(err);
  return new ApiError(
    failureStatus(
      retriable ? 503 : 500,
      retriable ? "ServiceUnavailable" : "InternalError",
      `llama storage unavailable (${what}): ${cause}`,
      retriable ? { retryAfterSeconds: 1 } : undefined,
    ),
    { verb: "update", resource: "configmaps", namespace: undefined, name: undefined },
  );
}
