/**
 * The shard ring's Leases: one coordination.k8s.io/v1 Lease per bucket (`<ring>-bucket-<n>`) and one per member
 * (`<ring>-member-<identity>`), all labelled `kubeop.dev/shard-ring=<ring>` so a replica sees the whole ring with one
 * list. A {@link LeaseDirectory} hands out a {@link LeaseLock} per Lease (the leader elector's lock interface, so
 * every bucket and every member is renewed by an ordinary {@link LeaderElector}) and lists them;
 * {@link kubeLeaseDirectory} speaks to an API server, {@link MemoryLeaseDirectory} keeps them in memory for tests.
 * @module
 */

import type { KubeList } from "../types.ts";
import { CoreTypes } from "../types.ts";
import { isNotFound } from "../client/errors.ts";
import {
  kubeLeaseLock,
  type LeaseClient,
  type LeaseLock,
  type LeaseObject,
  type LeaseRecord,
  MemoryLeaseStore,
} from "../leader/lease_lock.ts";

/** The label every Lease of a ring carries; its value is the ring's name. */
export const SHARD_RING_LABEL = "kubeop.dev/shard-ring";

/** The Lease guarding bucket `n` of ring `ring`. */
export function bucketLeaseName(ring: string, n: number): string {
  return `${ring}-bucket-${n}`;
}

/** The Lease announcing member `identity` of ring `ring` (the identity lowercased and made a valid name). */
export function memberLeaseName(ring: string, identity: string): string {
  const safe = identity.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "");
  return `${ring}-member-${safe || "x"}`.slice(0, 253);
}

/** One Lease of the ring as listed. */
export interface NamedLease {
  /** metadata.name. */
  name: string;
  /** Its spec and resourceVersion. */
  record: LeaseRecord;
}

/** Where a ring's Leases live. */
export interface LeaseDirectory {
  /** A lock on the Lease `name` (created with the ring label when absent). */
  lock(name: string): LeaseLock;
  /** Every Lease of the ring. */
  list(signal?: AbortSignal): Promise<NamedLease[]>;
  /** Deletes the Lease `name` (a member leaving for good); absent is fine. */
  remove(name: string, signal?: AbortSignal): Promise<void>;
  /** `namespace/ring`, for logs. */
  describe(): string;
}

/** The calls {@link kubeLeaseDirectory} makes (KubeClient satisfies it). */
export interface ShardLeaseClient extends LeaseClient {
  /** LIST Leases by label. */
  list<T extends LeaseObject>(
    rt: typeof CoreTypes.Lease,
    opts?: { namespace?: string; labelSelector?: string; signal?: AbortSignal },
  ): Promise<KubeList<T>>;
  /** DELETE one Lease. */
  delete(rt: typeof CoreTypes.Lease, name: string, opts?: { namespace?: string; signal?: AbortSignal }): Promise<void>;
}

/**
 * The ring's Leases in `namespace` on an API server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { kubeLeaseDirectory } from "./shard_leases.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const dir = kubeLeaseDirectory({ client, namespace: "default", ring: "kubeop" });
 * await dir.lock("kubeop-bucket-0").create({ holderIdentity: "replica-a" }); // labelled as the ring's
 * const leases = await dir.list();
 * assert.deepEqual(leases.map(({ name, record }) => [name, record.spec.holderIdentity]), [["kubeop-bucket-0", "replica-a"]]);
 * client.close();
 * await cluster.stop();
 * ```
 */
export function kubeLeaseDirectory(
  opts: { client: ShardLeaseClient; namespace: string; ring: string },
): LeaseDirectory {
  const { client, namespace, ring } = opts;
  const labels = { [SHARD_RING_LABEL]: ring };
  return {
    lock: (name) => kubeLeaseLock({ client, namespace, name, labels }),
    async list(signal) {
      const list = await client.list<LeaseObject>(CoreTypes.Lease, {
        namespace,
        labelSelector: `${SHARD_RING_LABEL}=${ring}`,
        signal,
      });
      return list.items.map((lease) => ({
        name: lease.metadata.name ?? "",
        record: { spec: { ...(lease.spec ?? {}) }, rv: lease.metadata.resourceVersion ?? "" },
      }));
    },
    async remove(name, signal) {
      try {
        await client.delete(CoreTypes.Lease, name, { namespace, signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    describe: () => `${namespace}/${ring}`,
  };
}

/**
 * A ring's Leases in memory: each name is a {@link MemoryLeaseStore}, so electors contend for it exactly as for a
 * Lease on a server. {@link MemoryLeaseDirectory.onWrite} reports every change in order (the model's checker replays
 * them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryLeaseDirectory } from "./shard_leases.ts";
 * const leases = new MemoryLeaseDirectory();
 * const dir = leases.directory();
 * await dir.lock("kubeop-bucket-0").create({ holderIdentity: "a" });
 * assert.deepEqual((await dir.list()).map((l) => l.name), ["kubeop-bucket-0"]);
 * ```
 */
export class MemoryLeaseDirectory {
  readonly #stores = new Map<string, MemoryLeaseStore>();
  readonly #listeners = new Set<(name: string, record: LeaseRecord) => void>();

  /** Calls `fn` synchronously after every successful Lease write. */
  onWrite(fn: (name: string, record: LeaseRecord) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** The stored Lease `name`, or undefined. */
  current(name: string): LeaseRecord | undefined {
    return this.#stores.get(name)?.current;
  }

  /** A {@link LeaseDirectory} over these Leases. */
  directory(): LeaseDirectory {
    return {
      // Resolved per call, as a name is on a server: a deleted Lease is re-created by the next create.
      lock: (name) => ({
        get: (signal) => this.#store(name).lock().get(signal),
        create: (spec, signal) => this.#store(name).lock().create(spec, signal),
        update: (spec, rv, signal) => this.#store(name).lock().update(spec, rv, signal),
        describe: () => name,
      }),
      list: () =>
        Promise.resolve(
          [...this.#stores].flatMap(([name, store]) => {
            const record = store.current;
            return record ? [{ name, record }] : [];
          }),
        ),
      remove: (name) => Promise.resolve().then(() => void this.#stores.delete(name)),
      describe: () => "memory",
    };
  }

  #store(name: string): MemoryLeaseStore {
    let store = this.#stores.get(name);
    if (!store) {
      const created = new MemoryLeaseStore(name);
      created.onWrite((record) => {
        if (this.#stores.get(name) !== created) return;
        for (const fn of this.#listeners) fn(name, record);
      });
      this.#stores.set(name, created);
      store = created;
    }
    return store;
  }
}
