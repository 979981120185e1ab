/**
 * The MultiSecret system's factories (../seed_system.ts): its controller and its admission webhook.
 * @module
 */
import type { SeedSystem } from "../seed_system.ts";
import { multiSecretController } from "./controller.ts";
import { multiSecretWebhook } from "./webhook.ts";

/** MultiSecret's controller and webhook. */
export const system: SeedSystem = {
  controllers: (deps) => [multiSecretController(deps)],
  webhooks: (deps) => [multiSecretWebhook(deps)],
};
