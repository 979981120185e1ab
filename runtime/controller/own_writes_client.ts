/**
 * The client a reconcile gets: it delegates every call to the manager's client and records, for the reconcile's key,
 * what each write returned (and each delete), so the next reconcile of that key waits until the cache shows it
 * ({@link OwnWritesTracker}). Every call is also bound to the leadership signal, so losing the Lease aborts a
 * reconcile's in-flight requests.
 * @module
 */

import type {
  CreateOptions,
  DeleteOptions,
  ListOptions,
  NamespaceOption,
  PatchOptions,
  RawResponse,
  RequestOptions,
  UpdateOptions,
} from "../client/client.ts";
import type { ControllerClient } from "./controller_client.ts";
import type { OwnWritesTracker } from "./own_writes.ts";
import type { KubeList, KubeObject, ResourceType } from "../types.ts";

/** The tracker calls the client makes ({@link OwnWritesTracker} satisfies it). */
export type OwnWritesRecorder = Pick<OwnWritesTracker, "recordWrite" | "recordDelete" | "cachedUid">;

/** Options of {@link OwnWritesClient}. */
export interface OwnWritesClientOptions {
  /** Where calls go (the manager's client, fenced when leader election is on). */
  client: ControllerClient;
  /** The reconcile key the writes are recorded for. */
  key: string;
  /** Records the expectations. */
  tracker: OwnWritesRecorder;
  /** Aborted when this replica may no longer write (leadership ended); every call is bound to it. */
  leadership?: AbortSignal;
}

/**
 * A {@link ControllerClient} that records read-your-own-writes expectations for one reconcile key.
 *
 * @example
 * ```ts ignore
 * const client = new OwnWritesClient({ client: kubeClient, key: "ns/a", tracker });
 * await client.update(MachineType, machine); // the next reconcile of ns/a waits for the cache to show it
 * ```
 */
export class OwnWritesClient implements ControllerClient {
  readonly #client: ControllerClient;
  readonly #key: string;
  readonly #tracker: OwnWritesRecorder;
  readonly #leadership: AbortSignal | undefined;

  /** Wraps `opts.client` for the reconcile of `opts.key`. */
  constructor(opts: OwnWritesClientOptions) {
    this.#client = opts.client;
    this.#key = opts.key;
    this.#tracker = opts.tracker;
    this.#leadership = opts.leadership;
  }

  get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, opts: NamespaceOption = {}): Promise<T> {
    return this.#client.get<T>(rt, name, this.#bound(opts));
  }

  list<T extends KubeObject = KubeObject>(rt: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    return this.#client.list<T>(rt, this.#bound(opts));
  }

  request(method: "GET", path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    if (method !== "GET") {
      // The type allows only GET; this guards untyped callers, whose raw writes would escape the tracking.
      return Promise.reject(new TypeError(`ctx.client.request: only GET is allowed (got ${method} ${path})`));
    }
    return this.#client.request("GET", path, this.#bound(opts));
  }

  async create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: CreateOptions = {}): Promise<T> {
    return this.#recorded(rt, await this.#client.create<T>(rt, obj, this.#bound(opts)));
  }

  async update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.#recorded(rt, await this.#client.update<T>(rt, obj, this.#bound(opts)));
  }

  async updateStatus<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: T,
    opts: NamespaceOption = {},
  ): Promise<T> {
    return this.#recorded(rt, await this.#client.updateStatus<T>(rt, obj, this.#bound(opts)));
  }

  async patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    return this.#recorded(rt, await this.#client.patch<T>(rt, name, body, this.#bound(opts)));
  }

  async delete(rt: ResourceType, name: string, opts: DeleteOptions = {}): Promise<void> {
    const objKey = opts.namespace ? `${opts.namespace}/${name}` : name;
    // The uid is read before the call: afterwards the cache may already have dropped the object.
    const uid = opts.preconditions?.uid ?? this.#tracker.cachedUid(rt, objKey);
    await this.#client.delete(rt, name, this.#bound(opts));
    this.#tracker.recordDelete(this.#key, rt, objKey, uid);
  }

  #recorded<T extends KubeObject>(rt: ResourceType, written: T): T {
    this.#tracker.recordWrite(this.#key, rt, written);
    return written;
  }

  /** `opts` with its signal joined to the leadership signal. */
  #bound<O extends { signal?: AbortSignal }>(opts: O): O {
    const leadership = this.#leadership;
    if (!leadership) return opts;
    return { ...opts, signal: opts.signal ? AbortSignal.any([opts.signal, leadership]) : leadership };
  }
}
