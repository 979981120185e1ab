/**
 * What one reconcile of a Machine decides, as pure functions of what the cache shows and the time (no I/O): the
 * machine's own switch ({@link observeOwnSwitch}), which Switches are its own, to adopt or to release
 * ({@link classifySwitches}), how to scale ({@link planScale}), which switch flips next ({@link planFlips}), and the
 * status that results ({@link planReconcile} puts them together). controller.ts applies a {@link MachinePlan}.
 * @module
 */

import { getControllerOf, setCondition } from "../../runtime/client/apply.ts";
import type { Condition } from "../../runtime/types.ts";
import { matches, selectorOf } from "./indexes.ts";
import type { Machine, MachineStatus, Switch } from "./schema.ts";
import { byName, compareStrings } from "../../runtime/apimachinery/string_order.ts";

/** How long a switch (or the machine's own switch) stays up after being seen, and the minimum gap between flips. */
export const FLIP_DELAY_MS = 5_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** First letter of each switch's position, switches ordered by name. */
export function positionsOf(switches: readonly Switch[]): string {
  return [...switches]
    .sort(byName)
    .map((s) => (s.spec?.position ?? "down")[0])
    .join("");
}

/** Stage 1: what to do about `spec.switchPosition`. */
export interface OwnSwitchDecision {
  /** `status.seenAt` after this reconcile (undefined: absent). */
  seenAt: string | undefined;
  /** The switch was seen up just now (a `Seen` Event). */
  seen: boolean;
  /** Move `spec.switchPosition` down now. */
  flipDown: boolean;
  /** Look again after this long. */
  waitMs?: number;
}

/** Stage 1: a switch seen up is noted (`seenAt`), and moved down once it has been up for {@link FLIP_DELAY_MS}. */
export function observeOwnSwitch(machine: Machine, now: number): OwnSwitchDecision {
  const seenAt = machine.status?.seenAt;
  const position = machine.spec?.switchPosition;
  if (!position || position === "down") return { seenAt: undefined, seen: false, flipDown: false };
  if (!seenAt) return { seenAt: iso(now), seen: true, flipDown: false, waitMs: FLIP_DELAY_MS };
  const seenAtMs = Date.parse(seenAt);
  if (now >= seenAtMs + FLIP_DELAY_MS) return { seenAt: undefined, seen: false, flipDown: true };
  return { seenAt, seen: false, flipDown: false, waitMs: seenAtMs + FLIP_DELAY_MS - now };
}

/** One ownership change: take a matching orphan, or let go of one of ours that no longer matches. */
export interface OwnershipChange {
  /** Adopt (set our controller ownerReference) or release (remove our ownerReference). */
  action: "adopt" | "release";
  /** The Switch as the cache has it. */
  sw: Switch;
}

/** The Switches of a machine, sorted out. */
export interface SwitchClassification {
  /** Ours: those we control that match, and the matching orphans we adopt (in the order given). */
  ours: Switch[];
  /** Adoptions and releases, in the order given. */
  changes: OwnershipChange[];
}

/**
 * Sorts `switches` (those the machine controls or its selector matches) out: terminating ones are skipped; ours that
 * match stay ours, ours that do not are released; matching ones nobody controls are adopted; those another Machine
 * controls are left alone, even when their labels match.
 */
export function classifySwitches(machine: Machine, switches: readonly Switch[]): SwitchClassification {
  const uid = machine.metadata.uid;
  const selector = selectorOf(machine);
  const ours: Switch[] = [];
  const changes: OwnershipChange[] = [];
  for (const sw of switches) {
    if (sw.metadata.deletionTimestamp) continue;
    const owner = getControllerOf(sw);
    const matching = matches(sw.metadata.labels, selector);
    if (owner?.uid === uid) {
      if (matching) ours.push(sw);
      else changes.push({ action: "release", sw });
    } else if (matching && !owner) {
      ours.push(sw);
      changes.push({ action: "adopt", sw });
    }
  }
  return { ours, changes };
}

/** Stage 2: Switches to create or delete. */
export interface ScaleDecision {
  /** How many Switches to create. */
  create: number;
  /** Switches to delete (newest first). */
  delete: Switch[];
  /** Ours once the deletes are done. */
  remaining: Switch[];
}

/** Newest first: the order Switches are deleted in on scale-down. */
function newestFirst(a: Switch, b: Switch): number {
  const ta = a.metadata.creationTimestamp ?? "";
  const tb = b.metadata.creationTimestamp ?? "";
  return compareStrings(tb, ta) || byName(b, a);
}

/** Creates up to `wanted`, or deletes the newest extras; nothing when `wanted` is undefined. */
export function planScale(wanted: number | undefined, ours: readonly Switch[]): ScaleDecision {
  if (wanted === undefined || ours.length === wanted) return { create: 0, delete: [], remaining: [...ours] };
  if (ours.length < wanted) return { create: wanted - ours.length, delete: [], remaining: [...ours] };
  const extras = [...ours].sort(newestFirst).slice(0, ours.length - wanted);
  return { create: 0, delete: extras, remaining: ours.filter((s) => !extras.includes(s)) };
}

