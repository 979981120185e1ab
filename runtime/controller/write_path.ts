/**
 * The write path of a reconcile: one chain of {@link WriteInterceptor}s around the manager's client, each check
 * written once —
 * 1. own-writes tracking ({@link trackOwnWrites}): what each write returned (and each delete) is recorded for the
 *    reconcile's key, so the next reconcile of that key waits until the cache shows it (own_writes.ts);
 * 2. the fence (runtime/leader/write_fence.ts `fenceWrites`, with every other write-fence check): the write passes
 *    the leader's or the shard bucket's fence, and every call is bound to the fence's signal;
 * 3. the uid guard ({@link guardUid}): a write to the reconciled object itself is made conditional on the uid the
 *    reconcile was admitted for (docs/sharding.md).
 *
 * {@link reconcileClient} builds the chain a reconcile gets; {@link WriteChainClient} runs any chain.
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
import { ApiError, failureStatus } from "../client/errors.ts";
import type { WriteFence } from "../client/client_options.ts";
import { fenceWrites } from "../leader/write_fence.ts";
import { resourceId } from "../apimachinery/names.ts";
import { type Write, type WriteInterceptor, writeTarget } from "../client/write_interceptor.ts";
import type { KubeList, KubeObject, ResourceType } from "../types.ts";

export type { Write, WriteInterceptor } from "../client/write_interceptor.ts";

/** The tracker calls the chain makes (the controller's `OwnWritesTracker` satisfies it). */
export interface OwnWritesRecorder {
  /** Records that reconciling `key` wrote `written` (the server's answer) of type `rt`. */
  recordWrite(key: string, rt: ResourceType, written: KubeObject | undefined): void;
  /** Records that reconciling `key` deleted `objKey` of type `rt` (uid when known). */
  recordDelete(key: string, rt: ResourceType, objKey: string, uid?: string): void;
  /** The uid the cache holds for `objKey` of `rt`, if the controller caches that resource. */
  cachedUid(rt: ResourceType, objKey: string): string | undefined;
}

/**
 * A {@link ControllerClient} whose writes pass `interceptors` (outermost first) before they reach `client`, and whose
 * reads go out with the options the interceptors give them. Raw requests other than GET are refused: they would
 * bypass the chain.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes, type KubeObject, type ResourceType } from "../types.ts";
 * import { VirtualClock } from "../clock.ts";
 * import { fenceWrites, LeaderFence } from "../leader/write_fence.ts";
 * import { trackOwnWrites, WriteChainClient } from "./write_path.ts";
 * const recorded: string[] = []; // the controller's OwnWritesTracker in production
 * const tracker = {
 *   recordWrite: (key: string, rt: ResourceType, o: KubeObject | undefined) =>
 *     recorded.push(`${key} wrote ${rt.plural}/${o?.metadata.name}`),
 *   recordDelete: (key: string, rt: ResourceType, objKey: string) => recorded.push(`${key} deleted ${rt.plural}/${objKey}`),
 *   cachedUid: () => undefined,
 * };
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const kubeClient = new KubeClient({ config: { server: cluster.url } });
 * const clock = new VirtualClock();
 * const fence = new LeaderFence({ clock, renewDeadlineMs: 10_000, lease: "default/kubeop", identity: "a" });
 * fence.open(clock.nowMonotonic()); // this replica leads
 * const client = new WriteChainClient(kubeClient, [trackOwnWrites(tracker, "default/a"), fenceWrites(fence)]);
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "child", namespace: "default" } }); // fenced, then recorded
 * assert.deepEqual(recorded, ["default/a wrote configmaps/child"]);
 * fence.close(new Error("lost the Lease"));
 * await assert.rejects(client.delete(CoreTypes.ConfigMap, "child", { namespace: "default" })); // refused, never sent
 * kubeClient.close();
 * await cluster.stop();
 * ```
 */
export class WriteChainClient implements ControllerClient {
  readonly #client: ControllerClient;
  readonly #interceptors: readonly WriteInterceptor[];

  /** Wraps `client` in `interceptors`, the first one outermost. */
  constructor(client: ControllerClient, interceptors: readonly WriteInterceptor[]) {
    this.#client = client;
    this.#interceptors = interceptors;
  }

