/**
 * The fault matrix on target `real`: one envtest-style control plane (etcd, kube-apiserver, kube-controller-manager
 * from testing/envtest/real_control_plane.ts) for the whole run, one scope (namespaces, target label) per scenario. The
 * operator reaches kube-apiserver through two proxies on 127.0.0.1:
 *
 *     operator → FaultProxy (TCP: cuts inside a frame, latency) → HttpFaultProxy (TLS terminated and re-originated:
 *     counts requests, injects 429/500/409, stalls and expires watches) → kube-apiserver
 *
 * The harness writes with its own client straight to kube-apiserver. How each fault is produced:
 * - `restart`: kube-apiserver and etcd SIGKILLed and started again on the same data (connections reset, then refused
 *   until /readyz); `restart-state-loss`: the same with etcd's data directory wiped, then the harness re-applies
 *   namespaces, CRD and objects.
 * - `watch-cut-midframe`, `latency-50-2000ms`: the TCP proxy (it cuts inside a TLS record, which is what a broken
 *   network shows a client of a TLS server).
 * - `watch-stall`: the HTTP proxy stops forwarding every open watch.
 * - `dead-connection`: the TCP proxy holds every open connection open and forwards nothing more on it, either way (a
 *   black-holing NAT, or a proxy that keeps the socket); new connections work.
 * - `gone-410-storm`: ten times, the HTTP proxy ends every open watch and, as etcd compaction at the current revision
 *   would, answers a re-watch from an older resourceVersion with the watch cache's `410 Expired` ERROR event. A real
 *   compaction does not produce this on demand: the watch cache keeps serving old revisions for ~75 s.
 * - `throttle-429` (Retry-After 1 s), `error-500`, `conflict-409-storm` (updates and patches): the HTTP proxy answers
 *   the operator's requests with kube's Status for that code (API Priority and Fairness cannot be made to reject
 *   exactly one client on demand, and a real 409 storm needs a writer racing every object).
 * - `crd-delete-recreate`: the CRD is deleted with its objects in place; kube-apiserver deletes them, waiting on their
 *   finalizers (the operator must remove its children while the CRD terminates); then it is re-created and the objects
 *   re-applied.
 * @module
 */
