/**
 * The generic path for a child write the API server refuses for good. A controller that creates, updates or
 * deletes a child (a Pod, a Secret) and gets an answer that retrying the same request cannot change — 400
 * BadRequest, 413 RequestEntityTooLarge, 422 Invalid (a derived name over 253 characters, an invalid image
 * reference, a field made immutable) — must not retry it forever while its status says all is well. Instead:
 *
 * 1. {@link childWriteRejection} recognises the error ({@link isUnfixableWriteError}) and describes it (which write,
 *    which child, the server's reason and message);
 * 2. {@link rejectChildWrite} records a Warning Event on the owner, lets the controller write its Degraded
 *    condition (reason {@link CHILD_WRITE_REJECTED} or the controller's own, message from step 1), and returns a
 *    TerminalError to throw: the controller does not retry;
 * 3. {@link stalledCondition} tells the next reconcile that the owner is stalled at its current generation, so
 *    events that do not change the spec (our own status write, a label) do not re-send the refused write; a
 *    spec change (a new `metadata.generation`) clears it.
 *
 * Not terminal, on purpose: 403 Forbidden (RBAC an administrator can grant, an admission webhook that may change
 * its mind, a namespace being terminated), 404 (a namespace not there yet), 409 (AlreadyExists and Conflict are
 * handled by the caller), 429 and 5xx (retried with backoff), and transport errors.
 * @module
 */
import type { EventInput } from "../observe/events.ts";
import { ApiError, TerminalError } from "../client/errors.ts";
import type { Condition, KubeObject } from "../types.ts";
import { nestedField } from "../unstructured.ts";

/** The Degraded reason of an owner whose child write was refused for good. */
export const CHILD_WRITE_REJECTED = "ChildWriteRejected";

/** HTTP codes whose refusal retrying cannot change (the request itself is wrong). */
const UNFIXABLE_CODES = new Set([400, 413, 422]);

/**
 * True when `err` is an API refusal that sending the same write again cannot fix: 400, 413 or 422.
 *
 * @example
 * ```ts
 * import { isUnfixableWriteError } from "./child_write_failure.ts";
 * import { ApiError, failureStatus } from "../client/errors.ts";
 * const invalid = new ApiError(failureStatus(422, "Invalid", "metadata.name: Too long"), { verb: "create" });
 * console.assert(isUnfixableWriteError(invalid));
 * console.assert(!isUnfixableWriteError(new ApiError(failureStatus(403, "Forbidden", "rbac"), { verb: "create" })));
 * ```
 */
export function isUnfixableWriteError(err: unknown): err is ApiError {
  return err instanceof ApiError && UNFIXABLE_CODES.has(err.code);
}

/** Which child write failed. */
export interface ChildWrite {
  /** create, update, patch or delete. */
  verb: string;
  /** The child's kind, e.g. Pod. */
  kind: string;
  /** The child's namespace. */
  namespace?: string;
  /** The child's name. */
  name: string;
}

/** A child write refused for good: what the owner's Degraded condition and Warning Event say. */
export interface ChildWriteRejection {
  /** The condition and Event reason ({@link CHILD_WRITE_REJECTED} unless the caller chose another). */
  reason: string;
  /** `create Pod default/x-pod refused: 422 Invalid: metadata.name: Invalid value: ...`. */
  message: string;
  /** The server's answer. */
  error: ApiError;
  /** The refused write. */
  write: ChildWrite;
}

/**
 * Describes `err` when it refuses `write` for good ({@link isUnfixableWriteError}); undefined otherwise (the caller
 * rethrows it to retry with backoff).
 *
 * @example
 * ```ts
 * import { childWriteRejection } from "./child_write_failure.ts";
 * import { ApiError, failureStatus } from "../client/errors.ts";
 * const err = new ApiError(failureStatus(422, "Invalid", "metadata.name: Too long"), { verb: "create" });
 * const r = childWriteRejection(err, { verb: "create", kind: "Pod", namespace: "default", name: "x-pod" });
 * console.assert(r?.message === "create Pod default/x-pod refused: 422 Invalid: metadata.name: Too long");
 * ```
 */
