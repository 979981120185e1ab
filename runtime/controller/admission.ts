/**
 * Admission: the one question a controller's worker asks before it reconciles a key — "may this replica reconcile
 * `key` now?" The answer is an {@link AdmissionTicket} (the fence that guards the reconcile's writes, the uid its
 * writes must carry, and `done()`), or nothing: the key is dropped, its owner reconciles it. The leader fence
 * (runtime/leader/leader_admission.ts) and the shard gate (runtime/shard/shard_admission.ts) both implement
 * {@link Admission}; {@link composeAdmissions} chains them (leader first, then shard). Without any, every key is
 * admitted. The controller knows no more than this interface: no leader or sharding special case.
 * @module
 */

import type { InformerLike } from "../cache/cache.ts";
import type { CallInfo } from "../client/errors.ts";
import type { WriteFence } from "../leader/write_fence.ts";
import type { Logger } from "../observe/log.ts";
import type { KubeObject, ResourceType } from "../types.ts";

/** The right to reconcile one key now, on this replica. */
export interface AdmissionTicket {
  /** The fence that guards the reconcile's writes (its signal aborts in-flight calls when it shuts). */
  readonly fence?: WriteFence;
  /**
   * The uid the key was admitted for (a shard bucket owns a uid, not a name): the reconcile's writes to the object
   * itself are made conditional on it (runtime/controller/write_path.ts `guardUid`). Absent: no uid guard.
   */
  readonly uid?: string;
  /**
   * Ends the claim (idempotent). `reconciled`: the reconcile returned an action (no error, not skipped), so what it
   * was admitted for — e.g. a deletion — is handled.
   */
  done(reconciled: boolean): void;
}

/** One controller's door: asked once per key, right before each reconcile. */
export interface KeyAdmission<T extends KubeObject = KubeObject> {
  /** A ticket when this replica may reconcile `key` (cached as `obj`, undefined once deleted) now; else undefined. */
  admit(key: string, obj: T | undefined): AdmissionTicket | undefined;
  /** Stops following the controller (its informer handlers, its subscriptions). */
  close(): void;
}

/** What an admission learns about the controller it admits for. */
export interface AdmissionTarget<T extends KubeObject = KubeObject> {
  /** The controller's name. */
  readonly controller: string;
  /** The reconciled (For) resource. */
  readonly forType: ResourceType;
  /** The For informer. */
  readonly forInformer: InformerLike<T>;
  /** Queues `key` again at low priority (e.g. a key whose shard bucket became active here). */
  requeue(key: string): void;
  /** The controller's logger (refusals are logged here). */
  readonly log: Logger;
}

/**
 * A source of per-controller admission: attached once when a controller starts.
 *
 * @example
 * ```ts
 * import type { Admission } from "./admission.ts";
 * // Admits every key whose name does not start with "skip-".
 * const byName: Admission = {
 *   attach: () => ({
 *     admit: (key) => key.split("/").pop()!.startsWith("skip-") ? undefined : { done() {} },
 *     close() {},
 *   }),
 * };
 * ```
 */
export interface Admission {
  /** The door for one controller. */
  attach<T extends KubeObject>(target: AdmissionTarget<T>): KeyAdmission<T>;
}

/** A fence that is open only while all of `fences` are; its signal aborts with the first of theirs. */
function allFences(fences: WriteFence[]): WriteFence | undefined {
  if (fences.length <= 1) return fences[0];
  return {
    check: (call: CallInfo) => fences.forEach((f) => f.check(call)),
    signal: AbortSignal.any(fences.map((f) => f.signal)),
  };
}

/**
 * Chains admissions: a key is admitted only when each admits it, in order (a later one is not asked once an earlier
 * one refused; tickets already taken are handed back). The ticket's fence is open while every fence is, its uid is
 * the first one a ticket names, and `done` ends every ticket.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Admission, composeAdmissions } from "./admission.ts";
 * const all: Admission = { attach: () => ({ admit: () => ({ done() {} }), close() {} }) };
 * const none: Admission = { attach: () => ({ admit: () => undefined, close() {} }) };
 * assert.equal(composeAdmissions([]), undefined);
 * assert.equal(composeAdmissions([all]), all);
 * assert.ok(composeAdmissions([all, none]));
 * ```
 */
export function composeAdmissions(admissions: readonly (Admission | undefined)[]): Admission | undefined {
  const chain = admissions.filter((a): a is Admission => a !== undefined);
  if (chain.length <= 1) return chain[0];
  return {
    attach<T extends KubeObject>(target: AdmissionTarget<T>): KeyAdmission<T> {
      const doors = chain.map((a) => a.attach(target));
      return {
        admit(key, obj) {
          const tickets: AdmissionTicket[] = [];
          for (const door of doors) {
            const ticket = door.admit(key, obj);
            if (!ticket) {
              for (const t of tickets) t.done(false);
              return undefined;
            }
            tickets.push(ticket);
          }
          return {
            fence: allFences(tickets.flatMap((t) => t.fence ? [t.fence] : [])),
            uid: tickets.find((t) => t.uid !== undefined)?.uid,
            done: (reconciled) => tickets.forEach((t) => t.done(reconciled)),
          };
        },
        close: () => doors.forEach((d) => d.close()),
      };
    },
  };
}
