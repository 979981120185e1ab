/** Stand-ins for the Manager's tests: caches that sync on demand, a controller whose reconcile the test holds open. */
import { KubeClient } from "../../runtime/client/client.ts";
import type { Clock, VirtualClock } from "../../runtime/clock.ts";
import type { InformerLike } from "../../runtime/cache/cache.ts";
import { StoreWriter } from "../../runtime/cache/store.ts";
import { CacheSyncTimeoutError } from "../../runtime/cache/informers.ts";
import type { LeaseLock } from "../../runtime/leader/lease_lock.ts";
import type { ManagerInformers, ManagerOptions, Runnable } from "../../runtime/manager/manager.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import type { WatchHealth, WatchScope } from "../../runtime/watch/watch_runner.ts";

/** Shared caches that sync when the test says so. */
export class FakeInformers implements ManagerInformers {
  synced = false;
  failures = 0;
  readonly requested: string[] = [];
  #waiters: (() => void)[] = [];
  constructor(readonly clock: Clock) {}

  get<T extends KubeObject>(rt: ResourceType, opts?: WatchScope): InformerLike<T> {
    this.requested.push(`${rt.plural}${opts?.namespace ? ` ns=${opts.namespace}` : ""}`);
    return {
      resource: rt,
      store: new StoreWriter<T>().reader,
      addHandler: () => () => {},
      hasSynced: () => this.synced,
      waitForSync: () => Promise.resolve(),
    };
  }
  start(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  }
  markSynced(): void {
    this.synced = true;
    this.#waiters.splice(0).forEach((w) => w());
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const cancel = this.clock.setTimer(timeoutMs, () => reject(new CacheSyncTimeoutError(["pods"], timeoutMs)));
      signal?.addEventListener("abort", () => {
        cancel();
        reject(signal.reason);
      }, { once: true });
      this.#waiters.push(() => {
        cancel();
        resolve();
      });
    });
  }
  health(): WatchHealth[] {
    return [{ resource: "pods", state: "Watching", synced: this.synced, consecutiveFailures: this.failures }];
  }
}

/** A controller whose one reconcile is held open until the test releases it. */
export class FakeController implements Runnable {
  starts = 0;
  running = false;
  signal?: AbortSignal;
  #release: () => void = () => {};
  readonly #inflight: Promise<void>;
  constructor(readonly name: string, opts: { reconcileForever?: boolean; failStart?: boolean } = {}) {
    this.#inflight = opts.reconcileForever ? new Promise(() => {}) : new Promise((r) => this.#release = r);
    if (opts.failStart) this.start = () => Promise.reject(new Error(`${name}: cannot start`));
  }
  bind(): void {}
  watchedResources() {
    return [{ rt: CoreTypes.Pod as ResourceType }];
  }
  finishReconcile(): void {
    this.#release();
  }
  async start(signal: AbortSignal): Promise<void> {
    this.starts++;
    this.running = true;
    this.signal = signal;
    await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
    await this.#inflight; // drain: the in-flight reconcile finishes before start() resolves
    this.running = false;
  }
}

/** Never called: these tests replace the caches, the recorder and the Lease lock (nothing listens on port 1). */
export const dummyClient = new KubeClient({ config: { server: "http://127.0.0.1:1" } });
export const quietRecorder = { event() {}, close: () => Promise.resolve() };

export function managerOptions(
  clock: Clock,
  informers: ManagerInformers,
  extra: Partial<ManagerOptions> = {},
): ManagerOptions {
  return { client: dummyClient, clock, informers, recorder: quietRecorder, ...extra };
}

export function electionOptions(identity: string, lock: LeaseLock) {
  return { id: "kubeop", namespace: "default", identity, lock, random: () => 0.5 };
}

export async function advanceUntil(clock: VirtualClock, cond: () => boolean, limitMs: number): Promise<number> {
  const start = clock.now();
  while (!cond()) {
    if (clock.now() - start > limitMs) throw new Error(`not reached within ${limitMs} virtual ms`);
    await clock.advance(50);
  }
  return clock.now() - start;
}
