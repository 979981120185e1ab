/**
 * A controller's workers: each takes a key from the queue, waits (bounded) for the key's own writes to reach the
 * cache, asks the controller's {@link KeyAdmission} for a ticket (leader fence, shard gate: admission.ts), runs
 * `reconcile` with a fresh {@link ReconcileContext}, and applies the {@link reconcileOutcome} decision — queue
 * operation, metrics, log line, Warning Event.
 * @module
 */

import type { InformerLike } from "../cache/cache.ts";
import type { ControllerDeps, ReconcileContext } from "./reconcile.ts";
import type { Logger } from "../observe/log.ts";
import { reconcileLogger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import type { OwnWritesTracker } from "./own_writes.ts";
import type { AdmissionTicket, KeyAdmission } from "./admission.ts";
import type { WorkQueue } from "../queue/queue.ts";
import type { Action } from "./reconcile.ts";
import { type ReconcileEnd, type ReconcileOutcome, reconcileOutcome } from "./reconcile_outcome.ts";
import { reconcileClient } from "./write_path.ts";
import { apiVersionOf, type KubeObject, objectKey, type ResourceType, splitKey } from "../types.ts";

/**
 * Runs `count` workers that hand each queued key to `handle` (one key never twice at once: the queue guarantees
 * it) until the queue shuts down.
 */
export async function runWorkers(
  o: { queue: WorkQueue; count: number; signal: AbortSignal; handle(key: string): Promise<void> },
): Promise<void> {
  const worker = async () => {
    for (;;) {
      const key = await o.queue.get(o.signal);
      if (key === undefined) return;
      try {
        await o.handle(key);
      } finally {
        o.queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: o.count }, worker));
}

/**
 * List items from kube-apiserver carry no apiVersion/kind; fill them from the resource type (a shallow copy: cached
 * objects are frozen) so owner references and Events built from the object are complete.
 */
function withTypeMeta<T extends KubeObject>(obj: T | undefined, rt: ResourceType): T | undefined {
  if (!obj || (obj.apiVersion && obj.kind)) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(rt), kind: obj.kind ?? rt.kind };
}

/** Everything one controller's workers share. */
export interface ReconcileRun<T extends KubeObject> {
  /** The controller's name (logs, metrics). */
  controller: string;
  /** The For resource. */
  forType: ResourceType;
  /** The user's reconcile. */
  reconcile(ctx: ReconcileContext<T>): Promise<Action>;
  /** The runtime services. */
  deps: ControllerDeps;
  /** Where the counters go. */
  metrics: Metrics;
  /** The controller's logger. */
  baseLog: Logger;
  /** The controller's queue. */
  queue: WorkQueue;
  /** Its read-your-own-writes tracker. */
  ownWrites: OwnWritesTracker;
  /** The For informer (ctx.object comes from its store). */
  forInformer: InformerLike<T>;
  /** Aborted when the controller shuts down. */
  signal: AbortSignal;
  /** The controller's door (leader fence, shard gate); absent: every key is admitted. */
  admission?: KeyAdmission<T>;
}

/** Reconciles `key` once and applies the outcome. */
export async function reconcileKey<T extends KubeObject>(key: string, run: ReconcileRun<T>): Promise<void> {
  const { queue, ownWrites, signal, controller } = run;
  await ownWrites.wait(key, signal);
  if (signal.aborted) return;
  const reconcileID = crypto.randomUUID();
  const { namespace, name } = splitKey(key);
  const { group: controllerGroup, kind: controllerKind } = run.forType;
  const log = reconcileLogger(run.baseLog, {
    controller,
    controllerGroup,
    controllerKind,
    namespace,
    name,
    reconcileID,
  });
  const cached = run.forInformer.store.get(key);
  const ticket = run.admission ? run.admission.admit(key, cached) : OPEN;
  if (!ticket) {
    // Not (provably) the leader any more, or another replica's shard bucket: its owner reconciles it.
    queue.forget(key);
    return;
  }
  let reconciled = false;
  try {
    reconciled = await reconcileAdmitted(key, run, { namespace, name, log, reconcileID, object: cached, ticket });
  } finally {
    ticket.done(reconciled);
  }
}

