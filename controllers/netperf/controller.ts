/**
 * Netperf (seed 003), the tutorial's finite-state machine kept in `status.status`, so a restarted controller
 * resumes where it was (pod names are derived from the Netperf's name: no duplicates after a restart):
 *
 * Initial → (server pod created) Server → (server Running with an IP; client pod created) Test →
 * (client Succeeded; result parsed) Done, or Error with `status.message`.
 *
 * The client writes netperf's output to its termination message; the pod log is the fallback. The result is
 * stored in true bits per second (the original stored netperf's 10^6 bits/s number). Both pods are deleted once
 * the test is Done or in Error. Pods without a Netperf controller ownerReference, or owned by another Netperf,
 * are never touched (the original crashed on ownerless pods).
 *
 * Bad specs show in status: a `serverNode`/`clientNode` that names no Node (checked with an uncached GET before
 * a pod is created for it) is Degraded=True reason NodeNotFound, rechecked every {@link NODE_RECHECK_MS} (the
 * Node may join); a pod the API server refuses for good (422 for an invalid image, an admission policy)
 * takes the generic path of runtime/controller/child_write_failure.ts (long Netperf names no longer get there: pod names and
 * the instance label are cut and hashed to fit, runtime/apimachinery/names.ts): Degraded=True reason ChildWriteRejected, a Warning
 * Event, no retry until the spec changes.
 * @module
 */

import { getControllerOf, setCondition, setControllerReference } from "../../runtime/client/apply.ts";
import { childName, labelValueFor } from "../../runtime/apimachinery/names.ts";
import { Controller, type ReconcileContext } from "../../runtime/controller/controller.ts";
import {
  CHILD_WRITE_REJECTED,
  childWriteRejection,
  rejectChildWrite,
  stalledCondition,
} from "../../runtime/controller/child_write_failure.ts";
import { isAlreadyExists, isNotFound } from "../../runtime/client/errors.ts";
import { deleteIgnoringNotFound } from "../../runtime/client/delete_ignoring_not_found.ts";
import { patchStatusIfChanged } from "../../runtime/controller/status_patch.ts";
import { type Action, done, requeueAfter } from "../../runtime/controller/reconcile.ts";
import type { Pod } from "../../runtime/builtin_types.ts";
import { type Condition, CoreTypes } from "../../runtime/types.ts";
import type { RbacRule } from "../rbac.ts";
import { DEFAULT_IMAGE, type Netperf, type NetperfState, NetperfType } from "./schema.ts";

/** Failed log reads before the Netperf goes to Error. */
export const MAX_LOG_ATTEMPTS = 5;
/** How often a Netperf waiting for a Node that does not exist looks again. */
export const NODE_RECHECK_MS = 60_000;

/** The API calls this file makes. */
export const RBAC: readonly RbacRule[] = [
  { group: "app.example.com", resource: "netperfs", verbs: ["get", "list", "watch"] },
  { group: "app.example.com", resource: "netperfs/status", verbs: ["patch"] },
  { group: "app.example.com", resource: "netperfs/finalizers", verbs: ["update"] },
  { group: "", resource: "pods", verbs: ["get", "list", "watch", "create", "delete"] },
  { group: "", resource: "pods/log", verbs: ["get"] },
  { group: "", resource: "nodes", verbs: ["get"] },
];

/** Server pod name: `<netperf>-netperf-server`, cut and hashed when too long (runtime's childName). */
export const serverPodName = (np: Netperf): string => childName(np.metadata.name!, "netperf-server");
/** Client pod name: `<netperf>-netperf-client`, cut and hashed when too long (runtime's childName). */
export const clientPodName = (np: Netperf): string => childName(np.metadata.name!, "netperf-client");

/**
 * Throughput in bits per second from netperf's TCP_STREAM output: the last data row's last column, scaled by the
 * header's unit (`10^6bits/sec` by default; `10^3`, `10^9` and `-f` units too). Undefined when unparseable.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseNetperfOutput } from "./controller.ts";
 * const out = "Recv   Send    Send\nbytes  bytes   bytes    secs.    10^6bits/sec\n\n 87380  16384  16384    10.00    9416.96\n";
 * assert.ok(parseNetperfOutput(out) === 9_416_960_000);
 * ```
 */
