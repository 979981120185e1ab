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
 * ```ts ignore
 * import { deleteIgnoringNotFound } from "./delete_ignoring_not_found.ts";
 * const deleted = await deleteIgnoringNotFound(ctx.client, CoreTypes.Pod, "web-1", {
 *   namespace: "default",
 *   preconditions: { uid: pod.metadata.uid },
 * });
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
