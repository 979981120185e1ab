/**
 * Time, injected. Every timer in runtime/, testing/, controllers/ and apiservice/ goes through a {@link Clock}, so
 * tests drive time with {@link VirtualClock} instead of sleeping (client-go's clock.Clock / FakeClock).
 * @module
 */

/** A source of time and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch (wall clock: may jump when the system clock is set). */
  now(): number;
  /**
   * Milliseconds on a monotonic clock with an arbitrary origin: never jumps, never goes back. Use it for deadlines and
   * elapsed time (leader election, the write fence); use {@link Clock.now} only for timestamps others read.
   */
  nowMonotonic(): number;
  /** Resolves after `ms` (or rejects with the signal's reason when aborted first). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fn` once after `ms`; returns a function that cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("aborted", "AbortError");
}

/**
 * Real time: Date.now (wall), performance.now (monotonic) and setTimeout. The only place in runtime/ that touches
 * them.
 */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  nowMonotonic(): number {
    return performance.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(id);
        reject(abortError(signal!));
      };
      const id = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, Math.min(ms, 2_147_483_647)));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  setTimer(ms: number, fn: () => void): () => void {
    // setTimeout overflows above 2^31-1 ms (~24.8 days): chain timers for longer waits.
    const MAX = 2_147_483_647;
    let id: ReturnType<typeof setTimeout>;
    let cancelled = false;
    const due = performance.now() + ms;
    const arm = () => {
      const left = due - performance.now();
      if (left > MAX) id = setTimeout(arm, MAX);
      else id = setTimeout(() => !cancelled && fn(), Math.max(0, left));
    };
    arm();
    return () => {
      cancelled = true;
      clearTimeout(id);
    };
  }
}

interface PendingTimer {
  due: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock that moves only when told to. Timers fire in due order during {@link VirtualClock.advance}, with the
 * microtask queue drained between them so awaiting code observes each step. Its monotonic time starts at 0 and moves
 * only with `advance`; {@link VirtualClock.stepWallClock} moves the wall clock alone (an NTP step, a wrong clock set
 * by hand), which leaves timers and monotonic time untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "./clock.ts";
 * const clock = new VirtualClock(0);
 * let fired = false;
 * clock.setTimer(5_000, () => fired = true);
 * await clock.advance(5_000);
 * assert.ok(fired);
 * ```
 */
export class VirtualClock implements Clock {
  /** Monotonic time; timers are due on it. */
  #now = 0;
  /** Wall clock minus monotonic time. */
  #wallOffset: number;
  #seq = 0;
  #timers: PendingTimer[] = [];

  /** A clock at `startMs` (epoch milliseconds) that moves only when advanced. */
  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.#wallOffset = startMs;
  }

  now(): number {
    return this.#now + this.#wallOffset;
  }

  nowMonotonic(): number {
    return this.#now;
  }

  /** Steps the wall clock by `deltaMs` (either way) without moving monotonic time or any timer. */
  stepWallClock(deltaMs: number): void {
    this.#wallOffset += deltaMs;
  }

  /** Number of timers not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { due: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    this.#timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
    return () => {
      const i = this.#timers.indexOf(timer);
      if (i >= 0) this.#timers.splice(i, 1);
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        cancel();
        reject(abortError(signal!));
      };
      const cancel = this.setTimer(ms, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await flushMicrotasks();
    while (this.#timers.length > 0 && this.#timers[0].due <= target) {
      const timer = this.#timers.shift()!;
      this.#now = Math.max(this.#now, timer.due);
      timer.fn();
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  /** Advances to the next pending timer (if any) and fires it; returns false when none is pending. */
  async advanceToNext(): Promise<boolean> {
    if (this.#timers.length === 0) return false;
    await this.advance(Math.max(0, this.#timers[0].due - this.#now));
    return true;
  }
}

/** Lets pending promise continuations run (a few macrotask-free turns). */
export async function flushMicrotasks(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}

/**
 * True when `p` settles (resolves or rejects) within `ms` of `clock`; false once that time passed first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settlesWithin, VirtualClock } from "./clock.ts";
 * const clock = new VirtualClock();
 * const never = settlesWithin(clock, new Promise(() => {}), 1_000);
 * await clock.advance(1_000);
 * assert.equal(await never, false);
 * assert.equal(await settlesWithin(clock, Promise.resolve(), 1_000), true);
 * ```
 */
export async function settlesWithin(clock: Clock, p: Promise<unknown>, ms: number): Promise<boolean> {
  let cancel = () => {};
  const timeout = new Promise<false>((resolve) => cancel = clock.setTimer(ms, () => resolve(false)));
  try {
    return await Promise.race([p.then(() => true, () => true), timeout]);
  } finally {
    cancel();
  }
}
