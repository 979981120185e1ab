/**
 * The four seed systems: their CRDs ({@link crdManifests}) and controller factories ({@link CONTROLLERS}), which
 * `kubeop dev` and `kubeop run --controllers` register.
 * @module
 */

import type { KubeClient } from "../runtime/client/client.ts";
import type { InformerSource } from "../runtime/controller/controller.ts";
import type { ControllerRunnable } from "../runtime/manager/runnable.ts";
import type { RegisteredWebhook } from "../runtime/webhook/webhook.ts";
import { atController, RBAC as AT_RBAC } from "./at/controller.ts";
import { atConversionWebhook } from "./at/conversion.ts";
import { machineController, RBAC as MACHINE_RBAC } from "./machine/controller.ts";
import { multiSecretController, RBAC as MULTISECRET_RBAC } from "./multisecret/controller.ts";
import { multiSecretWebhook } from "./multisecret/webhook.ts";
import { netperfController, RBAC as NETPERF_RBAC } from "./netperf/controller.ts";
import { netperfWebhook } from "./netperf/webhook.ts";
import { type RbacRule, RUNTIME_RBAC } from "./rbac.ts";

export { crdManifests } from "./crds.ts";

/** Names accepted by `kubeop run --controllers`. */
export const CONTROLLER_NAMES = ["machine", "at", "netperf", "multisecret"] as const;
/** One controller name. */
export type ControllerName = typeof CONTROLLER_NAMES[number];

/** What the factories need at construction time (map functions read other caches). */
export interface SeedControllerDeps {
  /** The manager's shared caches (map functions read other kinds from them). */
  informers: InformerSource;
}

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
  machine: (deps) => [machineController(deps)],
  at: () => [atController()],
  netperf: () => [netperfController()],
  multisecret: (deps) => [multiSecretController(deps)],
};

/** What webhook factories need: a client for the lookups their rules make. */
export interface SeedWebhookDeps {
  /** Reads what a rule needs (Nodes for Netperf). */
  client: Pick<KubeClient, "get" | "list">;
}

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
  machine: () => [],
  at: () => [atConversionWebhook()],
  netperf: (deps) => [netperfWebhook(deps)],
  multisecret: (deps) => [multiSecretWebhook(deps)],
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
