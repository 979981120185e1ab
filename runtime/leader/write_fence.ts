/**
 * The write fence: Kubernetes has no fencing tokens (client-go's leaderelection says so), so a leader fences itself.
 * A write may leave the process only if, on the monotonic clock, `now < (send time of the last successful Lease
 * renew) + renewDeadline`. Others take over no earlier than a lease duration after they saw that renew, and they saw
 * it after it was sent, so a write that passes the fence reaches the server before anyone else leads — provided the
 * pause between the check and the socket write, plus transport delay, stays below `leaseDuration − renewDeadline`.
 *
 * {@link KubeClient.withWriteFence} checks the fence right before each non-GET request goes out (every retry too);
 * the controller checks it before starting a reconcile and binds the reconcile's client to {@link WriteFence.signal}.
 * @module
 */

import type { Clock } from "../clock.ts";
import { type CallInfo, NotLeaderError } from "../client/errors.ts";

/** What a fenced client and a controller need from the fence. */
export interface WriteFence {
  /** Throws {@link NotLeaderError} (naming `call`) unless a write may leave the process now. */
  check(call: CallInfo): void;
  /** Aborted once writes are refused (leadership ended or the renew deadline passed); a new term gets a new signal. */
  readonly signal: AbortSignal;
}

/** Construction options of {@link LeaderFence}. */
export interface LeaderFenceOptions {
  /** Its monotonic time is the only time the fence reads. */
  clock: Clock;
  /** How long after a renew was sent writes stay allowed. */
  renewDeadlineMs: number;
  /** The Lease, for errors. */
  lease: string;
  /** This replica's identity, for errors. */
  identity: string;
}

/**
 * The fence a {@link LeaderElector} keeps: opened when it acquires the Lease, moved on by every successful renew
 * (its send time), closed when leadership ends — or by itself, the first time it is checked after the deadline.
 *
 * @example
 * ```ts
 * import { VirtualClock } from "../clock.ts";
 * import { LeaderFence } from "./write_fence.ts";
 * const clock = new VirtualClock();
 * const fence = new LeaderFence({ clock, renewDeadlineMs: 10_000, lease: "default/kubeop", identity: "a" });
 * fence.open(clock.nowMonotonic()); // the winning Lease write was sent now
 * await clock.advance(9_999);
 * fence.check({ verb: "create", resource: "pods" }); // allowed
 * await clock.advance(1);
 * console.assert(!fence.isOpen() && fence.signal.aborted);
 * ```
 */
export class LeaderFence implements WriteFence {
  readonly #opts: LeaderFenceOptions;
  #term = new AbortController();
  #renewSentAt: number | undefined;

  /** A closed fence (not leading). */
  constructor(opts: LeaderFenceOptions) {
    this.#opts = opts;
    this.#term.abort(new Error("not leading"));
  }

  /** Aborted once writes are refused; each term (open → close) has its own. */
  get signal(): AbortSignal {
    return this.#term.signal;
  }

  /** A new term: the Lease was acquired by a write sent at `sentAtMonotonic`. */
  open(sentAtMonotonic: number): void {
    if (!this.#term.signal.aborted) this.#term.abort(new Error("leadership term replaced"));
    this.#term = new AbortController();
    this.#renewSentAt = sentAtMonotonic;
  }

  /** A renew sent at `sentAtMonotonic` succeeded. Ignored once the term closed: an expired fence stays closed. */
  renewed(sentAtMonotonic: number): void {
    if (this.#term.signal.aborted) return;
    this.#renewSentAt = Math.max(this.#renewSentAt ?? sentAtMonotonic, sentAtMonotonic);
  }

  /** Ends the term (leadership lost or released): later checks fail, in-flight calls bound to the signal abort. */
  close(reason: unknown): void {
    if (!this.#term.signal.aborted) this.#term.abort(reason);
  }

  /** Whether a write may leave now; closes the term the first time the deadline is found passed. */
  isOpen(): boolean {
    return this.#refusal({ verb: "write" }) === undefined;
  }

  /** Throws {@link NotLeaderError} unless a write may leave now. */
  check(call: CallInfo): void {
    const refusal = this.#refusal(call);
    if (refusal) throw refusal;
  }

  #refusal(call: CallInfo): NotLeaderError | undefined {
    const { clock, renewDeadlineMs, lease, identity } = this.#opts;
    const since = this.#renewSentAt === undefined ? undefined : clock.nowMonotonic() - this.#renewSentAt;
    if (!this.#term.signal.aborted && since !== undefined && since < renewDeadlineMs) return undefined;
    const error = new NotLeaderError({ call, lease, identity, sinceRenewMs: since, renewDeadlineMs });
    this.close(error);
    return error;
  }
}