export function parseNetperfOutput(output: string): number | undefined {
  const unit = /10\^(\d+)bits\/sec/.exec(output);
  const exponent = unit ? Number(unit[1]) : /\bGbits\/sec\b/.test(output) ? 9 : /\bKbits\/sec\b/.test(output) ? 3 : 6;
  const rows = output.split("\n").map((l) => l.trim()).filter((l) => /^[\d.]+(\s+[\d.]+){4}$/.test(l));
  if (rows.length === 0) return undefined;
  const value = Number(rows[rows.length - 1].split(/\s+/).at(-1));
  if (!Number.isFinite(value) || value < 0) return undefined;
  return Math.round(value * 10 ** exponent);
}

function podBase(np: Netperf, name: string, role: string, node: string | undefined): Pod {
  return setControllerReference(np, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: np.metadata.namespace,
      labels: {
        "app.kubernetes.io/name": "netperf",
        "app.kubernetes.io/instance": labelValueFor(np.metadata.name!),
        role,
      },
    },
    spec: { restartPolicy: "Never", ...(node ? { nodeName: node } : {}), containers: [] },
  });
}

/** The netserver pod. */
export function serverPodFor(np: Netperf): Pod {
  const pod = podBase(np, serverPodName(np), "server", np.spec?.serverNode);
  pod.spec!.containers = [{
    name: "netserver",
    image: np.spec?.image ?? DEFAULT_IMAGE,
    command: ["netserver", "-D"],
    ports: [{ name: "netperf", containerPort: 12865 }],
  }];
  return pod;
}

/** The netperf client pod against `serverIP`; its output becomes the termination message. */
export function clientPodFor(np: Netperf, serverIP: string): Pod {
  const pod = podBase(np, clientPodName(np), "client", np.spec?.clientNode);
  const duration = np.spec?.duration ?? 10;
  pod.spec!.containers = [{
    name: "netperf",
    image: np.spec?.image ?? DEFAULT_IMAGE,
    command: [
      "sh",
      "-c",
      `netperf -H ${serverIP} -l ${duration} > /tmp/out 2>&1; rc=$?; cat /tmp/out; tail -c 4000 /tmp/out > /dev/termination-log; exit $rc`,
    ],
    terminationMessagePath: "/dev/termination-log",
  }];
  return pod;
}

/** Per-controller memory: failed log reads per Netperf uid. */
export class NetperfMemory {
  /** Failed log reads by Netperf uid. */
  readonly logAttempts = new Map<string, number>();
}

interface Outcome {
  state: NetperfState;
  reason: string;
  message?: string;
  serverPod?: string;
  clientPod?: string;
  speedBitsPerSec?: number;
  /** Degraded without being in Error (a missing Node, a refused pod). */
  degraded?: boolean;
}

