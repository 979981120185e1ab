/**
 * Where a soak runs, and how it hurts the operator there. Both targets put the operator behind the fault matrix's
 * proxies and let the harness write around them (tests/faults/):
 *
 * - `fake`: the fake API server in the harness's process (its kubelet scripted as `kubeop dev`'s, bookmarks every
 *   60 s as kube's), the operator through a TCP {@link FaultProxy}.
 * - `real`: etcd + kube-apiserver v1.37 + kube-controller-manager (testing/envtest/), the operator through the TCP
 *   proxy and the {@link HttpFaultProxy} (TLS re-originated); the harness plays the kubelet (tests/soak/pod_player.ts).
 *
 * The periodic faults, each one of the matrix's: `watch-cut` (every connection cut inside a server write), `gone-410`
 * (watches ended at a compaction; a resume from an older resourceVersion gets 410), `throttle-429` (every request
 * answered 429 Retry-After 1 s for {@link SoakTarget.holdMs}), `restart` (the server stops and starts again on its
 * data: the fake's restart, kube-apiserver and etcd SIGKILLed and started again).
 * @module
 */
import { KubeClient } from "../../runtime/client/client.ts";
import { parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes } from "../../runtime/types.ts";
import { devKubeletBehaviour } from "../../controllers/dev.ts";
import { eventually } from "../../testing/eventually.ts";
import { startRealControlPlane } from "../../testing/envtest/real_control_plane.ts";
import { startFakeApiServer } from "../../testing/mod.ts";
import type { ClusterStore } from "../faults/desired.ts";
import { fakeStore } from "../faults/fake_target.ts";
import { HttpFaultProxy } from "../faults/http_fault_proxy.ts";
import { realStore } from "../faults/real_target.ts";
import { FaultProxy } from "../faults/tcp_proxy.ts";
import { playKubelet } from "./pod_player.ts";
import { SOAK_SCOPE } from "./workload.ts";

/** The periodic faults, injected in this order, round and round. */
export const SOAK_FAULTS = ["watch-cut", "gone-410", "throttle-429", "restart"] as const;
/** One periodic fault. */
export type SoakFault = typeof SOAK_FAULTS[number];

/** A running target. */
export interface SoakTarget {
  name: "fake" | "real";
  /** The harness's writes and reads (around the proxies). */
  store: ClusterStore;
  /** The operator's kubeconfig file (through the proxies). */
  kubeconfigPath: string;
  /** Longest wait at a check for every object to converge. */
  settleMs: number;
  /** How long a held fault (429) lasts. */
  holdMs: number;
  /** Injects `fault`; resolves once it is over (a held fault cleared, a restarted server serving). */
  inject(fault: SoakFault): Promise<void>;
  /** Does what the target's kubelet would (nothing on the fake, whose kubelet runs by itself). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/** Waits `ms`: paces held faults (never used to wait for the operator). */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts the fake target; the operator's kubeconfig goes to `dir`. */
export async function startFakeTarget(dir: string): Promise<SoakTarget> {
  const server = await startFakeApiServer({ kubelet: { behaviour: devKubeletBehaviour }, anonymousAdmin: true });
  const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: Number(new URL(server.url).port) } });
  const kubeconfigPath = `${dir}/operator.kubeconfig`;
  await Deno.writeTextFile(kubeconfigPath, server.kubeconfig.replace(server.url, `http://127.0.0.1:${proxy.port}`), {
    mode: 0o600,
  });
  const holdMs = 5_000;
  return {
    name: "fake",
    store: fakeStore(server),
    kubeconfigPath,
    settleMs: 90_000,
    holdMs,
    inject: async (fault) => {
      switch (fault) {
        case "watch-cut":
          proxy.cutMidFrame();
          return;
        case "gone-410":
          server.faults.compact();
          server.faults.dropWatches();
          return;
        case "throttle-429":
          server.faults.inject({ code: 429, retryAfterSeconds: 1 });
          await sleep(holdMs);
          server.faults.clear();
          return;
        case "restart":
          await server.restart({ keepState: true });
          return;
      }
    },
    tick: () => Promise.resolve(),
    stop: async () => {
      await proxy.close();
      await server.stop();
    },
  };
}

/** Starts the real target (binaries from `binDir`, else the default cache); the operator's kubeconfig goes to `dir`. */
export async function startRealTarget(dir: string, binDir?: string): Promise<SoakTarget> {
  const plane = await startRealControlPlane({ binDir });
  const admin = new KubeClient({ config: await parseKubeconfig(plane.kubeconfig), userAgent: "kubeop-soak-harness" });
  const pem = (name: string) => Deno.readTextFile(`${plane.dir}/${name}`);
  const front: { tcp?: FaultProxy } = {};
  const http = HttpFaultProxy.start({
    upstream: plane.url,
    caCert: await pem("ca.crt"),
    cert: await pem("apiserver.crt"),
    key: await pem("apiserver.key"),
    countUserAgent: "-", // counts nothing: its request log would grow for hours
    onUpstreamDown: (port) => front.tcp?.reset(port),
  });
  const tcp = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: http.port } });
  front.tcp = tcp;
  const kubeconfigPath = `${dir}/operator.kubeconfig`;
  await Deno.writeTextFile(kubeconfigPath, plane.kubeconfig.replace(plane.url, `https://127.0.0.1:${tcp.port}`), {
    mode: 0o600,
  });
  const store = realStore(admin);
  const holdMs = 5_000;
  return {
    name: "real",
    store: {
      ...store,
      // Pods need the namespace's default ServiceAccount (admission): kube-controller-manager makes it.
      create: async (rt, obj, namespace) => {
        if (rt.kind === "Namespace") {
          await store.create(rt, obj, namespace);
          await eventually(`ServiceAccount ${obj.metadata.name}/default`, async () => {
            return await store.get(SERVICE_ACCOUNTS, "default", obj.metadata.name) !== undefined || undefined;
          }, { timeoutMs: 60_000, intervalMs: 200, retryErrors: true });
          return;
        }
        await store.create(rt, obj, namespace);
      },
    },
    kubeconfigPath,
    settleMs: 180_000,
    holdMs,
    inject: async (fault) => {
      switch (fault) {
        case "watch-cut":
          tcp.cutMidFrame();
          return;
        case "gone-410": {
          const list = await admin.list(CoreTypes.Namespace, { limit: 1 });
          http.expireWatches(Number(list.metadata?.resourceVersion));
          return;
        }
        case "throttle-429":
          http.inject({ code: 429, retryAfterSeconds: 1 });
          await sleep(holdMs);
          http.clear();
          return;
        case "restart":
          await plane.restart();
          return;
      }
    },
    tick: async () => {
      await playKubelet(admin, SOAK_SCOPE.namespace).catch(() => 0); // the server may be restarting
    },
    stop: async () => {
      await tcp.close();
      await http.close();
      admin.close();
      await plane.stop();
    },
  };
}

const SERVICE_ACCOUNTS = { ...CoreTypes.Pod, plural: "serviceaccounts", kind: "ServiceAccount" };
