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
 *
 * A reconcile reads the cache through indexes (indexes.ts), decides everything with pure functions (plan.ts) and
 * hands the {@link MachinePlan} to one writer ({@link applyPlan}). Creates and deletes need no bookkeeping of their
 * own: every write goes through the reconcile's client, and the runtime holds the machine's next reconcile until the
 * cache shows them (read-your-own-writes, runtime/controller/own_writes.ts).
 * @module
 */

import { setControllerReference } from "../../runtime/client/apply.ts";
import { Controller, type InformerSource, type ReconcileContext } from "../../runtime/controller/controller.ts";
import { isNotFound } from "../../runtime/client/errors.ts";
import { deleteIgnoringNotFound } from "../../runtime/client/delete_ignoring_not_found.ts";
import { patchStatusIfChanged } from "../../runtime/controller/status_patch.ts";
import { type Action, done, requeueAfter } from "../../runtime/controller/reconcile.ts";
import type { RbacRule } from "../rbac.ts";
import { type MachineCaches, machineCaches, machinesOfSwitch, selectorOf, switchesOf } from "./indexes.ts";
import { type MachinePlan, planReconcile } from "./plan.ts";
import { type Machine, MachineType, type Switch, SwitchType } from "./schema.ts";

export { FLIP_DELAY_MS, positionsOf } from "./plan.ts";
export { selectorOf };

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

/**
 * When this controller last flipped one of each machine's switches, by machine key (and uid, so a machine re-created
 * under the same name starts afresh). `status.lastFlipAt` says the same once written; this covers a status write
 * that failed after the flip.
 */
export class FlipMemory {
  readonly #last = new Map<string, { uid: string; ms: number }>();

  /** Machines remembered. */
  get size(): number {
    return this.#last.size;
  }

  /** The last flip of machine `key` with `uid` (0: none remembered). */
  lastFlipMs(key: string, uid: string): number {
    const last = this.#last.get(key);
    return last?.uid === uid ? last.ms : 0;
  }

  /** Remembers a flip. */
  flipped(key: string, uid: string, ms: number): void {
    this.#last.set(key, { uid, ms });
  }

  /** Forgets machine `key` (deleted). */
  forget(key: string): void {
    this.#last.delete(key);
  }
}

/**
 * Reconciles Machines: observe (the machine and its Switches, from the indexed caches), decide ({@link planReconcile}),
 * apply ({@link applyPlan}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeCluster } from "../../testing/mod.ts";
 * import { FLIP_DELAY_MS, MachineReconciler } from "./controller.ts";
 * import { machineCrds, MachineType, SwitchType } from "./schema.ts";
 * const cluster = new FakeCluster({ crds: machineCrds() }); // a Manager's informers in production
 * const reconciler = new MachineReconciler(cluster.informers);
 * cluster.create(MachineType, { metadata: { name: "m", namespace: "default" }, spec: { switches: 2 } });
 * const action = await reconciler.reconcile(cluster.context(MachineType, "default/m"));
 * assert.equal(cluster.list(SwitchType, "default").length, 2); // created, owned by the Machine
 * assert.ok((action.requeueAfterMs ?? 0) <= FLIP_DELAY_MS); // back when a switch may be flipped
 * ```
 */
export class MachineReconciler {
  /** The indexed Machine and Switch caches. */
  readonly caches: MachineCaches;
  /** Flip pacing per machine. */
  readonly memory = new FlipMemory();

  /** Adds the controller's indexes to the shared caches of `informers` (throws when they offer none). */
  constructor(informers: InformerSource) {
    this.caches = machineCaches(informers);
  }

  /** Reconciles the Machine at `ctx.key`. */
  async reconcile(ctx: ReconcileContext): Promise<Action> {
    const machine = this.caches.machines.get(ctx.key);
    if (!machine || machine.metadata.deletionTimestamp) {
      this.memory.forget(ctx.key); // its Switches go with it through their ownerReferences (garbage collection)
      return done();
    }
    const uid = machine.metadata.uid!;
    const plan = planReconcile({
      machine,
      switches: switchesOf(this.caches.switches, machine),
      now: ctx.clock.now(),
      lastFlipMs: this.memory.lastFlipMs(ctx.key, uid),
    });
    await applyPlan(ctx, machine, plan, (ms) => this.memory.flipped(ctx.key, uid, ms));
    return plan.requeueAfterMs !== undefined ? requeueAfter(plan.requeueAfterMs) : done();
  }
}

