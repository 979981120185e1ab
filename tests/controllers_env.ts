/**
 * Shared setup for the controller integration tests: a fake API server with every CRD installed, a KubeClient,
 * and a Manager running the chosen seed controllers — all on one injected clock.
 */

import { eventually } from "../testing/eventually.ts";
import { type ControllerName, CONTROLLERS, crdManifests } from "../controllers/mod.ts";
import type { KubeClient } from "../runtime/client/client.ts";
import type { Clock } from "../runtime/clock.ts";
import { isNotFound } from "../runtime/client/errors.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../runtime/types.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import type { FakeKubeletOptions } from "../testing/apiserver/kubelet.ts";
import { startFakeEnv } from "./support/fake_env.ts";

/** A running test environment. */
export interface ControllerEnv {
  server: FakeApiServer;
  client: KubeClient;
  manager: Manager | undefined;
  /** Starts (or restarts, after {@link ControllerEnv.stopManager}) the manager with the chosen controllers. */
  startManager(): void;
  /** Stops the manager (a controller restart in the middle of a test). */
  stopManager(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the server, installs the CRDs, runs `controllers`. */
export async function startEnv(
  opts: { controllers: ControllerName[]; clock?: Clock; kubelet?: boolean | FakeKubeletOptions; namespaces?: string[] },
): Promise<ControllerEnv> {
  const fake = await startFakeEnv({ clock: opts.clock, kubelet: opts.kubelet });
  const { server, client } = fake;
  for (const crd of crdManifests()) await client.create(CoreTypes.CustomResourceDefinition, crd);
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;
  const env: ControllerEnv = {
    server,
    client,
    manager: undefined,
    startManager() {
      const manager = new Manager({
        client,
        clock: opts.clock,
        cacheSyncTimeoutMs: 10_000,
        namespaces: opts.namespaces,
      });
      for (const name of opts.controllers) {
        for (const c of CONTROLLERS[name]({ informers: manager.informers })) manager.add(c);
      }
      stop = new AbortController();
      running = manager.start(stop.signal);
      env.manager = manager;
    },
    async stopManager() {
      stop?.abort();
      await running;
      env.manager = undefined;
    },
    async close() {
      await env.stopManager();
      await fake.close();
    },
  };
  env.startManager();
  return env;
}

/**
 * {@link eventually} with this suite's defaults: 30 s (the suite runs in parallel on small machines), an error
 * means "not yet".
 */
export function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: { timeoutMs?: number } = {},
): Promise<T> {
  return eventually(what, probe, { timeoutMs: 30_000, retryErrors: true, ...opts }) as Promise<T>;
}

/** GET or undefined on 404. */
export async function getOrUndefined<T extends KubeObject = KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  name: string,
  namespace = "default",
): Promise<T | undefined> {
  try {
    return await client.get<T>(rt, name, { namespace });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
