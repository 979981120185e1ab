/**
 * Read-your-own-writes for controllers: after a reconcile writes an object and the server answers with
 * resourceVersion N, the next reconcile of the same key waits (bounded) until the informer cache shows that object at
 * RV ≥ N — or, for a delete, until that uid is gone or terminating — so a reconcile never acts on a cache older than
 * its own last write (a long-standing controller-runtime complaint).
 *
 * Resource versions are opaque in general; they are compared only when both are decimal integers. A different uid at
 * the same key means the object was replaced, which also satisfies the wait.
 * @module
 */

import { resourceId } from "../apimachinery/names.ts";
import type { Store } from "../cache/cache.ts";
import type { Clock } from "../clock.ts";
import { type KubeObject, objectKey, type ResourceType } from "../types.ts";

/** One write whose effect the cache must show before the next reconcile of the writer's key. */
export interface Expectation {
  /** {@link resourceId} of the written resource. */
  resource: string;
  /** Cache key of the written object. */
  objectKey: string;
  /** The written object's uid (a different uid in the cache means it was replaced). */
  uid?: string;
  /** Decimal RV the write returned (writes only). */
  resourceVersion?: bigint;
  /** True for deletes: satisfied when the object (that uid) is gone or terminating. */
  deleted: boolean;
}

/** Identity of a resource collection for matching writes to informers: `plural.group` (names.ts). */
export { resourceId };

const DECIMAL = /^[0-9]{1,30}$/;

/** Whether the cached object shows the expected write. */
export function isSatisfied(exp: Expectation, cached: KubeObject | undefined): boolean {
  if (exp.deleted) {
    return cached === undefined || (exp.uid !== undefined && cached.metadata.uid !== exp.uid) ||
      cached.metadata.deletionTimestamp !== undefined;
  }
  if (cached === undefined) return false;
  if (exp.uid && cached.metadata.uid && cached.metadata.uid !== exp.uid) return true;
  const rv = cached.metadata.resourceVersion;
  if (exp.resourceVersion === undefined || rv === undefined || !DECIMAL.test(rv)) return true;
  return BigInt(rv) >= exp.resourceVersion;
}

/** Builds the expectation for a write the server answered with `written`; undefined when RVs are not comparable. */
export function writeExpectation(rt: ResourceType, written: KubeObject | undefined): Expectation | undefined {
  const rv = written?.metadata?.resourceVersion;
  if (!written?.metadata?.name || rv === undefined || !DECIMAL.test(rv)) return undefined;
  return {
    resource: resourceId(rt),
    objectKey: objectKey(written),
    uid: written.metadata.uid,
    resourceVersion: BigInt(rv),
    deleted: false,
  };
}

/** Options for {@link OwnWritesTracker}. */
export interface OwnWritesOptions {
  /** Drives the timeout. */
  clock: Clock;
  /** Longest wait before a reconcile proceeds anyway. Default 5000 ms. */
  timeoutMs?: number;
  /** The store for a resource id, when this controller has an informer for it (others are not tracked). */
  storeFor(resource: string): Pick<Store, "get"> | undefined;
  /** Called when a wait times out. */
  onTimeout?(key: string): void;
  /** Called for every tracked write (not deletes): the informers measure their lag behind it. */
  onWrite?(exp: Expectation): void;
}

interface Waiter {
  key: string;
  pending: Expectation[];
  finish(): void;
}

/**
 * Remembers the writes each reconcile key made and lets the next reconcile of that key wait for the cache.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OwnWritesTracker } from "./own_writes.ts";
 * import { VirtualClock } from "../clock.ts";
 * const store = new Map([["ns/a", { metadata: { name: "a", namespace: "ns", resourceVersion: "5" } }]]);
 * const rt = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true };
 * const tracker = new OwnWritesTracker({ clock: new VirtualClock(0), storeFor: () => store });
 * tracker.recordWrite("ns/a", rt, { metadata: { name: "a", namespace: "ns", resourceVersion: "7" } });
 * const waited = tracker.wait("ns/a");
 * store.set("ns/a", { metadata: { name: "a", namespace: "ns", resourceVersion: "7" } });
 * tracker.notify();
 * assert.ok((await waited) === "seen");
 * ```
 */
