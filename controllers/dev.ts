/**
 * What `kubeop dev` adds for the seed systems: install (or update) every CRD — a converting CRD with its
 * webhook-converted versions only when its conversion webhook is served here — serve the controllers' admission and
 * conversion webhooks on 127.0.0.1 (registered by `clientConfig.url` with an in-memory CA, as kube-apiserver on the
 * same host would need them), then run all four controllers in a Manager against the dev server. `cli/dev.ts` calls
 * {@link startSeedControllers} as one of its starters.
 * @module
 */

import { KubeClient } from "../runtime/client/client.ts";
import type { Clock } from "../runtime/clock.ts";
import { installCrds } from "../runtime/crd_install.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { type LoopbackWebhooks, startLoopbackWebhooks } from "../runtime/webhook/loopback.ts";
import { convertingCrdNames } from "../runtime/webhook/manifests.ts";
import { crdManifests } from "./crds.ts";
import { CONTROLLER_NAMES, type ControllerName, CONTROLLERS, WEBHOOKS } from "./mod.ts";
import { simulatedNetperf } from "./netperf/simulation.ts";

/**
 * The fake kubelet's behaviour for `kubeop dev` (`startFakeApiServer({ kubelet: { behaviour: devKubeletBehaviour } })`):
 * netserver stays up, the netperf client prints a result; every other container keeps the kubelet's default.
 */
export const devKubeletBehaviour = simulatedNetperf;

/** Options of {@link startSeedControllers}. */
export interface SeedControllersOptions {
  /** Kubeconfig YAML of the cluster (the dev server's `kubeconfig`). */
  kubeconfig: string;
  /** Which controllers; default all four. */
  controllers?: readonly ControllerName[];
  /** Time for the controllers; default the wall clock. */
  clock?: Clock;
  /** Serve and register the controllers' webhooks on 127.0.0.1 (default true). */
  webhooks?: boolean;
  /** Told where the webhooks listen (`https://127.0.0.1:<port>`) once they serve (for the startup lines). */
  onWebhooksServing?: (url: string) => void;
}

/**
 * Installs the CRDs and starts the controllers; resolves once they run, with a function that stops them.
 * @example
 * ```ts
 * import { CoreTypes, KubeClient } from "../runtime/mod.ts";
 * import { eventually, startFakeApiServer } from "../testing/mod.ts";
 * import { startSeedControllers } from "./dev.ts";
 * import { MultiSecretType } from "./multisecret/schema.ts";
 * const server = await startFakeApiServer({ anonymousAdmin: true });
 * const stop = await startSeedControllers({ kubeconfig: server.kubeconfig, controllers: ["multisecret"], webhooks: false });
 * const client = new KubeClient({ config: { server: server.url } });
 * await client.create(MultiSecretType, {
 *   metadata: { name: "hello", namespace: "default" },
 *   spec: { stringData: { greeting: "hi" } },
 * });
 * await eventually("the Secret is copied into kube-system", async () => {
 *   const secrets = await client.list(CoreTypes.Secret, { namespace: "kube-system" });
 *   return secrets.items.some((s) => s.metadata.name === "hello");
 * });
 * await stop();
 * client.close();
 * await server.stop();
 * ```
 */
export async function startSeedControllers(opts: SeedControllersOptions): Promise<() => Promise<void>> {
  const client = new KubeClient({ config: await parseKubeconfig(opts.kubeconfig), clock: opts.clock });
  const controllers = opts.controllers ?? CONTROLLER_NAMES;
  const webhooks = opts.webhooks === false ? [] : controllers.flatMap((name) => WEBHOOKS[name]({ client }));
  try {
    // A version that needs the conversion webhook is served only when the webhook is (registered just below).
    await installCrds(client, crdManifests({ converting: convertingCrdNames(webhooks) }), { clock: opts.clock });
  } catch (err) {
    client.close();
    throw err;
  }
  let served: LoopbackWebhooks | undefined;
  try {
    if (webhooks.length) served = await startLoopbackWebhooks({ webhooks, client });
    if (served) opts.onWebhooksServing?.(served.url);
  } catch (err) {
    client.close();
    throw new Error(`kubeop dev: serving the webhooks: ${(err as Error).message}`);
  }
  const manager = new Manager({ client, clock: opts.clock });
  for (const name of controllers) {
    for (const controller of CONTROLLERS[name]({ informers: manager.informers })) manager.add(controller);
  }
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  return async () => {
    stop.abort();
    await running.catch(() => {});
    await served?.stop();
    client.close();
  };
}