/** The ticket of a controller without admission. */
const OPEN: AdmissionTicket = { done() {} };

/** Runs the reconcile of an admitted key; true when it returned an action (no error). */
async function reconcileAdmitted<T extends KubeObject>(
  key: string,
  run: ReconcileRun<T>,
  at: {
    namespace?: string;
    name: string;
    log: Logger;
    reconcileID: string;
    object: T | undefined;
    ticket: AdmissionTicket;
  },
): Promise<boolean> {
  const { deps, metrics, ownWrites, signal, controller } = run;
  const { namespace, name, log, reconcileID, ticket } = at;
  const ctx: ReconcileContext<T> = {
    key,
    namespace,
    name,
    object: withTypeMeta(at.object, run.forType),
    signal,
    client: reconcileClient({
      client: deps.client,
      key,
      tracker: ownWrites,
      fence: ticket.fence,
      uidGuard: ticket.uid === undefined ? undefined : { forType: run.forType, namespace, name, uid: ticket.uid },
    }),
    informers: deps.informers,
    recorder: deps.recorder,
    log,
    clock: deps.clock,
    reconcileID,
    expectWrite: (rt, written) => ownWrites.recordWrite(key, rt, written),
    expectDelete: (rt, obj) => ownWrites.recordDelete(key, rt, objectKey(obj), obj.metadata.uid),
  };
  const labels = { controller };
  const started = deps.clock.now();
  metrics.activeWorkers.inc(labels);
  // Trace: where each reconcile of a key begins and ends (tests/faults/reconcile_overlap.ts replays them per process).
  log.trace("reconcile started");
  let end: ReconcileEnd;
  try {
    end = { action: await run.reconcile(ctx) };
  } catch (error) {
    end = { error };
  } finally {
    metrics.activeWorkers.dec(labels);
    metrics.reconcileTime.observe(labels, (deps.clock.now() - started) / 1000);
    log.trace("reconcile ended");
  }
  const outcome = reconcileOutcome(end, { aborted: signal.aborted });
  applyOutcome(outcome, { key, run, log, object: ctx.object, error: "error" in end ? end.error : undefined });
  metrics.reconcileTotal.inc({ controller, result: outcome.result });
  return "action" in end;
}

/** Carries out a {@link ReconcileOutcome}: the queue operation, the counters, the log line, the Warning Event. */
function applyOutcome<T extends KubeObject>(
  outcome: ReconcileOutcome,
  at: { key: string; run: ReconcileRun<T>; log: Logger; object: KubeObject | undefined; error?: unknown },
): void {
  const { key, run, log, error } = at;
  const { queue, metrics } = run;
  const labels = { controller: run.controller };
  switch (outcome.queue.op) {
    case "forget":
      queue.forget(key);
      break;
    case "addRateLimited":
      queue.addRateLimited(key);
      break;
    case "forgetThenAddAfter":
      queue.forget(key);
      queue.addAfter(key, outcome.queue.delayMs);
      break;
  }
  if (outcome.countError) metrics.reconcileErrors.inc(labels);
  if (outcome.countTerminal) metrics.terminalReconcileErrors.inc(labels);
  if (outcome.countPanic) metrics.reconcilePanics.inc(labels);
  switch (outcome.kind) {
    case "notLeader":
      log.info("reconcile stopped, this replica is not the leader: {error}", { error });
      break;
    case "terminal":
      log.error("reconcile failed permanently, not retrying until the object changes: {error}", { error });
      break;
    case "panic":
      log.error("reconcile panicked (unexpected exception), retrying: {error}", { error });
      break;
    case "interrupted":
      log.debug("reconcile interrupted by shutdown: {error}", { error });
      break;
    case "failed":
      log.error("reconcile failed, retrying in backoff (attempt {attempt}): {error}", {
        error,
        attempt: queue.numRequeues(key),
      });
      break;
  }
  if (outcome.warningReason && at.object) {
    run.deps.recorder.event(at.object, {
      type: "Warning",
      reason: outcome.warningReason,
      action: "Reconcile",
      note: error instanceof Error ? error.message : String(error),
    });
  }
}
