/**
 * The useless machine (seed 000), both stages, read like the kubebuilder tutorial:
 *
 * 1. Stage 1: a Machine whose `spec.switchPosition` is not down gets `status.seenAt`; ≥ 5 s later its switch is
 *    moved down and seenAt cleared — spec and status written separately (the original wiped status through the
 *    main resource).
 * 2. Stage 2: the Machine keeps exactly `spec.switches` Switches (generateName `switch-`, its selector's labels,
 *    controller ownerRef); reports their positions; flips at most one switch down per machine per 5 s, and only
 *    a switch seen up ≥ 5 s before. It adopts matching Switches nobody controls, ignores those another live
 *    Machine controls, releases its Switches that no longer match, deletes extras newest first.
 * @module
 */

import { getControllerOf, setCondition, setControllerReference } from "../../runtime/apply.ts";
import { Controller, type ReconcileContext } from "../../runtime/controller.ts";
import { isNotFound } from "../../runtime/errors.ts";
import { deleteIgnoringNotFound } from "../../runtime/delete_ignoring_not_found.ts";
import { patchStatusIfChanged } from "../../runtime/status_patch.ts";
import { type Action, done, requeueAfter } from "../../runtime/queue.ts";
import { type Condition, objectKey } from "../../runtime/types.ts";
import type { RbacRule } from "../rbac.ts";
import { type Machine, MachineType, type Switch, SwitchType } from "./schema.ts";

/** How long a switch (or the machine's own switch) stays up after being seen, and the minimum gap between flips. */
export const FLIP_DELAY_MS = 5_000;

/** The API calls this file makes (checked against deploy/rbac by tests/rbac_test.ts). */
export const RBAC: readonly RbacRule[] = [
  { group: "useless.container.training", resource: "machines", verbs: ["get", "list", "watch", "patch"] },
  { group: "useless.container.training", resource: "machines/status", verbs: ["patch"] },
  { group: "useless.container.training", resource: "machines/finalizers", verbs: ["update"] },
  {
    group: "useless.container.training",
    resource: "switches",
    verbs: ["get", "list", "watch", "create", "patch", "delete"],
  },
  { group: "useless.container.training", resource: "switches/status", verbs: ["patch"] },
];

/** The labels that tie Switches to `machine`. */
export function selectorOf(machine: Machine): Record<string, string> {
  const selector = machine.spec?.selector;
  return selector && Object.keys(selector).length > 0 ? selector : { machine: machine.metadata.name! };
}

function matches(labels: Record<string, string> | undefined, selector: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** First letter of each switch's position, switches ordered by name. */
export function positionsOf(switches: readonly Switch[]): string {
  return [...switches]
    .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!))
    .map((s) => (s.spec?.position ?? "down")[0])
    .join("");
}

/** Newest first: the order Switches are deleted in on scale-down. */
function newestFirst(a: Switch, b: Switch): number {
  const ta = a.metadata.creationTimestamp ?? "";
  const tb = b.metadata.creationTimestamp ?? "";
  return tb.localeCompare(ta) || b.metadata.name!.localeCompare(a.metadata.name!);
}

/** Writes the controller has made but its cache has not shown yet (client-go's ControllerExpectations). */
interface Expectations {
  creates: Set<string>;
  deletes: Set<string>;
}

/** State kept per controller instance (not global): pending writes and the last flip per machine uid. */
export class MachineMemory {
  /** Pending creates/deletes by machine uid. */
  readonly expectations = new Map<string, Expectations>();
  /** When each machine (uid) last flipped a switch. */
  readonly lastFlipMs = new Map<string, number>();

  /** Drops what is remembered about machines not in `live` (deleted ones). */
  forgetAllBut(live: ReadonlySet<string>): void {
    for (const uid of this.expectations.keys()) if (!live.has(uid)) this.expectations.delete(uid);
    for (const uid of this.lastFlipMs.keys()) if (!live.has(uid)) this.lastFlipMs.delete(uid);
  }

