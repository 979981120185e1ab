/**
 * All CustomResourceDefinitions of the seed systems, in a stable order: the source of `kubeop crds` and crds/*.yaml.
 * @module
 */

import type { CustomResourceDefinition } from "../runtime/builtin_types.ts";
import { atCrds } from "./at/schema.ts";
import { machineCrds } from "./machine/schema.ts";
import { multiSecretCrds } from "./multisecret/schema.ts";
import { netperfCrds } from "./netperf/schema.ts";

/**
 * Every CRD the four controllers serve.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { crdManifests } from "./crds.ts";
 * assert.ok(crdManifests().some((c) => c.metadata.name === "machines.useless.container.training"));
 * ```
 */
export function crdManifests(): CustomResourceDefinition[] {
  return [...machineCrds(), ...atCrds(), ...netperfCrds(), ...multiSecretCrds()];
}