export function childWriteRejection(
  err: unknown,
  write: ChildWrite,
  reason: string = CHILD_WRITE_REJECTED,
): ChildWriteRejection | undefined {
  if (!isUnfixableWriteError(err)) return undefined;
  const child = write.namespace ? `${write.namespace}/${write.name}` : write.name;
  const answer = `${err.code} ${err.reason}: ${err.status.message ?? ""}`.trim();
  return { reason, message: `${write.verb} ${write.kind} ${child} refused: ${answer}`, error: err, write };
}

/** What {@link rejectChildWrite} needs of a reconcile context. */
export interface RejectionContext {
  /** Records the Warning Event. */
  recorder: { event(regarding: KubeObject, input: EventInput): void };
  /** The reconcile's key, named in the TerminalError. */
  key: string;
}

/**
 * The terminal path: a Warning Event on `owner` with the rejection's reason and message, then `writeDegraded`
 * (the controller's status write: Degraded=True with that reason and message at the current generation), and
 * the TerminalError for the caller to throw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeCluster } from "../../testing/mod.ts";
 * import { TerminalError } from "../client/errors.ts";
 * import { CoreTypes } from "../types.ts";
 * import { childWriteRejection, rejectChildWrite } from "./child_write_failure.ts";
 * const cluster = new FakeCluster();
 * const owner = cluster.create(CoreTypes.ConfigMap, { metadata: { name: "owner", namespace: "default" } });
 * const ctx = cluster.context(CoreTypes.ConfigMap, "default/owner");
 * const name = "Not_A_Valid_Name";
 * let thrown: unknown;
 * try {
 *   await ctx.client.create(CoreTypes.Pod, { metadata: { name, namespace: "default" } });
 * } catch (err) {
 *   const rejection = childWriteRejection(err, { verb: "create", kind: "Pod", namespace: "default", name });
 *   if (!rejection) throw err; // retriable: the controller's backoff retries it
 *   const degraded: string[] = [];
 *   thrown = await rejectChildWrite(ctx, owner, rejection, (r) => {
 *     degraded.push(r.reason); // the controller writes Degraded=True with r.reason and r.message here
 *     return Promise.resolve();
 *   });
 *   assert.deepEqual(degraded, ["ChildWriteRejected"]);
 * }
 * assert.ok(thrown instanceof TerminalError); // thrown by the reconcile: no retry until the spec changes
 * assert.equal(cluster.events[0].input.reason, "ChildWriteRejected"); // a Warning Event on the owner
 * ```
 */
export async function rejectChildWrite(
  ctx: RejectionContext,
  owner: KubeObject,
  rejection: ChildWriteRejection,
  writeDegraded: (rejection: ChildWriteRejection) => Promise<void>,
): Promise<TerminalError> {
  ctx.recorder.event(owner, {
    type: "Warning",
    reason: rejection.reason,
    action: `${rejection.write.verb.replace(/^./, (c) => c.toUpperCase())}${rejection.write.kind}`, // e.g. CreatePod
    note: rejection.message,
  });
  await writeDegraded(rejection);
  return new TerminalError(`${ctx.key}: ${rejection.message}`, { cause: rejection.error });
}

/**
 * The owner's Degraded condition when it marks a terminal state for the owner's current spec: status True, one of
 * `reasons`, and computed from the current `metadata.generation`. Undefined otherwise — in particular once the
 * spec changed, so the controller tries again.
 *
 * @example
 * ```ts
 * import { CHILD_WRITE_REJECTED, stalledCondition } from "./child_write_failure.ts";
 * const at = {
 *   metadata: { name: "a", generation: 2 },
 *   status: {
 *     conditions: [{ type: "Degraded", status: "True", reason: CHILD_WRITE_REJECTED, message: "", lastTransitionTime: "", observedGeneration: 1 }],
 *   },
 * };
 * console.assert(stalledCondition(at, [CHILD_WRITE_REJECTED]) === undefined); // generation 2 was not tried yet
 * ```
 */
export function stalledCondition(owner: KubeObject, reasons: readonly string[]): Condition | undefined {
  const conditions = (nestedField(owner, "status", "conditions") ?? []) as Condition[];
  const degraded = conditions.find((c) => c.type === "Degraded");
  if (!degraded || degraded.status !== "True" || !reasons.includes(degraded.reason)) return undefined;
  return degraded.observedGeneration === owner.metadata.generation ? degraded : undefined;
}
