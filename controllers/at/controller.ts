/**
 * Cloud Native At (seed 002), read like the tutorial's state machine: PENDING → RUNNING → DONE, plus FAILED.
 *
 * - PENDING is stored first; the At is requeued exactly at `spec.schedule` (waits longer than
 *   {@link MAX_WAIT_MS} are split, so a schedule days ahead neither overflows a timer nor is forgotten).
 * - At the time, pod `<name>-pod` (labelled `app=<name>`; a name too long for a pod name or a label value is cut
 *   and hashed like kube's controllers do) runs busybox with the command split on whitespace, restartPolicy OnFailure, and a
 *   controller ownerReference; the At follows it: Succeeded → DONE, Failed → FAILED.
 * - FAILED rule (restartPolicy OnFailure means a failing pod is restarted, never Failed): once the container has
 *   restarted {@link MAX_RESTARTS} times the At is FAILED and the pod is deleted so it stops crash-looping.
 * - The pod deleted by someone while RUNNING: FAILED with reason PodDeleted (the command may have run in part;
 *   re-running a non-idempotent command behind the user's back is worse than saying so).
 * - A schedule that is not a real UTC time, or a command of only whitespace (nothing to run): Degraded condition +
 *   Warning Event + TerminalError, up front — no retry until the spec changes (the CRD's pattern already refuses
 *   most bad strings; this catches 2021-02-30T00:00:00Z).
 * - A pod the API server refuses for good (422 e.g. an admission policy or a bad image, 400/413): the generic path of
 *   runtime/controller/child_write_failure.ts — PENDING stays, Degraded=True reason ChildWriteRejected with the server's
 *   message, a Warning Event, no retry until the spec changes.
 * @module
 */

import { getControllerOf, setCondition, setControllerReference } from "../../runtime/client/apply.ts";
import type { Pod } from "../../runtime/builtin_types.ts";
import { childName, labelValueFor } from "../../runtime/apimachinery/names.ts";
import { Controller, type ReconcileContext } from "../../runtime/controller/controller.ts";
import { isAlreadyExists, isNotFound, TerminalError } from "../../runtime/client/errors.ts";
import {
  CHILD_WRITE_REJECTED,
  childWriteRejection,
  rejectChildWrite,
  stalledCondition,
} from "../../runtime/controller/child_write_failure.ts";
import { deleteIgnoringNotFound } from "../../runtime/client/delete_ignoring_not_found.ts";
import { patchStatusIfChanged } from "../../runtime/controller/status_patch.ts";
import { type Action, done, requeueAfter } from "../../runtime/controller/reconcile.ts";
import { type Condition, CoreTypes, type KubeObject } from "../../runtime/types.ts";
import type { RbacRule } from "../rbac.ts";
import { type At, AtType, type Phase } from "./schema.ts";

/** Longest single wait; longer schedules are reached in several requeues. */
export const MAX_WAIT_MS = 60 * 60 * 1000;
/** Container restarts after which an At is FAILED. */
export const MAX_RESTARTS = 3;
/** Degraded reasons that stop a PENDING At until its spec changes. */
export const STALLED_REASONS: readonly string[] = [CHILD_WRITE_REJECTED, "InvalidSchedule", "BlankCommand"];

/** The API calls this file makes. */
export const RBAC: readonly RbacRule[] = [
  { group: "cnat.ishankhare.dev", resource: "ats", verbs: ["get", "list", "watch"] },
  { group: "cnat.ishankhare.dev", resource: "ats/status", verbs: ["patch"] },
  { group: "cnat.ishankhare.dev", resource: "ats/finalizers", verbs: ["update"] },
  { group: "", resource: "pods", verbs: ["get", "list", "watch", "create", "delete"] },
];

/** `<at>-pod`; a name too long for that is cut and hashed (runtime/apimachinery/names.ts's childName). */
export function podNameOf(at: At): string {
  return childName(at.metadata.name!, "pod");
}

/** Milliseconds since the epoch of an RFC 3339 UTC schedule, or undefined when it is not a real time. */
export function parseSchedule(schedule: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$/.exec(schedule);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const ms = Date.UTC(y, mo - 1, d, h, mi, s) + (m[7] ? Math.round(Number(m[7]) * 1000) : 0);
  const back = new Date(ms);
  const real = back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d &&
    h < 24 && mi < 60 && s < 60;
  return real ? ms : undefined;
}

