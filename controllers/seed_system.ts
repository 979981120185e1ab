/**
 * The names of the four seed systems and the shape each exports from its `system.ts`: its controller and webhook
 * factories. {@link CONTROLLER_NAMES} lives apart from the systems so that `kubeop run` can validate
 * `--controllers` without evaluating them, and then import only the ones chosen (./load.ts).
 * @module
 */

import type { KubeClient } from "../runtime/client/client.ts";
import type { InformerSource } from "../runtime/controller/controller.ts";
import type { ControllerRunnable } from "../runtime/manager/runnable.ts";
import type { RegisteredWebhook } from "../runtime/webhook/webhook.ts";

/** Names accepted by `kubeop run --controllers`. */
export const CONTROLLER_NAMES = ["machine", "at", "netperf", "multisecret"] as const;
/** One controller name. */
export type ControllerName = typeof CONTROLLER_NAMES[number];

/** What the factories need at construction time (map functions read other caches). */
export interface SeedControllerDeps {
  /** The manager's shared caches (map functions read other kinds from them). */
  informers: InformerSource;
}

/** What webhook factories need: a client for the lookups their rules make. */
export interface SeedWebhookDeps {
  /** Reads what a rule needs (Nodes for Netperf). */
  client: Pick<KubeClient, "get" | "list">;
}

/** One seed system's factories. Each returns controllers without services: `Manager.add` provides them. */
export interface SeedSystem {
  /** Its controllers. */
  controllers: (deps: SeedControllerDeps) => ControllerRunnable[];
  /** Its admission and conversion webhooks, registered next to the controller of the same kind. */
  webhooks: (deps: SeedWebhookDeps) => RegisteredWebhook[];
}
