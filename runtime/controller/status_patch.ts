/**
 * The status write every controller ends its reconcile with: compute the status it wants, compare it with the
 * status it read, and merge-patch the `status` subresource only when something changed. The comparison is semantic
 * ({@link deepEqual}: object key order does not matter), because the cached object's keys come back in the
 * server's order while a freshly built status (setCondition, spreads) has the builder's order; a textual
 * comparison would send a no-op PATCH on every reconcile of a converged object.
 * @module
 */
import { deepEqual } from "../apimachinery/equality.ts";
import type { KubeObject, ResourceType } from "../types.ts";

/** The client call this module makes (KubeClient and test doubles implement it). */
export interface StatusPatcher {
  /** A merge patch of the `status` subresource. */
  patch(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: { namespace?: string; type: "merge"; subresource?: string },
  ): Promise<unknown>;
}

/** Options of {@link statusChanges} and {@link patchStatusIfChanged}. */
export interface StatusChangeOptions {
  /** Also remove (`null` in the patch) keys of the current status that `next` does not have. Default false. */
  removeAbsent?: boolean;
}

/**
 * The merge patch that turns status `current` into `next`: the keys whose values differ semantically (null for
 * keys `next` drops when `removeAbsent`), or undefined when nothing would change.
 *
 * @example
 * ```ts
 * import { statusChanges } from "./status_patch.ts";
 * statusChanges({ ready: true, conditions: [{ type: "Ready", status: "True" }] },
 *   { conditions: [{ status: "True", type: "Ready" }], ready: true }); // undefined: same status, other key order
 * statusChanges({ ready: false }, { ready: true }); // { ready: true }
 * ```
 */
export function statusChanges(
  current: Readonly<Record<string, unknown>> | undefined,
  next: Readonly<Record<string, unknown>>,
  opts: StatusChangeOptions = {},
): Record<string, unknown> | undefined {
  const have = current ?? {};
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined && !deepEqual(have[key], value)) patch[key] = value;
  }
  if (opts.removeAbsent) {
    for (const key of Object.keys(have)) {
      if (have[key] !== undefined && next[key] === undefined) patch[key] = null;
    }
  }
  return Object.keys(patch).length ? patch : undefined;
}

/**
 * Merge-patches `obj`'s status subresource with the keys of `next` that differ from `obj.status`; sends nothing
 * (and returns false) when the status is already `next`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes } from "../types.ts";
 * import { patchStatusIfChanged } from "./status_patch.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } }); // in a reconcile: ctx.client
 * const spec = { containers: [{ name: "web", image: "nginx" }] };
 * let pod = await client.create(CoreTypes.Pod, { metadata: { name: "web", namespace: "default" }, spec });
 * assert.equal(await patchStatusIfChanged(client, CoreTypes.Pod, pod, { message: "waiting" }), true); // sent
 * pod = await client.get(CoreTypes.Pod, "web", { namespace: "default" });
 * assert.equal(await patchStatusIfChanged(client, CoreTypes.Pod, pod, { message: "waiting" }), false); // nothing to send
 * client.close();
 * await cluster.stop();
 * ```
 */
export async function patchStatusIfChanged(
  client: StatusPatcher,
  rt: ResourceType,
  obj: KubeObject,
  next: Readonly<Record<string, unknown>>,
  opts: StatusChangeOptions = {},
): Promise<boolean> {
  const patch = statusChanges(obj.status as Record<string, unknown> | undefined, next, opts);
  if (!patch) return false;
  await client.patch(rt, obj.metadata.name!, { status: patch }, {
    namespace: obj.metadata.namespace,
    type: "merge",
    subresource: "status",
  });
  return true;
}