/** The pod that runs `at`'s command. */
export function podFor(at: At): Pod {
  return setControllerReference(at, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: podNameOf(at),
      namespace: at.metadata.namespace,
      labels: { app: labelValueFor(at.metadata.name!) },
    },
    spec: {
      containers: [{ name: "busybox", image: "busybox", command: at.spec.command.split(/\s+/).filter(Boolean) }],
      restartPolicy: "OnFailure",
    },
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

interface StatusChange {
  phase: Phase;
  reason: string;
  message: string;
  podName?: string;
}

/** Reconciles one At. */
export async function reconcileAt(ctx: ReconcileContext): Promise<Action> {
  const at = ctx.informers.get<At>(AtType).store.get(ctx.key);
  if (!at || at.metadata.deletionTimestamp) return done(); // its pod goes with it (ownerReference)
  const phase: Phase = at.status?.phase ?? "PENDING";
  const now = ctx.clock.now();

  switch (phase) {
    case "PENDING": {
      if (stalledCondition(at, STALLED_REASONS)) return done(); // told in status; a spec change tries again
      if (!at.status?.phase) {
        await writeStatus(ctx, at, { phase, reason: "Scheduled", message: `runs at ${at.spec.schedule}` });
      }
      const when = parseSchedule(at.spec.schedule);
      if (when === undefined) {
        const message = `spec.schedule ${
          JSON.stringify(at.spec.schedule)
        } is not a UTC time (e.g. 2020-11-16T10:12:00Z)`;
        await writeStatus(ctx, at, { phase, reason: "InvalidSchedule", message }, true);
        ctx.recorder.event(at, { type: "Warning", reason: "InvalidSchedule", action: "Schedule", note: message });
        throw new TerminalError(`At ${ctx.key}: ${message}`);
      }
      if (!at.spec.command.trim()) {
        const message = `spec.command ${JSON.stringify(at.spec.command)} is blank: there is no command to run`;
        await writeStatus(ctx, at, { phase, reason: "BlankCommand", message }, true);
        ctx.recorder.event(at, { type: "Warning", reason: "BlankCommand", action: "Schedule", note: message });
        throw new TerminalError(`At ${ctx.key}: ${message}`);
      }
      if (now < when) {
        await writeStatus(ctx, at, { phase, reason: "Scheduled", message: `runs at ${iso(when)}` });
        return requeueAfter(Math.min(when - now, MAX_WAIT_MS));
      }
      const podName = await ensurePod(ctx, at);
      ctx.recorder.event(at, {
        type: "Normal",
        reason: "Started",
        action: "CreatePod",
        note: `pod ${podName} runs the command`,
      });
      await writeStatus(ctx, at, { phase: "RUNNING", reason: "PodRunning", message: `pod ${podName}`, podName });
      return done();
    }
    case "RUNNING": {
      const pod = await currentPod(ctx, at);
      if (!pod) {
        const message = `pod ${podNameOf(at)} was deleted before it finished`;
        ctx.recorder.event(at, { type: "Warning", reason: "PodDeleted", action: "WatchPod", note: message });
        await writeStatus(ctx, at, { phase: "FAILED", reason: "PodDeleted", message });
        return done();
      }
      const podPhase = pod.status?.phase;
      if (podPhase === "Succeeded") {
        ctx.recorder.event(at, { type: "Normal", reason: "Done", action: "WatchPod", note: "the command succeeded" });
        await writeStatus(ctx, at, { phase: "DONE", reason: "Succeeded", message: "the command succeeded" });
        return done();
      }
      const restarts = Math.max(
        0,
        ...(pod.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0),
      );
      if (podPhase === "Failed" || restarts >= MAX_RESTARTS) {
        const message = podPhase === "Failed"
          ? `pod ${pod.metadata.name} failed: ${terminationOf(pod)}`
          : `the command failed ${restarts + 1} times (last: ${
            terminationOf(pod)
          }); giving up after ${MAX_RESTARTS} restarts`;
        ctx.recorder.event(at, { type: "Warning", reason: "Failed", action: "WatchPod", note: message });
        await writeStatus(ctx, at, {
          phase: "FAILED",
          reason: podPhase === "Failed" ? "PodFailed" : "TooManyRestarts",
          message,
        });
        if (podPhase !== "Failed") await deletePod(ctx, pod);
        return done();
      }
      return done(); // the pod's next change requeues us (Owns)
    }
    default:
      return done(); // DONE and FAILED are final: create a new At to run again
  }
}

function terminationOf(pod: Pod): string {
  const c = (pod.status?.containerStatuses ?? [])[0];
  const t = c?.state?.terminated ?? c?.lastState?.terminated;
  if (!t) return pod.status?.message ?? pod.status?.reason ?? "unknown";
  return `exit code ${t.exitCode}${t.reason ? ` (${t.reason})` : ""}`;
}

async function ensurePod(ctx: ReconcileContext, at: At): Promise<string> {
  try {
    const created = await ctx.client.create(CoreTypes.Pod, podFor(at), { namespace: ctx.namespace });
    return created.metadata.name!;
  } catch (err) {
    const write = { verb: "create", kind: "Pod", namespace: ctx.namespace, name: podNameOf(at) };
    const rejection = childWriteRejection(err, write);
    if (rejection) {
      throw await rejectChildWrite(
        ctx,
        at,
        rejection,
        (r) => writeStatus(ctx, at, { phase: "PENDING", reason: r.reason, message: r.message }, true),
      );
    }
    if (!isAlreadyExists(err)) throw err;
  }
  const existing = await ctx.client.get(CoreTypes.Pod, podNameOf(at), { namespace: ctx.namespace });
  if (getControllerOf(existing)?.uid !== at.metadata.uid) {
    const message = `a pod named ${podNameOf(at)} exists and does not belong to this At`;
    await writeStatus(ctx, at, { phase: "PENDING", reason: "PodNameTaken", message }, true);
    ctx.recorder.event(at, { type: "Warning", reason: "PodNameTaken", action: "CreatePod", note: message });
    throw new TerminalError(`At ${ctx.key}: ${message}`);
  }
  return existing.metadata.name!;
}

/** The At's pod from the cache, confirmed against the API server on a miss (the cache may lag our own create). */
async function currentPod(ctx: ReconcileContext, at: At): Promise<Pod | undefined> {
  const key = `${at.metadata.namespace}/${podNameOf(at)}`;
  let pod: Pod | undefined = ctx.informers.get<Pod>(CoreTypes.Pod).store.get(key);
  if (!pod) {
    try {
      pod = await ctx.client.get<Pod>(CoreTypes.Pod, podNameOf(at), { namespace: ctx.namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return pod && getControllerOf(pod)?.uid === at.metadata.uid ? pod : undefined;
}

async function deletePod(ctx: ReconcileContext, pod: KubeObject): Promise<void> {
  await deleteIgnoringNotFound(ctx.client, CoreTypes.Pod, pod.metadata.name!, {
    namespace: ctx.namespace,
    preconditions: { uid: pod.metadata.uid },
  });
}

/** Patches phase and the Ready/Progressing/Degraded conditions when they change. */
async function writeStatus(ctx: ReconcileContext, at: At, change: StatusChange, degraded = false): Promise<void> {
  const now = iso(ctx.clock.now());
  const generation = at.metadata.generation;
  const final = change.phase === "DONE" || change.phase === "FAILED";
  let conditions: Condition[] = setCondition(at.status?.conditions as Condition[] | undefined, {
    type: "Ready",
    status: change.phase === "DONE" ? "True" : "False",
    reason: change.reason,
    message: change.message,
    observedGeneration: generation,
  }, now);
  conditions = setCondition(conditions, {
    type: "Progressing",
    status: final || degraded ? "False" : "True",
    reason: change.reason,
    message: change.message,
    observedGeneration: generation,
  }, now);
  conditions = setCondition(conditions, {
    type: "Degraded",
    status: degraded || change.phase === "FAILED" ? "True" : "False",
    reason: change.reason,
    message: change.message,
    observedGeneration: generation,
  }, now);
  const status: Record<string, unknown> = {
    phase: change.phase,
    message: change.message,
    observedGeneration: generation,
    conditions,
  };
  if (change.podName) status.podName = change.podName;
  await patchStatusIfChanged(ctx.client, AtType, at, status);
}

/** The At controller: For(At), Owns(Pod). */
export function atController(): Controller<At> {
  return new Controller<At>({ name: "at", for: AtType, reconcile: reconcileAt }).owns(CoreTypes.Pod);
}