import { KubeClient } from "../../runtime/client/client.ts";
import { isNotFound } from "../../runtime/client/errors.ts";
import { parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import type { CustomResourceDefinition } from "../../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { eventually } from "../../testing/eventually.ts";
import { type RealControlPlane, startRealControlPlane } from "../../testing/envtest/real_control_plane.ts";
import { type ClusterStore, Desired, scopeFor } from "./desired.ts";
import { HttpFaultProxy } from "./http_fault_proxy.ts";
import {
  bit,
  type FaultEnv,
  type FaultId,
  held,
  type MatrixOptions,
  nothing,
  OPERATOR_UA,
  repeatedly,
  runMatrix,
  runScenario,
  type ScenarioResult,
  sleep,
  type TargetSession,
} from "./matrix.ts";
import { FaultProxy } from "./tcp_proxy.ts";

/** The harness's client calls, straight to kube-apiserver. */
export function realStore(admin: KubeClient): ClusterStore {
  const absentOk = (err: unknown) => {
    if (!isNotFound(err)) throw err;
  };
  return {
    create: async (rt, obj, namespace) => void await admin.create(rt, obj, { namespace }),
    get: (rt, name, namespace) => admin.get(rt, name, { namespace }).catch((err) => void absentOk(err)),
    update: async (rt, obj, namespace) => void await admin.update(rt, obj, { namespace }),
    delete: (rt, name, namespace) => admin.delete(rt, name, { namespace }).catch(absentOk),
    list: async (rt, namespace) => (await admin.listAll(rt, { namespace })).items,
    crdReady: async (name) => {
      await eventually(`CRD ${name} established`, async () => {
        const crd = await admin.get<CustomResourceDefinition>(CoreTypes.CustomResourceDefinition, name);
        return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") || undefined;
      }, { timeoutMs: 60_000, intervalMs: 100, retryErrors: true });
      await eventually(`CRD ${name} served`, async () => {
        await admin.list(MultiSecretType, { limit: 1 });
        return true;
      }, { timeoutMs: 60_000, intervalMs: 100, retryErrors: true });
    },
  };
}

/** A running real target: one control plane, sessions on it. */
export interface RealTarget {
  /** Opens the next scenario's session (own namespaces, own proxies). */
  open(): Promise<TargetSession>;
  stop(): Promise<void>;
}

/** Starts the control plane (from `binDir`, else the default cache) for a matrix run. */
export async function startRealTarget(opts: { binDir?: string } = {}): Promise<RealTarget> {
  const plane = await startRealControlPlane({ binDir: opts.binDir });
  const admin = new KubeClient({ config: await parseKubeconfig(plane.kubeconfig), userAgent: "kubeop-faults-harness" });
  const pem = (name: string) => Deno.readTextFile(`${plane.dir}/${name}`);
  const tls = { caCert: await pem("ca.crt"), cert: await pem("apiserver.crt"), key: await pem("apiserver.key") };
  let sessions = 0;
  return {
    open: () => openRealSession(plane, admin, tls, `s${sessions++}`),
    stop: async () => {
      admin.close();
      await plane.stop();
    },
  };
}

async function openRealSession(
  plane: RealControlPlane,
  admin: KubeClient,
  tls: { caCert: string; cert: string; key: string },
  id: string,
): Promise<TargetSession> {
  const front: { tcp?: FaultProxy } = {}; // the TCP proxy starts second: it forwards to this one
  const http = HttpFaultProxy.start({
    upstream: plane.url,
    ...tls,
    countUserAgent: OPERATOR_UA,
    onUpstreamDown: (port) => front.tcp?.reset(port),
  });
  const tcp = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: http.port } });
  front.tcp = tcp;
  const desired = new Desired(realStore(admin), scopeFor(id));
  const proxies = { tcp, http };
  return {
    target: "real",
    desired,
    kubeconfig: plane.kubeconfig.replace(plane.url, `https://127.0.0.1:${tcp.port}`),
    calls: (verbs) => verbs ? verbs.reduce((n, v) => n + (http.callsByVerb.get(v) ?? 0), 0) : http.calls,
    requestLog: () => http.requestLog,
    inject: (fault, env) => injectRealFault(fault, env, plane, admin, proxies),
    checkEveryMs: 500,
    close: async () => {
      await tcp.close();
      await http.close();
      await removeScope(admin, desired);
    },
  };
}

/** Removes a scenario's objects (the operator is gone: its finalizers are stripped) and namespaces. */
async function removeScope(admin: KubeClient, desired: Desired): Promise<void> {
  const { namespace, targets } = desired.scope;
  const left = await admin.listAll(MultiSecretType, { namespace }).catch(() => ({ items: [] as KubeObject[] }));
  const strip = (ms: KubeObject) =>
    admin.patch(MultiSecretType, ms.metadata.name!, { metadata: { finalizers: null } }, { type: "merge", namespace })
      .catch(() => {});
  for (let i = 0; i < left.items.length; i += 25) await Promise.all(left.items.slice(i, i + 25).map(strip));
  for (const ns of [namespace, ...targets]) await admin.delete(CoreTypes.Namespace, ns).catch(() => {});
  // The next scenario's operator must not see this one's namespaces change (its Namespace watch maps every change to
  // every key): wait until kube-controller-manager has removed them. Best effort: the row is already measured.
  await eventually(`scope ${namespace} removed`, async () => {
    for (const ns of [namespace, ...targets]) {
      if (await admin.get(CoreTypes.Namespace, ns).then(() => true, (err) => !isNotFound(err))) return undefined;
    }
    return true;
  }, { timeoutMs: 60_000, intervalMs: 500, retryErrors: true }).catch((err) => console.error(`warning: ${err}`));
}

/** The current etcd revision (a consistent list's resourceVersion). */
async function currentRevision(admin: KubeClient): Promise<number> {
  const list = await admin.list(CoreTypes.Namespace, { limit: 1 });
  return Number(list.metadata?.resourceVersion);
}

