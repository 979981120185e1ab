/**
 * One group of the Manager's runnables (controller-runtime's `runnableGroup`): started together, ready together,
 * stopped together. The Manager keeps four — servers, caches, every-replica, leader-gated — and walks them in order
 * on start and in reverse on shutdown.
 * @module
 */

import { type Runnable, startRunnable } from "./runnable.ts";

/** Construction options of {@link RunnableGroup}. */
export interface RunnableGroupOptions {
  /** Names the group in errors. */
  name: string;
  /** Called once when a member's `start` rejects (the Manager stops with that error). */
  onError(runnable: Runnable, error: unknown): void;
}

/**
 * Runnables started with one shared stop signal.
 *
 * @example
 * ```ts
 * import { RunnableGroup } from "./runnable_group.ts";
 * const group = new RunnableGroup({ name: "servers", onError: (r, e) => console.error(r.name, e) });
 * group.add({
 *   name: "idle",
 *   start: (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
 * });
 * await group.start(new AbortController().signal); // every member started and ready
 * group.stop();
 * await group.done();
 * ```
 */
export class RunnableGroup {
  /** Names the group in errors. */
  readonly name: string;
  readonly #opts: RunnableGroupOptions;
  readonly #members: Runnable[] = [];
  readonly #stop = new AbortController();
  readonly #runs: Promise<void>[] = [];

  /** An empty group. */
  constructor(opts: RunnableGroupOptions) {
    this.name = opts.name;
    this.#opts = opts;
  }

  /** The members, in the order added. */
  get members(): readonly Runnable[] {
    return this.#members;
  }

  /** True once {@link RunnableGroup.stop} was called. */
  get stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Adds a member; it starts with the group. */
  add(runnable: Runnable): this {
    this.#members.push(runnable);
    return this;
  }

  /**
   * Starts every member (no-op once {@link RunnableGroup.stop} was called) and resolves when all are ready. Rejects
   * with the first readiness failure. `readySignal` aborts the readiness waits.
   */
  async start(readySignal: AbortSignal): Promise<void> {
    if (this.#stop.signal.aborted) return;
    const ready = this.#members.map((runnable) => {
      const run = startRunnable(runnable, this.#stop.signal, readySignal);
      this.#runs.push(run.done.then(() => {}, (error) => this.#opts.onError(runnable, error)));
      return run.ready;
    });
    await Promise.all(ready);
  }

  /** Aborts the members' signal with `reason` (idempotent). */
  stop(reason?: unknown): void {
    this.#stop.abort(reason);
  }

  /** Resolves when every started member's `start` settled (rejections were reported to `onError`). */
  async done(): Promise<void> {
    await Promise.all(this.#runs);
  }
}
