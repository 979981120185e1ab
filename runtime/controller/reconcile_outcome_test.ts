import assert from "node:assert/strict";
import { ApiError, failureStatus, NotLeaderError, TerminalError } from "../client/errors.ts";
import { done, requeueAfter } from "./reconcile.ts";
import { isPanic, type ReconcileEnd, type ReconcileOutcome, reconcileOutcome } from "./reconcile_outcome.ts";

const conflict = new ApiError(failureStatus(409, "Conflict", "the object has been modified"), {
  verb: "update",
  resource: "configmaps",
  namespace: "ns",
  name: "a",
});
const notLeader = new NotLeaderError({
  call: { verb: "update", resource: "configmaps", namespace: "ns", name: "a" },
  lease: "kube-system/kubeop",
  identity: "replica-1",
  sinceRenewMs: 12_000,
  renewDeadlineMs: 10_000,
});

const forget = { op: "forget" } as const;
const backoff = { op: "addRateLimited" } as const;
const none = { countError: false, countTerminal: false, countPanic: false };
const error = { countError: true, countTerminal: false, countPanic: false };

const table: { name: string; end: ReconcileEnd; aborted?: boolean; want: ReconcileOutcome }[] = [
  { name: "done()", end: { action: done() }, want: { kind: "success", queue: forget, result: "success", ...none } },
  {
    name: "an undefined action counts as done",
    end: { action: undefined },
    want: { kind: "success", queue: forget, result: "success", ...none },
  },
  {
    name: "requeueAfter(d) forgets the backoff and adds after d",
    end: { action: requeueAfter(5_000) },
    want: {
      kind: "requeueAfter",
      queue: { op: "forgetThenAddAfter", delayMs: 5_000 },
      result: "requeue_after",
      ...none,
    },
  },
  {
    name: "requeueAfter(0) requeues through the backoff",
    end: { action: requeueAfter(0) },
    want: { kind: "requeue", queue: backoff, result: "requeue", ...none },
  },
  {
    name: "a negative delay is clamped to 0 by requeueAfter",
    end: { action: requeueAfter(-1) },
    want: { kind: "requeue", queue: backoff, result: "requeue", ...none },
  },
  {
    name: "a TerminalError is forgotten, counted terminal and warned as ReconcileFailed",
    end: { error: new TerminalError("bad spec") },
    want: {
      kind: "terminal",
      queue: forget,
      result: "error",
      ...error,
      countTerminal: true,
      warningReason: "ReconcileFailed",
    },
  },
  {
    name: "a NotLeaderError is forgotten without a Warning",
    end: { error: notLeader },
    want: { kind: "notLeader", queue: forget, result: "error", ...error },
  },
  {
    name: "a NotLeaderError during shutdown is still not retried",
    end: { error: notLeader },
    aborted: true,
    want: { kind: "notLeader", queue: forget, result: "error", ...error },
  },
  {
    name: "a retriable error retries in backoff and warns ReconcileError",
    end: { error: new Error("connection reset") },
    want: { kind: "failed", queue: backoff, result: "error", ...error, warningReason: "ReconcileError" },
  },
  {
    name: "a conflict is an ordinary retry",
    end: { error: conflict },
    want: { kind: "failed", queue: backoff, result: "error", ...error, warningReason: "ReconcileError" },
  },
  {
    name: "an error while shutting down retries without a Warning",
    end: { error: conflict },
    aborted: true,
    want: { kind: "interrupted", queue: backoff, result: "error", ...error },
  },
  {
    name: "a TypeError is a panic: retried, counted, no Warning",
    end: { error: new TypeError("x is undefined") },
    want: { kind: "panic", queue: backoff, result: "error", ...error, countPanic: true },
  },
  {
    name: "a panic during shutdown is still a panic",
    end: { error: new RangeError("too deep") },
    aborted: true,
    want: { kind: "panic", queue: backoff, result: "error", ...error, countPanic: true },
  },
  {
    name: "a non-Error throw is a panic",
    end: { error: "oops" },
    want: { kind: "panic", queue: backoff, result: "error", ...error, countPanic: true },
  },
];

for (const { name, end, aborted, want } of table) {
  Deno.test(`reconcileOutcome: ${name}`, () => {
    assert.deepEqual(reconcileOutcome(end, { aborted: aborted ?? false }), want);
  });
}

Deno.test("isPanic: programming errors and non-Errors are panics, failed operations are not", () => {
  for (const err of [new TypeError(), new ReferenceError(), new RangeError(), new SyntaxError(), 42, undefined]) {
    assert.equal(isPanic(err), true, String(err));
  }
  for (const err of [new Error("x"), conflict, notLeader, new TerminalError("t")]) assert.equal(isPanic(err), false);
});