/**
 * The one writer: applies `plan` to the cluster through the reconcile's client, in order — the machine's own switch,
 * adoptions and releases, creates or deletes, switch statuses, the flip, the machine's status — with an Event for
 * each. `flipped` hears of a flip once it succeeded.
 */
export async function applyPlan(
  ctx: ReconcileContext,
  machine: Machine,
  plan: MachinePlan,
  flipped: (ms: number) => void,
): Promise<void> {
  const now = ctx.clock.now();
  const opts = { namespace: ctx.namespace, type: "merge" as const };
  const event = (reason: string, action: string, note: string) =>
    ctx.recorder.event(machine, { type: "Normal", reason, action, note });

  if (plan.ownSwitch.seen) event("Seen", "Observe", "switch is up");
  if (plan.ownSwitch.flipDown) {
    await ctx.client.patch(MachineType, machine.metadata.name!, {
      metadata: { resourceVersion: machine.metadata.resourceVersion },
      spec: { switchPosition: "down" },
    }, opts);
    event("SwitchedDown", "Flip", "switch moved down");
    ctx.log.info("moved the switch of {machine} down", { machine: ctx.key });
  }

  const written = new Map<string, Switch>(); // adopted Switches: a later flip's precondition needs their new RV
  for (const { action, sw } of plan.ownership) {
    if (action === "adopt") written.set(sw.metadata.name!, await adopt(ctx, machine, sw));
    else await release(ctx, machine, sw);
  }

  if (plan.scale.create > 0) {
    const names: string[] = [];
    for (let i = 0; i < plan.scale.create; i++) names.push((await createSwitch(ctx, machine)).metadata.name!);
    event("SwitchesCreated", "Create", `created switch(es) ${names.join(", ")}`);
  }
  for (const sw of plan.scale.delete) {
    await deleteIgnoringNotFound(ctx.client, SwitchType, sw.metadata.name!, {
      namespace: ctx.namespace,
      preconditions: { uid: sw.metadata.uid },
    });
    event("SwitchDeleted", "Delete", `deleted switch ${sw.metadata.name}`);
  }

  for (const sw of plan.flips.clearSeen) await patchSwitchStatus(ctx, sw, { seenAt: null });
  for (const sw of plan.flips.markSeen) await patchSwitchStatus(ctx, sw, { seenAt: new Date(now).toISOString() });
  const flip = plan.flips.flip && (written.get(plan.flips.flip.metadata.name!) ?? plan.flips.flip);
  if (flip) {
    await ctx.client.patch(SwitchType, flip.metadata.name!, {
      metadata: { resourceVersion: flip.metadata.resourceVersion },
      spec: { position: "down" },
    }, opts);
    flipped(now);
    event("SwitchFlipped", "Flip", `moved switch ${flip.metadata.name} down`);
  }

  if (plan.status) {
    const next = plan.status as Record<string, unknown>;
    await patchStatusIfChanged(ctx.client, MachineType, machine, next, { removeAbsent: true });
  }
}

function createSwitch(ctx: ReconcileContext, machine: Machine): Promise<Switch> {
  return ctx.client.create<Switch>(
    SwitchType,
    setControllerReference(machine, {
      apiVersion: `${SwitchType.group}/${SwitchType.version}`,
      kind: "Switch",
      metadata: { generateName: "switch-", namespace: ctx.namespace, labels: { ...selectorOf(machine) } },
      spec: { position: "down" },
    }),
  );
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

/**
 * The Machine controller: For(Machine), and one Switch watch whose map function names the controlling Machine and
 * every Machine whose selector matches (indexes.ts's {@link machinesOfSwitch}).
 */
export function machineController(deps: { informers: InformerSource }): Controller<Machine> {
  const reconciler = new MachineReconciler(deps.informers);
  return new Controller<Machine>({
    name: "machine",
    for: MachineType,
    reconcile: (ctx) => reconciler.reconcile(ctx),
  }).watches(SwitchType, machinesOfSwitch(reconciler.caches.machines));
}
