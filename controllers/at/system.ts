/**
 * The At system's factories (../seed_system.ts): its controller and its conversion webhook.
 * @module
 */
import type { SeedSystem } from "../seed_system.ts";
import { atController } from "./controller.ts";
import { atConversionWebhook } from "./conversion.ts";

/** At's controller and conversion webhook. */
export const system: SeedSystem = {
  controllers: () => [atController()],
  webhooks: () => [atConversionWebhook()],
};