  get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, opts: NamespaceOption = {}): Promise<T> {
    return this.#client.get<T>(rt, name, this.#read(opts));
  }

  list<T extends KubeObject = KubeObject>(rt: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    return this.#client.list<T>(rt, this.#read(opts));
  }

  request(method: "GET", path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    if (method !== "GET") {
      // The type allows only GET; this guards untyped callers, whose raw writes would escape the chain.
      return Promise.reject(new TypeError(`ctx.client.request: only GET is allowed (got ${method} ${path})`));
    }
    return this.#client.request("GET", path, this.#read(opts));
  }

  create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: CreateOptions = {}): Promise<T> {
    return this.#write({ verb: "create", rt, obj, opts }) as Promise<T>;
  }

  update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.#write({ verb: "update", rt, obj, opts }) as Promise<T>;
  }

  updateStatus<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: NamespaceOption = {}): Promise<T> {
    return this.#write({ verb: "updateStatus", rt, obj, opts }) as Promise<T>;
  }

  patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    return this.#write({ verb: "patch", rt, name, body, opts }) as Promise<T>;
  }

  async delete(rt: ResourceType, name: string, opts: DeleteOptions = {}): Promise<void> {
    await this.#write({ verb: "delete", rt, name, opts });
  }

  #read<O extends { signal?: AbortSignal }>(opts: O): O {
    for (const step of this.#interceptors) if (step.read) opts = step.read(opts);
    return opts;
  }

  /** Runs `w` through the steps from `from` on, then the client; a step that throws refuses it (a rejection). */
  #write(w: Write, from = 0): Promise<unknown> {
    const step = this.#interceptors[from];
    try {
      return step ? step.write(w, (next) => this.#write(next, from + 1)) : send(this.#client, w);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/** Hands a write to the client method it names. */
function send(client: ControllerClient, w: Write): Promise<unknown> {
  switch (w.verb) {
    case "create":
      return client.create(w.rt, w.obj, w.opts);
    case "update":
      return client.update(w.rt, w.obj, w.opts);
    case "updateStatus":
      return client.updateStatus(w.rt, w.obj, w.opts);
    case "patch":
      return client.patch(w.rt, w.name, w.body, w.opts);
    case "delete":
      return client.delete(w.rt, w.name, w.opts);
  }
}

/**
 * Own-writes tracking: records, for the reconcile of `key`, what each write returned and each delete (with the uid
 * the object had: the precondition's, or the cache's read before the call — afterwards the cache may have dropped it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes, type KubeObject, type ResourceType } from "../types.ts";
 * import { trackOwnWrites, WriteChainClient } from "./write_path.ts";
 * const recorded: string[] = []; // the controller's OwnWritesTracker in production
 * const tracker = {
 *   recordWrite: (key: string, rt: ResourceType, o: KubeObject | undefined) =>
 *     recorded.push(`${key} wrote ${rt.plural}/${o?.metadata.name}`),
 *   recordDelete: (key: string, rt: ResourceType, objKey: string) => recorded.push(`${key} deleted ${rt.plural}/${objKey}`),
 *   cachedUid: () => undefined,
 * };
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const kubeClient = new KubeClient({ config: { server: cluster.url } });
 * const client = new WriteChainClient(kubeClient, [trackOwnWrites(tracker, "default/a")]);
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "child", namespace: "default" } });
 * await client.delete(CoreTypes.ConfigMap, "child", { namespace: "default" });
 * // the next reconcile of default/a waits until the cache shows both
 * assert.deepEqual(recorded, ["default/a wrote configmaps/child", "default/a deleted configmaps/default/child"]);
 * kubeClient.close();
 * await cluster.stop();
 * ```
 */
export function trackOwnWrites(tracker: OwnWritesRecorder, key: string): WriteInterceptor {
  return {
    async write(w, next) {
      if (w.verb !== "delete") {
        const written = await next(w);
        tracker.recordWrite(key, w.rt, written as KubeObject);
        return written;
      }
      const objKey = w.opts.namespace ? `${w.opts.namespace}/${w.name}` : w.name;
      const uid = w.opts.preconditions?.uid ?? tracker.cachedUid(w.rt, objKey);
      await next(w);
      tracker.recordDelete(key, w.rt, objKey, uid);
      return undefined;
    },
  };
}

/** The object a reconcile was admitted for: {@link guardUid}. */
export interface UidGuard {
  /** The reconciled resource. */
  forType: ResourceType;
  /** The reconciled object's namespace (absent: cluster-scoped). */
  namespace?: string;
  /** The reconciled object's name. */
  name: string;
  /** The uid the reconcile was admitted for. */
  uid: string;
}

/**
 * The uid guard: every write to the reconciled object itself is made conditional on the uid the reconcile was
 * admitted for. The queue is keyed by namespace/name, but a shard bucket owns a uid: when the object is deleted and
 * recreated under the same name, a reconcile still running for the old uid must not touch the new object, so the
 * API server is asked to refuse it (update and patch: `metadata.uid` in the body, "Precondition failed: UID in
 * precondition"; JSON patch: a `test` of `/metadata/uid`; delete: `preconditions.uid`). A write naming another uid
 * is refused here with the server's own wording. Server-side apply bodies are left alone (a uid in an apply
 * configuration would become a managed field); writes to other objects pass unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { guardUid } from "./write_path.ts";
 * import { CoreTypes } from "../types.ts";
 * const guard = guardUid({ forType: CoreTypes.ConfigMap, namespace: "ns", name: "a", uid: "u1" });
 * const sent: unknown[] = [];
 * await guard.write(
 *   { verb: "patch", rt: CoreTypes.ConfigMap, name: "a", body: { data: { k: "v" } }, opts: { namespace: "ns", type: "merge" } },
 *   (w) => (sent.push(w.verb === "patch" ? w.body : undefined), Promise.resolve()),
 * );
 * assert.deepEqual(sent, [{ data: { k: "v" }, metadata: { uid: "u1" } }]);
 * ```
 */
export function guardUid(target: UidGuard): WriteInterceptor {
  const resource = resourceId(target.forType);
  const isTarget = (w: Write): boolean => {
    const { namespace, name } = writeTarget(w);
    return resourceId(w.rt) === resource && name === target.name && (namespace ?? "") === (target.namespace ?? "");
  };
  const mismatch = (w: Write, given: unknown): ApiError => {
    const { namespace, name } = target;
    return new ApiError(
      failureStatus(
        409,
        "Conflict",
        `Precondition failed: UID in precondition: ${target.uid}, UID in object meta: ${String(given)} ` +
          `(the reconcile of ${resource} ${namespace ? `${namespace}/` : ""}${name} ` +
          `was dispatched for uid ${target.uid})`,
      ),
      { verb: w.verb === "updateStatus" ? "update" : w.verb, resource, namespace, name: writeTarget(w).name },
    );
  };
  return {
    // async: a refusal is a rejection, as the server's would be.
    async write(w, next) {
      if (w.verb === "create" || !isTarget(w)) return await next(w);
      const uid = target.uid;
      switch (w.verb) {
        case "update":
        case "updateStatus": {
          const given = w.obj.metadata.uid;
          if (given && given !== uid) throw mismatch(w, given);
          return next(given ? w : { ...w, obj: { ...w.obj, metadata: { ...w.obj.metadata, uid } } });
        }
        case "delete":
          if (w.opts.preconditions?.uid) return next(w);
          return next({ ...w, opts: { ...w.opts, preconditions: { ...w.opts.preconditions, uid } } });
        case "patch": {
          if (w.opts.type === "apply") return next(w);
          const body = w.body;
          if (w.opts.type === "json" && Array.isArray(body)) {
            return next({ ...w, body: [{ op: "test", path: "/metadata/uid", value: uid }, ...body] });
          }
          if (!body || typeof body !== "object" || Array.isArray(body)) return next(w);
          const b = body as { metadata?: Record<string, unknown> };
          if (b.metadata?.uid !== undefined && b.metadata.uid !== uid) throw mismatch(w, b.metadata.uid);
          return next({ ...w, body: { ...b, metadata: { ...(b.metadata ?? {}), uid } } });
        }
      }
    },
  };
}

/** What {@link reconcileClient} builds the chain from. */
export interface ReconcileClientOptions {
  /** Where calls go (the manager's client: fenced by the leader's fence when leader election is on). */
  client: ControllerClient;
  /** The reconcile key the writes are recorded for. */
  key: string;
  /** Records the read-your-own-writes expectations. */
  tracker: OwnWritesRecorder;
  /** The fence the reconcile was admitted under (the leader's, or its shard bucket's); absent: none. */
  fence?: WriteFence;
  /** The reconciled object's uid, which writes to it are made conditional on; absent: no guard. */
  uidGuard?: UidGuard;
}

/**
 * The client a reconcile gets: `client` wrapped in own-writes tracking, then the fence, then the uid guard.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes, type KubeObject, type ResourceType } from "../types.ts";
 * import { reconcileClient } from "./write_path.ts";
 * const recorded: string[] = []; // the controller's OwnWritesTracker in production
 * const tracker = {
 *   recordWrite: (key: string, rt: ResourceType, o: KubeObject | undefined) =>
 *     recorded.push(`${key} wrote ${rt.plural}/${o?.metadata.name}`),
 *   recordDelete: (key: string, rt: ResourceType, objKey: string) => recorded.push(`${key} deleted ${rt.plural}/${objKey}`),
 *   cachedUid: () => undefined,
 * };
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const kubeClient = new KubeClient({ config: { server: cluster.url } });
 * const owner = await kubeClient.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "default" } });
 * const ctxClient = reconcileClient({
 *   client: kubeClient,
 *   key: "default/a",
 *   tracker,
 *   // fence: the leader's or the shard bucket's fence, when there is one
 *   uidGuard: { forType: CoreTypes.ConfigMap, namespace: "default", name: "a", uid: owner.metadata.uid! },
 * });
 * await ctxClient.patch(CoreTypes.ConfigMap, "a", { data: { k: "v" } }, { namespace: "default", type: "merge" });
 * assert.deepEqual(recorded, ["default/a wrote configmaps/a"]);
 * kubeClient.close();
 * await cluster.stop();
 * ```
 */
export function reconcileClient(o: ReconcileClientOptions): ControllerClient {
  const chain = [trackOwnWrites(o.tracker, o.key)];
  if (o.fence) chain.push(fenceWrites(o.fence));
  if (o.uidGuard) chain.push(guardUid(o.uidGuard));
  return new WriteChainClient(o.client, chain);
}