  /** The expectations of machine `uid` (created on first use). */
  of(uid: string): Expectations {
    let e = this.expectations.get(uid);
    if (!e) this.expectations.set(uid, e = { creates: new Set(), deletes: new Set() });
    return e;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Reconciles one Machine. */
export async function reconcileMachine(ctx: ReconcileContext, memory: MachineMemory): Promise<Action> {
  const machines = ctx.informers.get<Machine>(MachineType).store;
  const machine = machines.get(ctx.key);
  if (!machine || machine.metadata.deletionTimestamp) {
    // Switches go with it through their ownerReferences (garbage collection); forget what we tracked.
    memory.forgetAllBut(
      new Set(machines.list().filter((m) => !m.metadata.deletionTimestamp).map((m) => m.metadata.uid!)),
    );
    return done();
  }
  const uid = machine.metadata.uid!;
  const now = ctx.clock.now();
  const status = { ...(machine.status ?? {}) };
  const waits: number[] = [];

  // Stage 1: the machine's own switch.
  const seenAtMs = status.seenAt ? Date.parse(status.seenAt) : undefined;
  if (machine.spec?.switchPosition && machine.spec.switchPosition !== "down") {
    if (seenAtMs === undefined) {
      status.seenAt = iso(now);
      ctx.recorder.event(machine, { type: "Normal", reason: "Seen", action: "Observe", note: "switch is up" });
      waits.push(FLIP_DELAY_MS);
    } else if (now >= seenAtMs + FLIP_DELAY_MS) {
      await ctx.client.patch(MachineType, machine.metadata.name!, {
        metadata: { resourceVersion: machine.metadata.resourceVersion },
        spec: { switchPosition: "down" },
      }, { namespace: ctx.namespace, type: "merge" });
      delete status.seenAt;
      ctx.recorder.event(machine, {
        type: "Normal",
        reason: "SwitchedDown",
        action: "Flip",
        note: "switch moved down",
      });
      ctx.log.info("moved the switch of {machine} down", { machine: ctx.key });
    } else {
      waits.push(seenAtMs + FLIP_DELAY_MS - now);
    }
  } else if (status.seenAt) {
    delete status.seenAt; // down already (by us before a failed status write, or by the user)
  }

  // Stage 2: the machine's Switches.
  const selector = selectorOf(machine);
  const all = ctx.informers.get<Switch>(SwitchType).store.list(ctx.namespace);
  const expect = memory.of(uid);
  const visible = new Set(all.map((s) => s.metadata.name!));
  for (const name of expect.creates) if (visible.has(name)) expect.creates.delete(name);
  for (const name of expect.deletes) if (!visible.has(name)) expect.deletes.delete(name);
  const settled = expect.creates.size === 0 && expect.deletes.size === 0;

  let ours: Switch[] = [];
  for (const sw of all) {
    if (sw.metadata.deletionTimestamp || expect.deletes.has(sw.metadata.name!)) continue;
    const owner = getControllerOf(sw);
    const matching = matches(sw.metadata.labels, selector);
    if (owner?.uid === uid) {
      if (matching) ours.push(sw);
      else await release(ctx, machine, sw);
    } else if (matching && !owner) {
      ours.push(await adopt(ctx, machine, sw));
    }
    // A Switch another Machine controls is left alone, even when its labels match ours.
  }

  const wanted = machine.spec?.switches;
  let scaling = false;
  if (wanted !== undefined && settled) {
    if (ours.length < wanted) {
      scaling = true;
      const names: string[] = [];
      for (let i = ours.length; i < wanted; i++) {
        const created = await ctx.client.create<Switch>(
          SwitchType,
          setControllerReference(machine, {
            apiVersion: `${SwitchType.group}/${SwitchType.version}`,
            kind: "Switch",
            metadata: { generateName: "switch-", namespace: ctx.namespace, labels: { ...selector } },
            spec: { position: "down" },
          }),
        );
        expect.creates.add(created.metadata.name!);
        names.push(created.metadata.name!);
      }
      ctx.recorder.event(machine, {
        type: "Normal",
        reason: "SwitchesCreated",
        action: "Create",
        note: `created switch(es) ${names.join(", ")}`,
      });
    } else if (ours.length > wanted) {
      scaling = true;
      const extras = [...ours].sort(newestFirst).slice(0, ours.length - wanted);
      for (const sw of extras) {
        await deleteIgnoringNotFound(ctx.client, SwitchType, sw.metadata.name!, {
          namespace: ctx.namespace,
          preconditions: { uid: sw.metadata.uid },
        });
        expect.deletes.add(sw.metadata.name!);
        ctx.recorder.event(machine, {
          type: "Normal",
          reason: "SwitchDeleted",
          action: "Delete",
          note: `deleted switch ${sw.metadata.name}`,
        });
      }
      ours = ours.filter((s) => !extras.includes(s));
    }
  }

  // Flip: note when each up switch was first seen; flip the longest-seen one when both clocks allow.
  const up = ours.filter((s) => s.spec?.position === "up");
  let pendingFlips = 0;
  for (const sw of ours) {
    if (sw.spec?.position !== "up" && sw.status?.seenAt) await patchSwitchStatus(ctx, sw, { seenAt: null });
  }
  const seenAt = new Map<string, number>(); // cache objects are frozen: what we learn lives here
  for (const sw of up) {
    if (sw.status?.seenAt) seenAt.set(sw.metadata.name!, Date.parse(sw.status.seenAt));
    else {
      await patchSwitchStatus(ctx, sw, { seenAt: iso(now) });
      seenAt.set(sw.metadata.name!, now);
    }
  }
  const lastFlip = Math.max(
    memory.lastFlipMs.get(uid) ?? 0,
    status.lastFlipAt ? Date.parse(status.lastFlipAt) : 0,
  );
  const candidates = up
    .map((sw) => ({ sw, seen: seenAt.get(sw.metadata.name!)! }))
    .sort((a, b) => a.seen - b.seen || a.sw.metadata.name!.localeCompare(b.sw.metadata.name!));
  if (candidates.length > 0) {
    const next = candidates[0];
    const flipAt = Math.max(next.seen + FLIP_DELAY_MS, lastFlip + FLIP_DELAY_MS);
    if (now >= flipAt) {
      await ctx.client.patch(SwitchType, next.sw.metadata.name!, {
        metadata: { resourceVersion: next.sw.metadata.resourceVersion },
        spec: { position: "down" },
      }, { namespace: ctx.namespace, type: "merge" });
      memory.lastFlipMs.set(uid, now);
      status.lastFlipAt = iso(now);
      ctx.recorder.event(machine, {
        type: "Normal",
        reason: "SwitchFlipped",
        action: "Flip",
        note: `moved switch ${next.sw.metadata.name} down`,
      });
      pendingFlips = candidates.length - 1;
      if (pendingFlips > 0) waits.push(FLIP_DELAY_MS);
    } else {
      pendingFlips = candidates.length;
      waits.push(flipAt - now);
    }
  }

  // Status: positions only once the cache shows every switch we created or deleted (no partial "dd" writes).
  if (settled && !scaling) status.positions = positionsOf(ours);
  const converged = settled && !scaling && (wanted === undefined || ours.length === wanted) && pendingFlips === 0 &&
    !(machine.spec?.switchPosition && machine.spec.switchPosition !== "down" && status.seenAt);
  status.conditions = conditionsFor(machine, status.conditions as Condition[] | undefined, now, {
    converged,
    message: converged
      ? `${ours.length} switch(es), all down`
      : `${ours.length}/${wanted ?? ours.length} switch(es), ${pendingFlips} waiting to flip`,
  });
  status.observedGeneration = machine.metadata.generation;
  // While creates/deletes are in flight their watch events bring us back: one status write when the set is complete.
  if (!scaling) await patchMachineStatus(ctx, machine, status);
  return waits.length > 0 ? requeueAfter(Math.max(1, Math.min(...waits))) : done();
}

function conditionsFor(
  machine: Machine,
  current: Condition[] | undefined,
  now: number,
  state: { converged: boolean; message: string },
): Condition[] {
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
  return conditions;
}

async function adopt(ctx: ReconcileContext, machine: Machine, sw: Switch): Promise<Switch> {
  const owned = setControllerReference(machine, sw);
  const patched = await ctx.client.patch<Switch>(SwitchType, sw.metadata.name!, {
    metadata: { resourceVersion: sw.metadata.resourceVersion, ownerReferences: owned.metadata.ownerReferences },
  }, { namespace: ctx.namespace, type: "merge" });
  ctx.recorder.event(machine, {
    type: "Normal",
    reason: "SwitchAdopted",
    action: "Adopt",
    note: `adopted switch ${sw.metadata.name}`,
  });
  return patched;
}

async function release(ctx: ReconcileContext, machine: Machine, sw: Switch): Promise<void> {
  const refs = (sw.metadata.ownerReferences ?? []).filter((r) => r.uid !== machine.metadata.uid);
  try {
    await ctx.client.patch(SwitchType, sw.metadata.name!, {
      metadata: { resourceVersion: sw.metadata.resourceVersion, ownerReferences: refs.length ? refs : null },
    }, { namespace: ctx.namespace, type: "merge" });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return;
  }
  ctx.recorder.event(machine, {
    type: "Normal",
    reason: "SwitchReleased",
    action: "Release",
    note: `switch ${sw.metadata.name} no longer matches the selector`,
  });
}

async function patchSwitchStatus(ctx: ReconcileContext, sw: Switch, status: { seenAt: string | null }) {
  try {
    await ctx.client.patch(SwitchType, sw.metadata.name!, { status }, {
      namespace: ctx.namespace,
      type: "merge",
      subresource: "status",
    });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Patches the Machine's status to exactly `next` (keys it drops are removed) when it differs semantically. */
async function patchMachineStatus(ctx: ReconcileContext, machine: Machine, next: Record<string, unknown>) {
  await patchStatusIfChanged(ctx.client, MachineType, machine, next, { removeAbsent: true });
}

/** Machine → the keys of the Machines a Switch belongs to: its controller, and every Machine whose selector matches. */
export function machinesOfSwitch(machines: () => readonly Machine[]): (sw: Switch) => string[] {
  return (sw) => {
    const keys = new Set<string>();
    const owner = getControllerOf(sw);
    if (owner?.kind === "Machine") keys.add(`${sw.metadata.namespace}/${owner.name}`);
    for (const m of machines()) {
      if (m.metadata.namespace === sw.metadata.namespace && matches(sw.metadata.labels, selectorOf(m))) {
        keys.add(objectKey(m));
      }
    }
    if (keys.size === 0 && sw.metadata.labels?.machine) {
      keys.add(`${sw.metadata.namespace}/${sw.metadata.labels.machine}`);
    }
    return [...keys];
  };
}

/** The Machine controller: For(Machine), Owns(Switch), Watches(Switch → machines by labels). */
export function machineController(deps: { informers: ReconcileContext["informers"] }): Controller<Machine> {
  const memory = new MachineMemory();
  const machines = () => deps.informers.get<Machine>(MachineType).store.list();
  return new Controller<Machine>({
    name: "machine",
    for: MachineType,
    reconcile: (ctx) => reconcileMachine(ctx, memory),
  })
    .owns(SwitchType)
    .watches(SwitchType, machinesOfSwitch(machines) as (obj: unknown) => string[]);
}
