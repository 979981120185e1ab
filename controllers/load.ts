/**
 * Imports only the seed systems `kubeop run --controllers` chose: each system's modules (controller, schemas,
 * webhooks) are evaluated when it is loaded, so `--controllers machine` never evaluates At's, Netperf's or
 * MultiSecret's. The specifiers are string literals, so `deno bundle` still inlines every module.
 * @module
 */
import type { ControllerName, SeedSystem } from "./seed_system.ts";

const IMPORTS: Record<ControllerName, () => Promise<{ system: SeedSystem }>> = {
  machine: () => import("./machine/system.ts"),
  at: () => import("./at/system.ts"),
  netperf: () => import("./netperf/system.ts"),
  multisecret: () => import("./multisecret/system.ts"),
};

/**
 * The factories of `names`, in that order.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSeedSystems } from "./load.ts";
 * const [machine] = await loadSeedSystems(["machine"]);
 * assert.deepEqual(machine.webhooks({ client: { get: () => Promise.reject(), list: () => Promise.reject() } }), []);
 * ```
 */
export async function loadSeedSystems(names: readonly ControllerName[]): Promise<SeedSystem[]> {
  return await Promise.all(names.map(async (name) => (await IMPORTS[name]()).system));
}
