/**
 * Installs CustomResourceDefinitions and waits until the API server serves their kinds: create, or bring an
 * existing copy up to date, then list each kind until it answers (a new CRD is served a moment after it is
 * created). `kubeop dev` uses it for the seed systems' CRDs, and the `dev` entry of `kubeop init` projects for theirs.
 * @module
 */

import type { KubeClient } from "./client/client.ts";
import { isAlreadyExists, isNotFound } from "./client/errors.ts";
import { type Clock, RealClock } from "./clock.ts";
import type { CustomResourceDefinition } from "./builtin_types.ts";
import { CoreTypes, type KubeObject } from "./types.ts";

/** Options of {@link installCrds}. */
export interface InstallCrdsOptions {
  /** Time for the wait (default the wall clock). */
  clock?: Clock;
  /** How long each kind may take to be served (default 30 s). */
  timeoutMs?: number;
}

/**
 * Creates (or updates) each CRD of `crds`, then waits until each kind can be listed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Type } from "@sinclair/typebox";
 * import { crdFromSchema, installCrds, type KubeObject } from "./mod.ts";
 * const crd = crdFromSchema({
 *   group: "example.com", version: "v1", kind: "Widget", plural: "widgets",
 *   spec: Type.Object({}), status: Type.Object({}),
 * });
 * const created: string[] = [];
 * // any client with create/get/update/list: a KubeClient in an operator
 * const client = {
 *   create: (_rt: unknown, obj: KubeObject) => (created.push(obj.metadata.name!), Promise.resolve(obj)),
 *   get: () => Promise.reject(new Error("not called")),
 *   update: () => Promise.reject(new Error("not called")),
 *   list: () => Promise.resolve({ apiVersion: "v1", kind: "List", metadata: {}, items: [] }),
 * };
 * await installCrds(client as never, [crd]);
 * assert.deepEqual(created, ["widgets.example.com"]);
 * ```
 */
export async function installCrds(
  client: Pick<KubeClient, "create" | "get" | "update" | "list">,
  crds: readonly KubeObject[],
  opts: InstallCrdsOptions = {},
): Promise<void> {
  for (const crd of crds) {
    try {
      await client.create(CoreTypes.CustomResourceDefinition, crd);
    } catch (err) {
      if (!isAlreadyExists(err)) throw new Error(`creating CRD ${crd.metadata.name}: ${(err as Error).message}`);
      // an older copy (a restored --data-dir, a previous version): bring it up to date
      const current = await client.get(CoreTypes.CustomResourceDefinition, crd.metadata.name!);
      await client.update(CoreTypes.CustomResourceDefinition, { ...crd, metadata: current.metadata });
    }
  }
  const clock = opts.clock ?? new RealClock();
  for (const crd of crds as readonly CustomResourceDefinition[]) {
    const deadline = clock.now() + (opts.timeoutMs ?? 30_000);
    const rt = {
      group: crd.spec.group,
      version: crd.spec.versions[0].name,
      plural: crd.spec.names.plural,
      kind: crd.spec.names.kind,
      namespaced: crd.spec.scope !== "Cluster",
    };
    for (;;) {
      try {
        await client.list(rt, { limit: 1 });
        break;
      } catch (err) {
        if (!isNotFound(err) || clock.now() > deadline) {
          throw new Error(`CRD ${crd.metadata.name} is not served: ${(err as Error).message}`);
        }
        await clock.sleep(50);
      }
    }
  }
}
