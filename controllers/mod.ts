/**
 * The four seed systems: their CRDs ({@link crdManifests}) and controller factories ({@link CONTROLLERS}), which
 * `kubeop dev` and `kubeop run --controllers` register.
 * @module
 */

import type { ControllerRunnable } from "../runtime/manager/runnable.ts";
import type { RegisteredWebhook } from "../runtime/webhook/webhook.ts";
import { RBAC as AT_RBAC } from "./at/controller.ts";
import { system as at } from "./at/system.ts";
import { RBAC as MACHINE_RBAC } from "./machine/controller.ts";
import { system as machine } from "./machine/system.ts";
import { RBAC as MULTISECRET_RBAC } from "./multisecret/controller.ts";
import { system as multisecret } from "./multisecret/system.ts";
import { RBAC as NETPERF_RBAC } from "./netperf/controller.ts";
import { system as netperf } from "./netperf/system.ts";
import { type RbacRule, RUNTIME_RBAC } from "./rbac.ts";
import type { ControllerName, SeedControllerDeps, SeedWebhookDeps } from "./seed_system.ts";

export { crdManifests } from "./crds.ts";
export {
  CONTROLLER_NAMES,
  type ControllerName,
  type SeedControllerDeps,
  type SeedSystem,
  type SeedWebhookDeps,
} from "./seed_system.ts";

/**
 * Controller factories by name. Each returns controllers without services: `Manager.add` provides them (client,
 * recorder, clock, admission).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeClient, Manager } from "../runtime/mod.ts";
 * import { CONTROLLER_NAMES, CONTROLLERS } from "./mod.ts";
 * const client = new KubeClient({ config: { server: "https://127.0.0.1:6443" } }); // loadClusterConfig() in a program
 * const manager = new Manager({ client });
 * for (const name of CONTROLLER_NAMES) for (const c of CONTROLLERS[name]({ informers: manager.informers })) manager.add(c);
 * assert.deepEqual([...CONTROLLER_NAMES], ["machine", "at", "netperf", "multisecret"]); // manager.start(signal) runs them
 * client.close();
 * ```
 */
export const CONTROLLERS: Record<ControllerName, (deps: SeedControllerDeps) => ControllerRunnable[]> = {
  machine: machine.controllers,
  at: at.controllers,
  netperf: netperf.controllers,
  multisecret: multisecret.controllers,
};

/**
 * Admission and conversion webhooks by controller name, registered next to the controller of the same kind:
 * `kubeop run --controllers netperf` serves Netperf's webhooks, `kubeop webhooks` prints their configurations.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webhookConfigurations } from "../runtime/mod.ts";
 * import { FakeCluster } from "../testing/mod.ts";
 * import { CONTROLLER_NAMES, WEBHOOKS } from "./mod.ts";
 * const { client } = new FakeCluster(); // a KubeClient in `kubeop run`
 * const webhooks = CONTROLLER_NAMES.flatMap((name) => WEBHOOKS[name]({ client }));
 * const names = webhookConfigurations(webhooks).map((c) => c.metadata.name); // what `kubeop webhooks` prints
 * assert.deepEqual(names, ["kubeop-validating-webhook-configuration", "kubeop-mutating-webhook-configuration"]);
 * ```
 */
export const WEBHOOKS: Record<ControllerName, (deps: SeedWebhookDeps) => RegisteredWebhook[]> = {
  machine: machine.webhooks,
  at: at.webhooks,
  netperf: netperf.webhooks,
  multisecret: multisecret.webhooks,
};

/** The API calls each system makes (deploy/rbac/ is their union plus {@link RUNTIME_RBAC}). */
export const RBAC_BY_CONTROLLER: Record<ControllerName, readonly RbacRule[]> = {
  machine: MACHINE_RBAC,
  at: AT_RBAC,
  netperf: NETPERF_RBAC,
  multisecret: MULTISECRET_RBAC,
};

/** Everything the operator's ClusterRole must allow. */
export function allRbacRules(): RbacRule[] {
  return [...Object.values(RBAC_BY_CONTROLLER).flat(), ...RUNTIME_RBAC];
}
