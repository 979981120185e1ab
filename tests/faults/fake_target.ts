/**
 * The fault matrix on target `fake`: a fresh fake API server per scenario, the operator in front of it through a TCP
 * fault proxy, the harness writing straight into the server's store. Faults come from the server's fault hooks
 * (restarts, stalls, compactions, injected statuses) and from the proxy (cuts, latency); API calls are counted by the
 * server.
 * @module
 */
import { isConflict } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { type FakeApiServer, startFakeApiServer } from "../../testing/mod.ts";
import { type ClusterStore, Desired, FAKE_SCOPE } from "./desired.ts";
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

/** Bookmarks arm the client's read-idle deadline; short here so a stall comes after one. */
const BOOKMARK_INTERVAL_MS = 2_000;

/** The harness's writes, straight into the fake's store (no HTTP, so no fault touches them). */
export function fakeStore(server: FakeApiServer): ClusterStore {
  const get = (rt: ResourceType, name: string, namespace?: string) => {
    try {
      return server.store.get(rt, name, { namespace });
    } catch {
      return undefined;
    }
  };
  return {
    create: (rt, obj, namespace) => Promise.resolve(void server.store.create(rt, obj, { namespace })),
    get: (rt, name, namespace) => Promise.resolve(get(rt, name, namespace) as KubeObject | undefined),
    update: (rt, obj, namespace) =>
      Promise.resolve(void server.store.update(rt, obj, { namespace, name: obj.metadata.name })),
    delete: (rt, name, namespace) => {
      try {
        server.store.delete(rt, name, { namespace });
      } catch (err) {
        if (isConflict(err)) throw err;
      }
      return Promise.resolve();
    },
    list: (rt, namespace) => Promise.resolve(server.store.list(rt, { namespace }).items as KubeObject[]),
    crdReady: () => Promise.resolve(),
  };
}

/** Opens a scenario on a fresh fake server. */
async function openFakeSession(): Promise<TargetSession> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: BOOKMARK_INTERVAL_MS });
  const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: Number(new URL(server.url).port) } });
  let apiCalls = 0;
  const callsByVerb = new Map<string, number>();
  const requests: string[] = [];
  server.faults.onRequest((req) => {
    if (req.userAgent !== OPERATOR_UA) return;
    apiCalls++;
    callsByVerb.set(req.verb, (callsByVerb.get(req.verb) ?? 0) + 1);
    const where = [req.namespace, req.name].filter(Boolean).join("/");
    const sub = req.subresource ? `/${req.subresource}` : "";
    requests.push(`${new Date(req.at).toISOString()} ${req.verb} ${req.resource} ${where}${sub}`);
  });
  const desired = new Desired(fakeStore(server), FAKE_SCOPE);
  return {
    target: "fake",
    desired,
    kubeconfig: server.kubeconfig.replace(server.url, `http://127.0.0.1:${proxy.port}`),
    calls: (verbs) => verbs ? verbs.reduce((n, v) => n + (callsByVerb.get(v) ?? 0), 0) : apiCalls,
    requestLog: () => requests,
    inject: (fault, env) => injectFakeFault(fault, env, server, proxy),
    checkEveryMs: 50,
    close: async () => {
      await proxy.close();
      await server.stop();
    },
  };
}

/** Starts `fault` on the fake while churning half the objects over the hold time; returns what ends it. */
async function injectFakeFault(
  fault: FaultId | "none",
  env: FaultEnv,
  server: FakeApiServer,
  proxy: FaultProxy,
): Promise<() => Promise<void>> {
  const { desired, opts } = env;
  switch (fault) {
    case "none":
      await env.churn();
      return nothing;
    case "restart":
      await repeatedly(env, 1, () => server.restart({ keepState: true }));
      return nothing;
    case "restart-state-loss":
      await repeatedly(env, 1, async () => {
        await server.restart({ keepState: false });
        await desired.reapply(); // what a GitOps tool does after the cluster lost its state
      });
      return nothing;
    case "watch-cut-midframe":
      await repeatedly(env, 3, () => proxy.cutMidFrame());
      bit(fault, "connections cut inside a server write", proxy.cuts);
      return nothing;
    case "watch-stall":
      bit(fault, "watches stalled", server.faults.stallWatches());
      await env.churn();
      return nothing; // stalled watches stay stalled: the client must notice on its own
    case "dead-connection":
      // Every open connection (watches and parked keep-alive ones) goes dead: open, forwarding nothing, the server's
      // close hidden. The operator must notice on its own (≤ 27 s for a watch, 30 s for a unary request).
      bit(fault, "connections held open, forwarding nothing", proxy.holdOpen());
      await env.churn();
      return nothing;
    case "gone-410-storm": {
      let dropped = 0;
      await repeatedly(env, 10, () => {
        server.faults.compact();
        dropped += server.faults.dropWatches();
      });
      bit(fault, "watches dropped after a compaction", dropped);
      return nothing;
    }
    case "throttle-429":
      server.faults.inject({ code: 429, retryAfterSeconds: 1 });
      return await held(env, undefined, () => server.faults.clear());
    case "error-500":
      server.faults.inject({ code: 500 });
      return await held(env, undefined, () => server.faults.clear());
    case "latency-50-2000ms":
      proxy.latency([50, 2_000]);
      return await held(env, undefined, () => proxy.latency(undefined));
    case "conflict-409-storm":
      for (const verb of ["update", "patch"]) server.faults.inject({ verb, code: 409 });
      return await held(env, ["update", "patch"], () => server.faults.clear());
    case "crd-delete-recreate":
      await repeatedly(env, 1, async () => {
        // kube-apiserver deletes a CRD's objects first, honouring their finalizers; the fake drops them at once,
        // so the harness deletes them first and waits, as kube would, then deletes the CRD and re-creates it.
        for (const name of desired.values.keys()) await desired.remove(name);
        const start = performance.now();
        while ((await desired.store.list(MultiSecretType, desired.scope.namespace)).length > 0) {
          if (performance.now() - start > opts.settleMs) throw new Error("crd-delete-recreate: finalizers never ran");
          await sleep(50);
        }
        const crd = multiSecretCrds()[0];
        await desired.store.delete(CoreTypes.CustomResourceDefinition, crd.metadata.name!);
        await sleep(opts.holdMs / 3);
        await desired.reapply();
      });
      return nothing;
  }
}

/** Runs one scenario on a fresh fake server; `baseline` fills the row (undefined: this is the baseline). */
export function runFakeScenario(
  fault: FaultId | "none",
  opts: MatrixOptions,
  baseline?: { apiCalls: number; events: number },
): Promise<ScenarioResult> {
  return runScenario(openFakeSession, fault, opts, baseline);
}

/** Runs the no-fault baseline, then each fault, on target `fake`. */
export function runFakeMatrix(
  faults: readonly FaultId[],
  opts: MatrixOptions,
  onRow: (row: ScenarioResult) => void | Promise<void>,
): Promise<ScenarioResult[]> {
  return runMatrix(openFakeSession, faults, opts, onRow);
}
