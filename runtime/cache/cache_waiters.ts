/**
 * Read-your-own-writes waits on a cache: callers wait until the cache holds an object at (at least) a
 * resourceVersion, or has seen an object's uid deleted; the informer reports every change it stores and every
 * deletion it sees, and resolves everything as unseen when it stops.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { KubeObject } from "../types.ts";
import { objectKey } from "../types.ts";
import { compareStrings } from "../apimachinery/string_order.ts";

/** How long to wait, and a signal that gives up early. */
export interface WaitOptions {
  /** Gives up (resolves false) after this long; default 5 000 ms. */
  timeoutMs?: number;
  /** Gives up (resolves false) when aborted. */
  signal?: AbortSignal;
}

/**
 * Compares resourceVersions: a number when both are decimal (as kube-apiserver's are), else undefined (opaque RVs
 * can only be tested for equality).
 *
 * @example
 * ```ts
 * import { compareResourceVersions } from "./cache_waiters.ts";
 * compareResourceVersions("10", "9"); // > 0
 * compareResourceVersions("a", "b"); // undefined
 * ```
 */
export function compareResourceVersions(a: string, b: string): number | undefined {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return compareStrings(a, b);
}

/** Whether a cached resourceVersion has reached the wanted one (opaque RVs: equal). */
export function resourceVersionReached(current: string, wanted: string): boolean {
  const cmp = compareResourceVersions(current, wanted);
  return cmp === undefined ? current === wanted : cmp >= 0;
}

interface RvWaiter {
  rv: string;
  resolve(seen: boolean): void;
}

/** The pending waits of one informer, keyed by object key (resourceVersion waits) and by uid (deletion waits). */
export class CacheWaiters {
  readonly #clock: Clock;
  readonly #byKey = new Map<string, RvWaiter[]>();
  readonly #byUid = new Map<string, Array<(seen: boolean) => void>>();

  /** Waits time out on `clock`. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Resolves true when {@link observe} reports `key` at ≥ `rv`; false on timeout or abort. */
  waitForResourceVersion(key: string, rv: string, opts: WaitOptions): Promise<boolean> {
    return this.#wait(opts, (resolve) => {
      const waiter = { rv, resolve };
      return register(this.#byKey, key, waiter);
    });
  }

  /** Resolves true when {@link observe} reports `uid` deleted; false on timeout or abort. */
  waitForDeletion(uid: string, opts: WaitOptions): Promise<boolean> {
    return this.#wait(opts, (resolve) => register(this.#byUid, uid, resolve));
  }

  /** The cache stored `obj` (or, with `deleted`, saw it deleted): resolves the waits it satisfies. */
  observe(obj: KubeObject, deleted: boolean): void {
    if (this.#byKey.size > 0) {
      const waiters = this.#byKey.get(objectKey(obj));
      const rv = obj.metadata.resourceVersion;
      if (waiters && rv !== undefined) {
        for (const w of [...waiters]) if (resourceVersionReached(rv, w.rv)) w.resolve(true);
      }
    }
    if (deleted && this.#byUid.size > 0 && obj.metadata.uid) {
      const waiters = this.#byUid.get(obj.metadata.uid);
      if (waiters) { for (const w of [...waiters]) w(true); }
    }
  }

  /** The cache stopped: every pending wait resolves false. */
  abandonAll(): void {
    for (const waiters of this.#byKey.values()) for (const w of [...waiters]) w.resolve(false);
    this.#byKey.clear();
    for (const waiters of this.#byUid.values()) for (const w of [...waiters]) w(false);
    this.#byUid.clear();
  }

  #wait(opts: WaitOptions, add: (resolve: (seen: boolean) => void) => () => void): Promise<boolean> {
    if (opts.signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let finished = false;
      const finish = (seen: boolean) => {
        if (finished) return;
        finished = true;
        unregister();
        cancelTimer();
        opts.signal?.removeEventListener("abort", onAbort);
        resolve(seen);
      };
      const onAbort = () => finish(false);
      const unregister = add(finish);
      const cancelTimer = this.#clock.setTimer(opts.timeoutMs ?? 5_000, () => finish(false));
      opts.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function register<W>(map: Map<string, W[]>, key: string, waiter: W): () => void {
  const list = map.get(key) ?? [];
  list.push(waiter);
  map.set(key, list);
  return () => {
    const l = map.get(key);
    if (!l) return;
    const i = l.indexOf(waiter);
    if (i >= 0) l.splice(i, 1);
    if (l.length === 0) map.delete(key);
  };
}
