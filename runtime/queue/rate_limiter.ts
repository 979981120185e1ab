/**
 * Rate limiters for the work queue (client-go's workqueue.TypedRateLimiter): each answers "how long should this key
 * wait before its next try", and they compose with {@link maxOf}.
 * @module
 */

import type { Clock } from "../clock.ts";

/** Decides the delay before a key is retried. */
export interface RateLimiter {
  /** Milliseconds to wait before `key` may be processed again; records one more failure for it. */
  when(key: string): number;
  /** Stops tracking `key` (call after it succeeded). */
  forget(key: string): void;
  /** How many times `key` has been rate-limited since it was last forgotten. */
  numRequeues(key: string): number;
}

/** Options for {@link ExponentialBackoffRateLimiter}. */
export interface ExponentialBackoffOptions {
  /** Delay after the first failure. Default 5 ms. */
  baseDelayMs?: number;
  /** Upper bound. Default 1 000 000 ms (1000 s, as controller-runtime). */
  maxDelayMs?: number;
}

/**
 * Per-key exponential backoff: `baseDelayMs · 2^failures`, capped at `maxDelayMs`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExponentialBackoffRateLimiter } from "./rate_limiter.ts";
 * const rl = new ExponentialBackoffRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000 });
 * assert.ok(rl.when("a") === 5 && rl.when("a") === 10 && rl.when("a") === 20);
 * rl.forget("a");
 * assert.ok(rl.when("a") === 5);
 * ```
 */
export class ExponentialBackoffRateLimiter implements RateLimiter {
  /** Delay after the first failure. */
  readonly baseDelayMs: number;
  /** Upper bound of any delay. */
  readonly maxDelayMs: number;
  #failures = new Map<string, number>();

  /** Defaults: 5 ms base, 1000 s cap. */
  constructor(opts: ExponentialBackoffOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 1_000_000;
  }

  when(key: string): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    // 2^n overflows to Infinity long after the cap; min() keeps the answer finite.
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(n, 1023));
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** Options for {@link TokenBucketRateLimiter}. */
export interface TokenBucketOptions {
  /** Sustained rate, tokens per second. */
  perSecond: number;
  /** Bucket size (how many may pass at once). */
  burst: number;
  /** Time source. */
  clock: Clock;
}

/**
 * One bucket shared by all keys (client-go's BucketRateLimiter over golang.org/x/time/rate): each call reserves a
 * token and returns how long until it becomes available.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TokenBucketRateLimiter } from "./rate_limiter.ts";
 * import { VirtualClock } from "../clock.ts";
 * const rl = new TokenBucketRateLimiter({ perSecond: 10, burst: 1, clock: new VirtualClock(0) });
 * assert.ok(rl.when("a") === 0 && rl.when("b") === 100);
 * ```
 */
export class TokenBucketRateLimiter implements RateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  /** A full bucket. @throws RangeError for a non-positive rate or a burst below 1. */
  constructor(opts: TokenBucketOptions) {
    if (!(opts.perSecond > 0) || !(opts.burst >= 1)) {
      throw new RangeError(`token bucket needs perSecond > 0 and burst >= 1, got ${opts.perSecond}/${opts.burst}`);
    }
    this.#perMs = opts.perSecond / 1000;
    this.#burst = opts.burst;
    this.#clock = opts.clock;
    this.#tokens = opts.burst;
    this.#last = opts.clock.now();
  }

  when(_key: string): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + Math.max(0, now - this.#last) * this.#perMs);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil(-this.#tokens / this.#perMs);
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/**
 * The largest delay any of `limiters` asks for (client-go's MaxOfRateLimiter). Every limiter sees every call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExponentialBackoffRateLimiter, maxOf, TokenBucketRateLimiter } from "./rate_limiter.ts";
 * import { VirtualClock } from "../clock.ts";
 * const rl = maxOf(
 *   new ExponentialBackoffRateLimiter(),
 *   new TokenBucketRateLimiter({ perSecond: 10, burst: 100, clock: new VirtualClock(0) }),
 * );
 * assert.ok(rl.when("a") === 5);
 * ```
 */
export function maxOf(...limiters: RateLimiter[]): RateLimiter {
  return {
    when: (key) => limiters.reduce((max, l) => Math.max(max, l.when(key)), 0),
    forget: (key) => limiters.forEach((l) => l.forget(key)),
    numRequeues: (key) => limiters.reduce((max, l) => Math.max(max, l.numRequeues(key)), 0),
  };
}

/** controller-runtime's default: per-key exponential (5 ms … 1000 s) combined with an overall 10/s, burst 100 bucket. */
export function defaultControllerRateLimiter(clock: Clock, opts: ExponentialBackoffOptions = {}): RateLimiter {
  return maxOf(
    new ExponentialBackoffRateLimiter(opts),
    new TokenBucketRateLimiter({ perSecond: 10, burst: 100, clock }),
  );
}