/** Stage 2: switch status bookkeeping and the next flip. */
export interface FlipDecision {
  /** Switches down again whose `status.seenAt` is cleared. */
  clearSeen: Switch[];
  /** Switches seen up for the first time: `status.seenAt` = now. */
  markSeen: Switch[];
  /** The switch moved down now, if any. */
  flip?: Switch;
  /** Up switches still waiting for their flip after this reconcile. */
  pending: number;
  /** Look again after this long. */
  waitMs?: number;
}

/**
 * Notes when each up switch was first seen, and flips the one seen longest ago once it has been up
 * {@link FLIP_DELAY_MS} and the machine's last flip (`lastFlipMs`) is {@link FLIP_DELAY_MS} ago.
 */
export function planFlips(ours: readonly Switch[], now: number, lastFlipMs: number): FlipDecision {
  const clearSeen = ours.filter((sw) => sw.spec?.position !== "up" && sw.status?.seenAt);
  const up = ours.filter((sw) => sw.spec?.position === "up");
  const markSeen = up.filter((sw) => !sw.status?.seenAt);
  if (up.length === 0) return { clearSeen, markSeen, pending: 0 };
  const [next] = up
    .map((sw) => ({ sw, seen: sw.status?.seenAt ? Date.parse(sw.status.seenAt) : now }))
    .sort((a, b) => a.seen - b.seen || byName(a.sw, b.sw));
  const flipAt = Math.max(next.seen + FLIP_DELAY_MS, lastFlipMs + FLIP_DELAY_MS);
  if (now < flipAt) return { clearSeen, markSeen, pending: up.length, waitMs: flipAt - now };
  const pending = up.length - 1;
  return { clearSeen, markSeen, flip: next.sw, pending, waitMs: pending > 0 ? FLIP_DELAY_MS : undefined };
}

/** Everything one reconcile of a Machine does, in the order the writer applies it. */
export interface MachinePlan {
  /** Stage 1. */
  ownSwitch: OwnSwitchDecision;
  /** Adoptions and releases. */
  ownership: OwnershipChange[];
  /** Creates and deletes. */
  scale: ScaleDecision;
  /** Switch status bookkeeping and the flip. */
  flips: FlipDecision;
  /** The status to write; undefined while Switches are being created or deleted (their events bring us back). */
  status?: MachineStatus;
  /** Reconcile again after this long. */
  requeueAfterMs?: number;
}

/** What {@link planReconcile} reads besides the machine. */
export interface PlanInput {
  /** The Machine as the cache has it (not terminating). */
  machine: Machine;
  /** {@link switchesOf}: the Switches it controls or its selector matches. */
  switches: readonly Switch[];
  /** The current time (epoch ms). */
  now: number;
  /** When this controller last flipped one of the machine's switches (0: never, as far as it remembers). */
  lastFlipMs: number;
}

/** Decides one reconcile of a Machine (stage 1 and stage 2) and the status that follows. */
export function planReconcile({ machine, switches, now, lastFlipMs }: PlanInput): MachinePlan {
  const ownSwitch = observeOwnSwitch(machine, now);
  const { ours, changes } = classifySwitches(machine, switches);
  const wanted = machine.spec?.switches;
  const scale = planScale(wanted, ours);
  const recordedFlip = machine.status?.lastFlipAt ? Date.parse(machine.status.lastFlipAt) : 0;
  const flips = planFlips(scale.remaining, now, Math.max(lastFlipMs, recordedFlip));
  const waits = [ownSwitch.waitMs, flips.waitMs].filter((w): w is number => w !== undefined);
  const requeueAfterMs = waits.length > 0 ? Math.max(1, Math.min(...waits)) : undefined;
  const scaling = scale.create > 0 || scale.delete.length > 0;
  if (scaling) return { ownSwitch, ownership: changes, scale, flips, requeueAfterMs };

  const remaining = scale.remaining;
  const status: MachineStatus = { ...(machine.status ?? {}) };
  if (ownSwitch.seenAt === undefined) delete status.seenAt;
  else status.seenAt = ownSwitch.seenAt;
  if (flips.flip) status.lastFlipAt = iso(now);
  status.positions = positionsOf(remaining);
  const converged = (wanted === undefined || remaining.length === wanted) && flips.pending === 0 &&
    !(machine.spec?.switchPosition && machine.spec.switchPosition !== "down" && status.seenAt);
  status.conditions = conditionsFor(machine, status.conditions as Condition[] | undefined, now, {
    converged,
    message: converged
      ? `${remaining.length} switch(es), all down`
      : `${remaining.length}/${wanted ?? remaining.length} switch(es), ${flips.pending} waiting to flip`,
  });
  status.observedGeneration = machine.metadata.generation;
  return { ownSwitch, ownership: changes, scale, flips, status, requeueAfterMs };
}

function conditionsFor(
  machine: Machine,
  current: Condition[] | undefined,
  now: number,
  state: { converged: boolean; message: string },
): MachineStatus["conditions"] {
  const generation = machine.metadata.generation;
  let conditions = setCondition(current, {
    type: "Ready",
    status: state.converged ? "True" : "False",
    reason: state.converged ? "AllSwitchesDown" : "Converging",
    message: state.message,
    observedGeneration: generation,
  }, iso(now));
  conditions = setCondition(conditions, {
    type: "Progressing",
    status: state.converged ? "False" : "True",
    reason: state.converged ? "Idle" : "Converging",
    message: state.message,
    observedGeneration: generation,
  }, iso(now));
  return conditions as MachineStatus["conditions"];
}
