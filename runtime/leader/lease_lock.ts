/**
 * The small lock interface leader election talks to (client-go's `resourcelock.Interface`): read the Lease, create
 * it, or update it under a resourceVersion precondition. {@link kubeLeaseLock} speaks to a real (or fake) API server
 * through a structural client; {@link MemoryLeaseStore} is a shared in-process Lease for unit tests.
 * @module
 */

import { ApiError, failureStatus, isNotFound } from "../client/errors.ts";
import { CoreTypes, type KubeObject, type WatchEvent } from "../types.ts";

/** coordination.k8s.io/v1 LeaseSpec. Times are MicroTime strings (RFC 3339 with microseconds). */
export interface LeaseSpec {
  /** Who holds the Lease; empty or absent when free (released). */
  holderIdentity?: string;
  /** How long others must see the Lease unchanged before taking it. */
  leaseDurationSeconds?: number;
  /** When the current holder acquired it (MicroTime). */
  acquireTime?: string;
  /** When the holder last renewed it (MicroTime; informational — expiry uses local observation). */
  renewTime?: string;
  /** How many times the holder changed. */
  leaseTransitions?: number;
}

/** A Lease as read through a lock: its spec and the resourceVersion to use as the next update's precondition. */
export interface LeaseRecord {
  /** The Lease spec as read. */
  spec: LeaseSpec;
  /** metadata.resourceVersion: the precondition of the next update. */
  rv: string;
}

/**
 * Where the election record lives. `update` must fail with a conflict ({@link isConflict} true) when `rv` is stale,
 * and `create` with AlreadyExists when the Lease exists; any other failure is just "this attempt failed".
 */
export interface LeaseLock {
  /** The current Lease, or undefined when it does not exist. */
  get(signal?: AbortSignal): Promise<LeaseRecord | undefined>;
  /** Creates the Lease with `spec`. */
  create(spec: LeaseSpec, signal?: AbortSignal): Promise<LeaseRecord>;
  /** Replaces the spec if the Lease is still at `rv`. */
  update(spec: LeaseSpec, rv: string, signal?: AbortSignal): Promise<LeaseRecord>;
  /** `namespace/name`, for logs and errors. */
  describe(): string;
  /**
   * Optional: one watch of this Lease from its current state — `onChange` gets the Lease as it is when the watch opens
   * and after every change (undefined once deleted). Resolves when the stream ends or `signal` aborts; rejects when
   * the watch fails (403 without the `watch` verb). A standby uses it to take a released Lease at once instead of at
   * its next poll; the caller retries it and keeps polling either way.
   */
  watch?(signal: AbortSignal, onChange: (record: LeaseRecord | undefined) => void): Promise<void>;
}

/** A coordination.k8s.io/v1 Lease object. */
export interface LeaseObject extends KubeObject {
  /** The election record. */
  spec?: LeaseSpec;
}

