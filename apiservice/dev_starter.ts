/**
 * The farm API inside `kubeop dev`: starts the farm server against the embedded fake API server (pods through an
 * informer, llamas in the ConfigMap kube-system/farm-llamas so `--data-dir` keeps them) and registers its router
 * in-process with `registerAggregatedApi` — a trusted path, since the fake server already authenticated and
 * authorized the caller. The farm server's own port does delegated auth against the dev server, as in a cluster: a
 * caller without credentials is system:anonymous, authorized by the dev server's RBAC (so 403 on llamas). Structurally
 * typed so apiservice/ does not import testing/.
 * @module
 */
import { KubeClient } from "../runtime/client/client.ts";
import type { Clock } from "../runtime/clock.ts";
import { InformerRegistry } from "../runtime/cache/informers.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { KubeFarmCluster, podCacheFromInformer } from "./kube_cluster.ts";
import { FARM_GROUP, FARM_VERSION } from "./llama.ts";
import { startRunnable } from "../runtime/manager/runnable.ts";
import { FarmApiServer } from "./mod.ts";

/** What `kubeop dev`'s fake API server offers (a subset of testing's FakeApiServer). */
export interface DevHost {
  /** Kubeconfig YAML of the dev server. */
  readonly kubeconfig: string;
  /** Serves `/apis/<group>/<version>` with `target`. */
  registerAggregatedApi(group: string, version: string, target: (req: Request) => Promise<Response>): void;
}

/** Options of {@link startFarmForDev}. */
export interface FarmDevOptions {
  /** Where the farm server's generated cert lives (default `.kubeop/farm-certs`). */
  certDir?: string;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock?: Clock;
  /** Default true: llamas persist in kube-system/farm-llamas of the dev server. */
  persist?: boolean;
  /** Told the farm server's own address (`https://127.0.0.1:<port>`) and serving CA once it listens. */
  onServing?: (farm: { url: string; caPEM: string }) => void;
}

/**
 * Starts the farm API for `kubeop dev`; returns its stop function (a `DevStarter`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../testing/mod.ts";
 * import { startFarmForDev } from "./dev_starter.ts";
 * const server = await startFakeApiServer({ anonymousAdmin: true }); // cli/dev.ts: DEFAULT_DEV_STARTERS.push(...)
 * const certDir = await Deno.makeTempDir();
 * const stop = await startFarmForDev(server, { certDir, persist: false });
 * const res = await fetch(`${server.url}/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly`);
 * assert.equal((await res.json()).spec.weight, 31.4);
 * await stop();
 * await server.stop();
 * await Deno.remove(certDir, { recursive: true });
 * ```
 */
export async function startFarmForDev(host: DevHost, opts: FarmDevOptions = {}): Promise<() => Promise<void>> {
  const client = new KubeClient({ config: await parseKubeconfig(host.kubeconfig), userAgent: "kubeop-farm-dev" });
  const ctrl = new AbortController();
  const informers = new InformerRegistry({ client, clock: opts.clock });
  const pods = podCacheFromInformer(informers.get<KubeObject>(CoreTypes.Pod));
  const running = informers.start(ctrl.signal);
  const farm = new FarmApiServer({
    port: 0,
    bindAddress: "127.0.0.1",
    certDir: opts.certDir,
    cluster: new KubeFarmCluster({ client, pods }),
    storage: opts.persist === false ? "memory" : "configmap",
    // Its own port authenticates and authorizes as in a cluster: TokenReview and SubjectAccessReview against the
    // dev server, x509 users from its client CA, anyone else system:anonymous under the dev server's RBAC.
    auth: "delegated",
    clock: opts.clock,
  });
  const farmStop = new AbortController();
  const serving = startRunnable(farm, farmStop.signal);
  try {
    await serving.ready;
    host.registerAggregatedApi(FARM_GROUP, FARM_VERSION, farm.handler);
    opts.onServing?.({ url: farm.url, caPEM: farm.caPEM });
    return async () => {
      farmStop.abort();
      await serving.done;
      ctrl.abort();
      await running;
      client.close();
    };
  } catch (err) {
    farmStop.abort();
    ctrl.abort();
    await running;
    client.close();
    throw err;
  }
}
