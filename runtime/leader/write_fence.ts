/**
 * The write fence: Kubernetes has no fencing tokens (client-go's leaderelection says so), so a leader fences itself.
 * A write may leave the process only if, on the monotonic clock, `now < (send time of the last successful Lease
 * renew) + renewDeadline`. Others take over no earlier than a lease duration after they saw that renew, and they saw
 * it after it was sent, so a write that passes the fence reaches the server before anyone else leads — provided the
 * pause between the check and the socket write, plus transport delay, stays below `leaseDuration − renewDeadline`.
 *
 * Every place a write passes a fence is in this file:
 * - {@link fenceWrites}, the fence step of a reconcile's write chain (runtime/controller/write_path.ts): checks the
 *   fence as the write enters the client, binds every call (reads too) to {@link WriteFence.signal}, and hands the
 *   fence down as the call's `fence` option;
 * - {@link writeGate}, which KubeClient builds for each write from its own fence (`KubeClient.withWriteFence`, the
 *   leader's) and the call's: checked on every attempt after throttling and credentials, and again by the
 *   transport's pre-write hook (`Http1Request.beforeWrite`, runtime/http/http1_pool.ts) right before the bytes go to
 *   the socket, after any dial; its signal aborts the write when a fence's term ends.
 *
 * A reconcile is not started while the leader's fence is closed: the leader's admission (runtime/leader/
 * leader_admission.ts) checks it before each key.
 * @module
 */

import type { Clock } from "../clock.ts";
import type { WriteFence } from "../client/client_options.ts";
import { type CallInfo, NotLeaderError } from "../client/errors.ts";
import { withWriteOptions, writeCall, type WriteInterceptor } from "../client/write_interceptor.ts";

export type { WriteFence } from "../client/client_options.ts";

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

/**
 * The fence step of a write chain: each write is checked against `fence` as it enters (a refused write throws the
 * fence's error and reaches nothing), then goes on bound to the fence's signal and carrying it as the call's `fence`
 * option, so a KubeClient checks it again right before each attempt is sent ({@link writeGate}); reads are bound to
 * the signal too, so the fence's term ending aborts every call of the reconcile.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import { fenceWrites, LeaderFence } from "./write_fence.ts";
 * import { CoreTypes } from "../types.ts";
 * const fence = new LeaderFence({ clock: new VirtualClock(), renewDeadlineMs: 1_000, lease: "ns/l", identity: "a" });
 * const write = { verb: "delete", rt: CoreTypes.ConfigMap, name: "a", opts: { namespace: "ns" } } as const;
 * await assert.rejects(fenceWrites(fence).write(write, () => Promise.resolve()), /not the leader|leader/i);
 * ```
 */
export function fenceWrites(fence: WriteFence): WriteInterceptor {
  const bind = <O extends { signal?: AbortSignal }>(opts: O): O => ({
    ...opts,
    signal: opts.signal ? AbortSignal.any([opts.signal, fence.signal]) : fence.signal,
  });
  return {
    async write(w, next) {
      fence.check(writeCall(w));
      return await next(withWriteOptions(w, { signal: bind(w.opts).signal, fence }));
    },
    read: bind,
  };
}

/** What a fenced request passes in the client: {@link writeGate}. */
export interface WriteGate {
  /** The call's signal joined with every fence's: aborted when the caller aborts or a fence's term ends. */
  readonly signal: AbortSignal | undefined;
  /** Checks every fence (throws the first refusal); the client calls it per attempt and hands it to the transport. */
  readonly check: () => void;
}

/** Methods that only read: never fenced. */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The gate a request with `method` passes in KubeClient: undefined for reads and when no fence applies (the request
 * goes as it is); otherwise {@link WriteGate.check} checks each distinct fence for `call`. KubeClient calls it on every
 * attempt after throttling and credentials, and passes it as the transport's `beforeWrite`, which calls it again right
 * before the bytes are written — after a fresh connection's dial and TLS handshake.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import { LeaderFence, writeGate } from "./write_fence.ts";
 * const fence = new LeaderFence({ clock: new VirtualClock(), renewDeadlineMs: 1_000, lease: "ns/l", identity: "a" });
 * assert.equal(writeGate("GET", { verb: "get" }, [fence]), undefined); // reads pass no fence
 * const gate = writeGate("POST", { verb: "create" }, [fence, undefined, fence])!;
 * assert.ok(gate.signal?.aborted); // a closed fence: the write is refused
 * assert.throws(() => gate.check());
 * ```
 */
export function writeGate(
  method: string,
  call: CallInfo,
  fences: readonly (WriteFence | undefined)[],
  signal?: AbortSignal,
): WriteGate | undefined {
  if (READ_METHODS.has(method.toUpperCase())) return undefined;
  const active: WriteFence[] = [];
  for (const fence of fences) if (fence && !active.includes(fence)) active.push(fence);
  if (active.length === 0) return undefined;
  const signals = signal ? [signal, ...active.map((f) => f.signal)] : active.map((f) => f.signal);
  return {
    signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    check: () => {
      for (const fence of active) fence.check(call);
    },
  };
}
