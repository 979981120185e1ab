/**
 * What a controller does after one reconcile, decided without side effects: the reconcile's {@link Action} or thrown
 * error becomes a queue operation, the `reconcile_total` result label, which counters to bump and whether to raise a
 * Warning Event (controller-runtime's `reconcileHandler` result switch, as a table). runtime/controller/controller_workers.ts
 * applies the decision.
 * @module
 */

import { NotLeaderError, TerminalError } from "../client/errors.ts";
import type { ReconcileResult } from "../observe/metrics.ts";
import type { Action } from "./reconcile.ts";

/** What happens to the key in the work queue. */
export type QueueOperation =
  /** Reset the key's backoff; it waits for the next change. */
  | { op: "forget" }
  /** Add the key again through its per-key backoff (its failure count grows). */
  | { op: "addRateLimited" }
  /** Reset the key's backoff, then add it again after `delayMs`. */
  | { op: "forgetThenAddAfter"; delayMs: number };

/**
 * Which case the reconcile ended in: `success` (done), `requeue` (requeueAfter(0)), `requeueAfter` (a delay),
 * `notLeader` (a {@link NotLeaderError}), `terminal` (a {@link TerminalError}), `panic` (an unexpected exception),
 * `interrupted` (failed while the controller shuts down), `failed` (any other error, e.g. a conflict: retried).
 */
export type OutcomeKind =
  | "success"
  | "requeue"
  | "requeueAfter"
  | "notLeader"
  | "terminal"
  | "panic"
  | "interrupted"
  | "failed";

/** The decision for one finished reconcile. */
export interface ReconcileOutcome {
  /** Which case it was (decides the log line). */
  kind: OutcomeKind;
  /** What to do with the key. */
  queue: QueueOperation;
  /** The `result` label of `controller_runtime_reconcile_total`. */
  result: ReconcileResult;
  /** Count in `reconcile_errors_total`. */
  countError: boolean;
  /** Count in `terminal_reconcile_errors_total`. */
  countTerminal: boolean;
  /** Count in `reconcile_panics_total`. */
  countPanic: boolean;
  /** Reason of a Warning Event to raise on the For object, when one is due. */
  warningReason?: "ReconcileFailed" | "ReconcileError";
}

/** How the reconcile ended: it returned an action (possibly undefined from sloppy code) or threw. */
export type ReconcileEnd = { action: Action | undefined } | { error: unknown };

/** An unexpected exception: a bug in the reconcile rather than a failed operation. */
export function isPanic(err: unknown): boolean {
  return !(err instanceof Error) || err instanceof TypeError || err instanceof ReferenceError ||
    err instanceof RangeError || err instanceof SyntaxError;
}

const NO_COUNTS = { countError: false, countTerminal: false, countPanic: false };
const ERROR_COUNTS = { countError: true, countTerminal: false, countPanic: false };

/**
 * Decides what follows a reconcile. `aborted` says the controller was shutting down when it ended.
 *
 * @example
 * ```ts
 * import { reconcileOutcome } from "./reconcile_outcome.ts";
 * import { requeueAfter } from "./reconcile.ts";
 * const o = reconcileOutcome({ action: requeueAfter(5_000) }, { aborted: false });
 * console.assert(o.result === "requeue_after" && o.queue.op === "forgetThenAddAfter");
 * ```
 */
export function reconcileOutcome(end: ReconcileEnd, opts: { aborted: boolean }): ReconcileOutcome {
  if ("action" in end) {
    const after = end.action?.requeueAfterMs;
    if (after === 0) {
      // controller-runtime's `Requeue: true`: again soon, but through the backoff so it cannot spin.
      return { kind: "requeue", queue: { op: "addRateLimited" }, result: "requeue", ...NO_COUNTS };
    }
    if (after !== undefined && after > 0) {
      return {
        kind: "requeueAfter",
        queue: { op: "forgetThenAddAfter", delayMs: after },
        result: "requeue_after",
        ...NO_COUNTS,
      };
    }
    return { kind: "success", queue: { op: "forget" }, result: "success", ...NO_COUNTS };
  }
  const err = end.error;
  if (err instanceof NotLeaderError) {
    // Not retriable on this replica: its writes are refused until it leads again, and then it re-lists.
    return { kind: "notLeader", queue: { op: "forget" }, result: "error", ...ERROR_COUNTS };
  }
  if (err instanceof TerminalError) {
    return {
      kind: "terminal",
      queue: { op: "forget" },
      result: "error",
      ...ERROR_COUNTS,
      countTerminal: true,
      warningReason: "ReconcileFailed",
    };
  }
  const retry = { queue: { op: "addRateLimited" } as const, result: "error" as const, ...ERROR_COUNTS };
  if (isPanic(err)) return { kind: "panic", ...retry, countPanic: true };
  if (opts.aborted) return { kind: "interrupted", ...retry };
  return { kind: "failed", ...retry, warningReason: "ReconcileError" };
}
