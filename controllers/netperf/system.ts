/**
 * The Netperf system's factories (../seed_system.ts): its controller and its admission webhooks.
 * @module
 */
import type { SeedSystem } from "../seed_system.ts";
import { netperfController } from "./controller.ts";
import { netperfWebhook } from "./webhook.ts";

/** Netperf's controller and webhooks. */
export const system: SeedSystem = {
  controllers: () => [netperfController()],
  webhooks: (deps) => [netperfWebhook(deps)],
};