/** Starts `fault` on the real cluster while churning half the objects over the hold time; returns what ends it. */
async function injectRealFault(
  fault: FaultId | "none",
  env: FaultEnv,
  plane: RealControlPlane,
  admin: KubeClient,
  { tcp, http }: { tcp: FaultProxy; http: HttpFaultProxy },
): Promise<() => Promise<void>> {
  const { desired, opts } = env;
  switch (fault) {
    case "none":
      await env.churn();
      return nothing;
    case "restart":
      await repeatedly(env, 1, () => plane.restart());
      return nothing;
    case "restart-state-loss":
      await repeatedly(env, 1, async () => {
        await plane.restart({ wipeEtcd: true });
        await desired.reapply(); // what a GitOps tool does after the cluster lost its state
      });
      return nothing;
    case "watch-cut-midframe":
      await repeatedly(env, 3, () => tcp.cutMidFrame());
      bit(fault, "connections cut inside a server write", tcp.cuts);
      return nothing;
    case "watch-stall":
      // Every open watch stops receiving; each is presumed dead 5 s past its 15–22 s window (runtime/watch/watch.ts),
      // whatever kube-apiserver's bookmark cadence.
      bit(fault, "watches stalled", http.stallWatches());
      await env.churn();
      return nothing;
    case "dead-connection":
      // The TCP proxy holds every open connection (inside TLS): open, forwarding nothing, the server's close hidden.
      bit(fault, "connections held open, forwarding nothing", tcp.holdOpen());
      await env.churn();
      return nothing;
    case "gone-410-storm": {
      let dropped = 0;
      await repeatedly(env, 10, async () => {
        dropped += http.expireWatches(await currentRevision(admin));
      });
      bit(fault, "watches ended at a compaction", dropped);
      bit(fault, "re-watches answered 410 Expired", http.expired);
      return nothing;
    }
    case "throttle-429":
      http.inject({ code: 429, retryAfterSeconds: 1 });
      return await held(env, undefined, () => http.clear());
    case "error-500":
      http.inject({ code: 500 });
      return await held(env, undefined, () => http.clear());
    case "latency-50-2000ms":
      tcp.latency([50, 2_000]);
      return await held(env, undefined, () => tcp.latency(undefined));
    case "conflict-409-storm":
      for (const verb of ["update", "patch"]) http.inject({ verb, code: 409 });
      return await held(env, ["update", "patch"], () => http.clear());
    case "crd-delete-recreate":
      await repeatedly(env, 1, async () => {
        const crd = multiSecretCrds()[0].metadata.name!;
        const start = performance.now();
        await admin.delete(CoreTypes.CustomResourceDefinition, crd);
        // kube-apiserver deletes every object first, each once the operator removed its finalizer: the harness
        // counts those deletions as its changes, as the fake target's harness does when it deletes them itself.
        desired.events += desired.values.size;
        await eventually("CRD deleted (its objects' finalizers ran)", async () => {
          return await admin.get(CoreTypes.CustomResourceDefinition, crd).then(() => undefined, (err) => {
            if (isNotFound(err)) return true;
            throw err;
          });
        }, { timeoutMs: opts.settleMs, intervalMs: 200, retryErrors: true });
        opts.log?.(`crd-delete-recreate: CRD and objects deleted in ${Math.round(performance.now() - start)} ms`);
        await sleep(opts.holdMs / 3);
        await desired.reapply();
        opts.log?.(`crd-delete-recreate: re-created and re-applied after ${Math.round(performance.now() - start)} ms`);
      });
      return nothing;
  }
}

/** Runs one scenario on `target`; `baseline` fills the row (undefined: this is the baseline). */
export function runRealScenario(
  target: RealTarget,
  fault: FaultId | "none",
  opts: MatrixOptions,
  baseline?: { apiCalls: number; events: number },
): Promise<ScenarioResult> {
  return runScenario(() => target.open(), fault, opts, baseline);
}

/** Runs the no-fault baseline, then each fault, on target `real` (one control plane for the run). */
export async function runRealMatrix(
  faults: readonly FaultId[],
  opts: MatrixOptions & { binDir?: string },
  onRow: (row: ScenarioResult) => void | Promise<void>,
): Promise<ScenarioResult[]> {
  const target = await startRealTarget({ binDir: opts.binDir });
  try {
    return await runMatrix(() => target.open(), faults, opts, onRow);
  } finally {
    await target.stop();
  }
}