/** The subset of KubeClient a {@link kubeLeaseLock} needs (structural, so tests may pass anything shaped so). */
export interface LeaseClient {
  /** GET one Lease. */
  get<T extends KubeObject>(
    rt: typeof CoreTypes.Lease,
    name: string,
    opts?: { namespace?: string; signal?: AbortSignal },
  ): Promise<T>;
  /** POST a Lease. */
  create<T extends KubeObject>(
    rt: typeof CoreTypes.Lease,
    obj: T,
    opts?: { namespace?: string; signal?: AbortSignal },
  ): Promise<T>;
  /** PUT a Lease (its metadata.resourceVersion is the precondition). */
  update<T extends KubeObject>(
    rt: typeof CoreTypes.Lease,
    obj: T,
    opts?: { namespace?: string; signal?: AbortSignal },
  ): Promise<T>;
  /** Watch Leases (KubeClient.watchStream); without it the lock has no {@link LeaseLock.watch}. */
  watchStream?<T extends KubeObject>(
    rt: typeof CoreTypes.Lease,
    opts: { namespace?: string; fieldSelector?: string; timeoutSeconds?: number; signal?: AbortSignal },
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<void>;
}

/** How long one Lease watch stream lasts before the server ends it and the elector opens the next. */
const LEASE_WATCH_TIMEOUT_SECONDS = 300;

/**
 * A {@link LeaseLock} on the Lease `namespace/name`, through the API server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { kubeLeaseLock } from "./lease_lock.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const lock = kubeLeaseLock({ client, namespace: "default", name: "kubeop" });
 * assert.equal(await lock.get(), undefined); // no Lease yet
 * await lock.create({ holderIdentity: "replica-a", leaseDurationSeconds: 15 });
 * assert.equal((await lock.get())?.spec.holderIdentity, "replica-a");
 * client.close();
 * await cluster.stop();
 * ```
 */
export function kubeLeaseLock(
  opts: { client: LeaseClient; namespace: string; name: string; labels?: Record<string, string> },
): LeaseLock {
  const { client, namespace, name } = opts;
  // Labels go on every write: an update replaces the metadata, and the shard ring lists its Leases by label.
  const labels = opts.labels ? { labels: { ...opts.labels } } : {};
  const rt = CoreTypes.Lease;
  const record = (lease: LeaseObject): LeaseRecord => ({
    spec: { ...(lease.spec ?? {}) },
    rv: lease.metadata.resourceVersion ?? "",
  });
  return {
    async get(signal) {
      try {
        return record(await client.get<LeaseObject>(rt, name, { namespace, signal }));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(spec, signal) {
      const lease: LeaseObject = {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name, namespace, ...labels },
        spec,
      };
      return record(await client.create<LeaseObject>(rt, lease, { namespace, signal }));
    },
    async update(spec, rv, signal) {
      const lease: LeaseObject = {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name, namespace, resourceVersion: rv, ...labels },
        spec,
      };
      return record(await client.update<LeaseObject>(rt, lease, { namespace, signal }));
    },
    describe: () => `${namespace}/${name}`,
    watch: client.watchStream
      ? async (signal, onChange) => {
        const opts = {
          namespace,
          fieldSelector: `metadata.name=${name}`,
          timeoutSeconds: LEASE_WATCH_TIMEOUT_SECONDS,
          signal,
        };
        try {
          await client.watchStream!<LeaseObject>(rt, opts, (event) => {
            if (event.type === "ADDED" || event.type === "MODIFIED") onChange(record(event.object));
            else if (event.type === "DELETED") onChange(undefined);
          });
        } catch (err) {
          if (!signal.aborted) throw err;
        }
      }
      : undefined,
  };
}

/**
 * One Lease held in memory, shared by every lock made from it — several candidates in one test contend for it
 * exactly as they would for a Lease on a server (resourceVersion preconditions included).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryLeaseStore } from "./lease_lock.ts";
 * const store = new MemoryLeaseStore();
 * const lock = store.lock();
 * const created = await lock.create({ holderIdentity: "a" });
 * await lock.update({ holderIdentity: "b" }, created.rv);
 * assert.ok(store.current?.spec.holderIdentity === "b");
 * ```
 */
export class MemoryLeaseStore {
  #record: LeaseRecord | undefined;
  #rv = 0;
  #listeners = new Set<(record: LeaseRecord) => void>();

  /** `namespace/name`, used in errors and {@link LeaseLock.describe}. */
  readonly name: string;

  /** An empty store (no Lease yet) named `name`. */
  constructor(name = "default/lease") {
    this.name = name;
  }

  /** The stored Lease (a copy), or undefined. */
  get current(): LeaseRecord | undefined {
    return this.#record && { spec: { ...this.#record.spec }, rv: this.#record.rv };
  }

  /** Calls `fn` synchronously after every successful write (tests use it to check invariants at each transition). */
  onWrite(fn: (record: LeaseRecord) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** A lock on this store. */
  lock(): LeaseLock {
    return {
      get: () => Promise.resolve(this.current),
      create: (spec) => Promise.resolve().then(() => this.#create(spec)),
      update: (spec, rv) => Promise.resolve().then(() => this.#update(spec, rv)),
      describe: () => this.name,
      watch: (signal, onChange) => this.#watch(signal, onChange),
    };
  }

  /** Streams this Lease to `onChange` (now, then after every write) until `signal` aborts. */
  #watch(signal: AbortSignal, onChange: (record: LeaseRecord | undefined) => void): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const stop = this.onWrite((record) => onChange(record));
      signal.addEventListener("abort", () => {
        stop();
        resolve();
      }, { once: true });
      onChange(this.current);
    });
  }

  #write(spec: LeaseSpec): LeaseRecord {
    this.#record = { spec: { ...spec }, rv: String(++this.#rv) };
    const copy = this.current!;
    for (const fn of this.#listeners) fn(copy);
    return copy;
  }

  #create(spec: LeaseSpec): LeaseRecord {
    if (this.#record) {
      throw new ApiError(
        failureStatus(409, "AlreadyExists", `leases.coordination.k8s.io "${this.name}" already exists`),
        { verb: "create", resource: "leases.coordination.k8s.io", name: this.name },
      );
    }
    return this.#write(spec);
  }

  #update(spec: LeaseSpec, rv: string): LeaseRecord {
    const call = { verb: "update", resource: "leases.coordination.k8s.io", name: this.name };
    if (!this.#record) {
      throw new ApiError(failureStatus(404, "NotFound", `leases.coordination.k8s.io "${this.name}" not found`), call);
    }
    if (this.#record.rv !== rv) {
      throw new ApiError(
        failureStatus(
          409,
          "Conflict",
          `Operation cannot be fulfilled on leases.coordination.k8s.io "${this.name}": the object has been modified`,
        ),
        call,
      );
    }
    return this.#write(spec);
  }
}
