/**
 * Deleting an object that may already be gone: controllers delete children they no longer want, and the child may
 * have been deleted by someone else (or by garbage collection) since the cache showed it. NotFound is then
 * success; every other error (a failed uid precondition included) propagates.
 * @module
 */
import type { DeleteOptions } from "./client.ts";
import { isNotFound } from "./errors.ts";
import type { ResourceType } from "../types.ts";

/** The client call this module makes (KubeClient and test doubles implement it). */
export interface Deleter {
  /** DELETE one object. */
  delete(rt: ResourceType, name: string, opts?: DeleteOptions): Promise<unknown>;
}

/**
 * Deletes `name`; true when this call deleted it, false when it was already gone (NotFound).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { CoreTypes, type KubeObject } from "../types.ts";
 * import { KubeClient } from "./client.ts";
 * import { deleteIgnoringNotFound } from "./delete_ignoring_not_found.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } }); // in a reconcile: ctx.client
 * const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "old", namespace: "default" } });
 * const opts = { namespace: "default", preconditions: { uid: cm.metadata.uid } };
 * assert.equal(await deleteIgnoringNotFound(client, CoreTypes.ConfigMap, "old", opts), true);
 * assert.equal(await deleteIgnoringNotFound(client, CoreTypes.ConfigMap, "old", opts), false); // already gone
 * client.close();
 * await cluster.stop();
 * ```
 */
export async function deleteIgnoringNotFound(
  client: Deleter,
  rt: ResourceType,
  name: string,
  opts: DeleteOptions = {},
): Promise<boolean> {
  try {
    await client.delete(rt, name, opts);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
