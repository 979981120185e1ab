/**
 * The Machine system's factories (../seed_system.ts): one controller, no webhooks.
 * @module
 */
import type { SeedSystem } from "../seed_system.ts";
import { machineController } from "./controller.ts";

/** Machine's controller. */
export const system: SeedSystem = {
  controllers: (deps) => [machineController(deps)],
  webhooks: () => [],
};