/** Reconciles one Netperf. */
export async function reconcileNetperf(ctx: ReconcileContext, memory: NetperfMemory): Promise<Action> {
  const np = ctx.informers.get<Netperf>(NetperfType).store.get(ctx.key);
  if (!np || np.metadata.deletionTimestamp) {
    if (np) memory.logAttempts.delete(np.metadata.uid!);
    return done(); // pods go with it (ownerReferences)
  }
  const state: NetperfState = np.status?.status ?? "Initial";

  if (state === "Done" || state === "Error") {
    await deleteOwnedPod(ctx, np, serverPodName(np));
    await deleteOwnedPod(ctx, np, clientPodName(np));
    return done();
  }

  if (stalledCondition(np, [CHILD_WRITE_REJECTED])) return done(); // told in status; a spec change tries again

  const server = await ownedPod(ctx, np, serverPodName(np));
  if (server === "foreign") return await fail(ctx, np, "PodNameTaken", `pod ${serverPodName(np)} is not ours`);
  if (!server) {
    if (state === "Test") return await fail(ctx, np, "ServerPodGone", `server pod ${serverPodName(np)} disappeared`);
    const missing = await missingNode(ctx, np, state);
    if (missing) return missing;
    await createPod(ctx, np, serverPodFor(np), state);
    await writeStatus(ctx, np, { state: "Server", reason: "ServerStarting", serverPod: serverPodName(np) });
    return done();
  }
  const serverPhase = server.status?.phase;
  if (serverPhase === "Failed" || serverPhase === "Succeeded") {
    return await fail(ctx, np, "ServerPodExited", `server pod ${server.metadata.name} ended (${serverPhase})`);
  }
  const serverIP: string | undefined = server.status?.podIP;
  if (serverPhase !== "Running" || !serverIP) {
    await writeStatus(ctx, np, { state: "Server", reason: "ServerStarting", serverPod: server.metadata.name });
    return done(); // the server pod's next change requeues us
  }

  const client = await ownedPod(ctx, np, clientPodName(np));
  if (client === "foreign") return await fail(ctx, np, "PodNameTaken", `pod ${clientPodName(np)} is not ours`);
  if (!client) {
    const missing = await missingNode(ctx, np, state);
    if (missing) return missing;
    await createPod(ctx, np, clientPodFor(np, serverIP), state);
    await writeStatus(ctx, np, {
      state: "Test",
      reason: "Testing",
      serverPod: server.metadata.name,
      clientPod: clientPodName(np),
    });
    return done();
  }
  const clientPhase = client.status?.phase;
  if (clientPhase === "Failed") {
    return await fail(ctx, np, "ClientPodFailed", `client pod failed: ${await outputOf(ctx, client) ?? "no output"}`);
  }
  if (clientPhase !== "Succeeded") {
    await writeStatus(ctx, np, {
      state: "Test",
      reason: "Testing",
      serverPod: server.metadata.name,
      clientPod: client.metadata.name,
    });
    return done();
  }

  let output: string | undefined;
  try {
    output = await outputOf(ctx, client);
  } catch (err) {
    const uid = np.metadata.uid!;
    const attempts = (memory.logAttempts.get(uid) ?? 0) + 1;
    memory.logAttempts.set(uid, attempts);
    if (attempts < MAX_LOG_ATTEMPTS) throw err; // retried with backoff
    memory.logAttempts.delete(uid);
    return await fail(ctx, np, "LogsUnavailable", `could not read the client's output: ${(err as Error).message}`);
  }
  memory.logAttempts.delete(np.metadata.uid!);
  const speed = output === undefined ? undefined : parseNetperfOutput(output);
  if (speed === undefined) {
    return await fail(ctx, np, "UnparseableOutput", `netperf output not understood: ${(output ?? "").slice(0, 200)}`);
  }
  await writeStatus(ctx, np, {
    state: "Done",
    reason: "Measured",
    serverPod: server.metadata.name,
    clientPod: client.metadata.name,
    speedBitsPerSec: speed,
    message: `${speed} bit/s`,
  });
  ctx.recorder.event(np, { type: "Normal", reason: "Measured", action: "Test", note: `${speed} bit/s` });
  await deleteOwnedPod(ctx, np, serverPodName(np));
  await deleteOwnedPod(ctx, np, clientPodName(np));
  return done();
}

/** The client's output: its termination message, else its log (throws when the log cannot be read). */
async function outputOf(ctx: ReconcileContext, pod: Pod): Promise<string | undefined> {
  const statuses = pod.status?.containerStatuses ?? [];
  const message = statuses.map((c) => c.state?.terminated?.message).find((m) => typeof m === "string" && m.trim());
  if (message) return message;
  const res = await ctx.client.request(
    "GET",
    `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/log`,
    {
      accept: "text/plain",
      throwOnError: true,
      call: { verb: "get", resource: "pods/log", namespace: pod.metadata.namespace, name: pod.metadata.name },
    },
  );
  return new TextDecoder().decode(res.body);
}