export class OwnWritesTracker {
  /** Longest wait before a reconcile proceeds anyway. */
  readonly timeoutMs: number;
  readonly #opts: OwnWritesOptions;
  #byKey = new Map<string, Expectation[]>();
  #waiters = new Set<Waiter>();

  /** Nothing tracked yet. */
  constructor(opts: OwnWritesOptions) {
    this.#opts = opts;
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  /** Number of reconcile keys with unconfirmed writes. */
  get trackedKeys(): number {
    return this.#byKey.size;
  }

  /** Adds an expectation for `key`'s next reconcile. */
  expect(key: string, exp: Expectation | undefined): void {
    if (!exp || !this.#opts.storeFor(exp.resource)) return;
    if (!exp.deleted) this.#opts.onWrite?.(exp);
    const list = this.#byKey.get(key) ?? [];
    // A later write of the same object supersedes the earlier one.
    const i = list.findIndex((e) => e.resource === exp.resource && e.objectKey === exp.objectKey);
    if (i >= 0) list[i] = exp;
    else list.push(exp);
    this.#byKey.set(key, list);
  }

  /** Records that reconciling `key` wrote `written` (the server's answer) of type `rt`. */
  recordWrite(key: string, rt: ResourceType, written: KubeObject | undefined): void {
    this.expect(key, writeExpectation(rt, written));
  }

  /** Records that reconciling `key` deleted `objKey` of type `rt` (uid when known). */
  recordDelete(key: string, rt: ResourceType, objKey: string, uid?: string): void {
    this.expect(key, { resource: resourceId(rt), objectKey: objKey, uid, deleted: true });
  }

  /**
   * Waits until every write recorded for `key` shows in the cache, the timeout passes, or `signal` aborts; then
   * forgets them. Resolves "none" when nothing was pending.
   */
  wait(key: string, signal?: AbortSignal): Promise<"none" | "seen" | "timeout" | "aborted"> {
    const list = this.#byKey.get(key);
    if (!list) return Promise.resolve("none");
    this.#byKey.delete(key);
    const pending = this.#unsatisfied(list);
    if (pending.length === 0) return Promise.resolve("seen");
    return new Promise((resolve) => {
      let cancelTimer = () => {};
      const onAbort = () => end("aborted");
      const waiter: Waiter = { key, pending, finish: () => end("seen") };
      const end = (how: "seen" | "timeout" | "aborted") => {
        if (!this.#waiters.delete(waiter)) return;
        cancelTimer();
        signal?.removeEventListener("abort", onAbort);
        if (how === "timeout") this.#opts.onTimeout?.(key);
        resolve(how);
      };
      this.#waiters.add(waiter);
      cancelTimer = this.#opts.clock.setTimer(this.timeoutMs, () => end("timeout"));
      if (signal?.aborted) return end("aborted");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Re-checks waiting reconciles; call from informer handlers after the store changed. `deletedUid` marks a DELETED
   * event for that uid (whatever was expected of it, it is settled).
   */
  notify(deletedUid?: string): void {
    for (const waiter of [...this.#waiters]) {
      if (deletedUid) waiter.pending = waiter.pending.filter((e) => e.uid !== deletedUid);
      waiter.pending = this.#unsatisfied(waiter.pending);
      if (waiter.pending.length === 0) waiter.finish();
    }
  }

  /** The uid the cache holds for `objKey` of `rt`, if this controller caches that resource. */
  cachedUid(rt: ResourceType, objKey: string): string | undefined {
    return this.#opts.storeFor(resourceId(rt))?.get(objKey)?.metadata.uid;
  }

  /** Forgets everything and releases waiters (shutdown). */
  clear(): void {
    this.#byKey.clear();
    for (const waiter of [...this.#waiters]) waiter.finish();
  }

  #unsatisfied(list: Expectation[]): Expectation[] {
    return list.filter((e) => {
      const store = this.#opts.storeFor(e.resource);
      return store !== undefined && !isSatisfied(e, store.get(e.objectKey));
    });
  }
}