async function ownedPod(ctx: ReconcileContext, np: Netperf, name: string): Promise<Pod | "foreign" | undefined> {
  let pod: Pod | undefined = ctx.informers.get<Pod>(CoreTypes.Pod).store.get(`${np.metadata.namespace}/${name}`);
  if (!pod) {
    try {
      pod = await ctx.client.get<Pod>(CoreTypes.Pod, name, { namespace: ctx.namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      return undefined;
    }
  }
  if (pod.metadata.deletionTimestamp) return undefined;
  return getControllerOf(pod)?.uid === np.metadata.uid ? pod : "foreign";
}

/**
 * When `spec.serverNode` or `spec.clientNode` names a Node the API server does not have (uncached GET: the
 * operator does not cache Nodes): Degraded NodeNotFound in status, a Warning Event when that is news, and a slow
 * requeue. Undefined when every named Node exists.
 */
async function missingNode(ctx: ReconcileContext, np: Netperf, state: NetperfState): Promise<Action | undefined> {
  const names = [...new Set([np.spec?.serverNode, np.spec?.clientNode].filter((n): n is string => !!n))];
  const missing: string[] = [];
  for (const name of names) {
    try {
      await ctx.client.get(CoreTypes.Node, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      missing.push(name);
    }
  }
  if (missing.length === 0) return undefined;
  const message = `node ${missing.join(", ")} not found; looking again every ${NODE_RECHECK_MS / 1000} s`;
  const before = (np.status?.conditions as Condition[] | undefined)?.find((c) => c.type === "Degraded");
  if (before?.reason !== "NodeNotFound" || before.message !== message) {
    ctx.recorder.event(np, { type: "Warning", reason: "NodeNotFound", action: "CreatePod", note: message });
  }
  await writeStatus(ctx, np, { state, reason: "NodeNotFound", message, degraded: true });
  return requeueAfter(NODE_RECHECK_MS);
}

async function createPod(ctx: ReconcileContext, np: Netperf, pod: Pod, state: NetperfState): Promise<void> {
  try {
    await ctx.client.create(CoreTypes.Pod, pod, { namespace: ctx.namespace });
  } catch (err) {
    if (isAlreadyExists(err)) return; // made by us a moment ago; the cache had not shown it yet
    const write = { verb: "create", kind: "Pod", namespace: ctx.namespace, name: pod.metadata.name! };
    const rejection = childWriteRejection(err, write);
    if (rejection) {
      throw await rejectChildWrite(
        ctx,
        np,
        rejection,
        (r) => writeStatus(ctx, np, { state, reason: r.reason, message: r.message, degraded: true }),
      );
    }
    ctx.recorder.event(np, { type: "Warning", reason: "CreateFailed", action: "CreatePod", note: String(err) });
    throw err;
  }
  ctx.recorder.event(np, {
    type: "Normal",
    reason: "PodCreated",
    action: "CreatePod",
    note: `created pod ${pod.metadata.name}`,
  });
}

async function deleteOwnedPod(ctx: ReconcileContext, np: Netperf, name: string): Promise<void> {
  const pod = ctx.informers.get<Pod>(CoreTypes.Pod).store.get(`${np.metadata.namespace}/${name}`);
  if (!pod || getControllerOf(pod)?.uid !== np.metadata.uid || pod.metadata.deletionTimestamp) return;
  const deleted = await deleteIgnoringNotFound(ctx.client, CoreTypes.Pod, name, {
    namespace: ctx.namespace,
    preconditions: { uid: pod.metadata.uid },
  });
  if (!deleted) return;
  ctx.recorder.event(np, { type: "Normal", reason: "PodDeleted", action: "DeletePod", note: `deleted pod ${name}` });
}

async function fail(ctx: ReconcileContext, np: Netperf, reason: string, message: string): Promise<Action> {
  ctx.recorder.event(np, { type: "Warning", reason, action: "Test", note: message });
  await writeStatus(ctx, np, { state: "Error", reason, message });
  await deleteOwnedPod(ctx, np, serverPodName(np));
  await deleteOwnedPod(ctx, np, clientPodName(np));
  return done();
}

async function writeStatus(ctx: ReconcileContext, np: Netperf, o: Outcome): Promise<void> {
  const now = new Date(ctx.clock.now()).toISOString();
  const generation = np.metadata.generation;
  const final = o.state === "Done" || o.state === "Error";
  const message = o.message ?? `${o.state}: ${o.reason}`;
  let conditions: Condition[] = setCondition(np.status?.conditions as Condition[] | undefined, {
    type: "Ready",
    status: o.state === "Done" ? "True" : "False",
    reason: o.reason,
    message,
    observedGeneration: generation,
  }, now);
  conditions = setCondition(conditions, {
    type: "Progressing",
    status: final || o.degraded ? "False" : "True",
    reason: o.reason,
    message,
    observedGeneration: generation,
  }, now);
  conditions = setCondition(conditions, {
    type: "Degraded",
    status: o.state === "Error" || o.degraded ? "True" : "False",
    reason: o.reason,
    message,
    observedGeneration: generation,
  }, now);
  const status: Record<string, unknown> = { status: o.state, observedGeneration: generation, conditions };
  if (o.serverPod) status.serverPod = o.serverPod;
  if (o.clientPod) status.clientPod = o.clientPod;
  if (o.speedBitsPerSec !== undefined) status.speedBitsPerSec = o.speedBitsPerSec;
  if (o.message !== undefined) status.message = o.message;
  else if (np.status?.message !== undefined) status.message = null; // a past NodeNotFound or rejection is over
  await patchStatusIfChanged(ctx.client, NetperfType, np, status);
}

/** The Netperf controller: For(Netperf), Owns(Pod) — pods without a Netperf controller reference never enqueue. */
export function netperfController(): Controller<Netperf> {
  const memory = new NetperfMemory();
  return new Controller<Netperf>({
    name: "netperf",
    for: NetperfType,
    reconcile: (ctx) => reconcileNetperf(ctx, memory),
  }).owns(CoreTypes.Pod);
}
