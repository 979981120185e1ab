/**
 * The vocabulary of the write path: a {@link Write} is one call of a client's write methods, taken apart so that the
 * steps a reconcile's writes pass — fence, uid guard, own-writes tracking — each see every write in one shape and are
 * written once, as {@link WriteInterceptor}s. The chain that runs them around a client is
 * runtime/controller/write_path.ts; the fence step and every other write-fence check are in
 * runtime/leader/write_fence.ts.
 * @module
 */

import type { CreateOptions, DeleteOptions, NamespaceOption, PatchOptions, UpdateOptions } from "./client_options.ts";
import type { CallInfo } from "./errors.ts";
import { resourceId } from "../apimachinery/names.ts";
import type { KubeObject, ResourceType } from "../types.ts";

/** One write, as the write interceptors see it; `verb` names the client method it becomes. */
export type Write =
  | { verb: "create"; rt: ResourceType; obj: KubeObject; opts: CreateOptions }
  | { verb: "update"; rt: ResourceType; obj: KubeObject; opts: UpdateOptions }
  | { verb: "updateStatus"; rt: ResourceType; obj: KubeObject; opts: NamespaceOption }
  | { verb: "patch"; rt: ResourceType; name: string; body: unknown; opts: PatchOptions }
  | { verb: "delete"; rt: ResourceType; name: string; opts: DeleteOptions };

/**
 * One step of the write path. `write` wraps each write: it may refuse it (throw), change it, and see what the server
 * answered; it passes the write on by calling `next` exactly once (or not at all, refusing it). `read` may change the
 * options of a read (get, list, raw GET) — e.g. to bind them to a signal.
 *
 * @example
 * ```ts
 * import type { WriteInterceptor } from "./write_interceptor.ts";
 * const logged: string[] = [];
 * const logWrites: WriteInterceptor = {
 *   async write(w, next) {
 *     const answer = await next(w);
 *     logged.push(`${w.verb} ${w.rt.plural}`);
 *     return answer;
 *   },
 * };
 * ```
 */
export interface WriteInterceptor {
  /** Wraps one write; `next` sends it on (to the next step, finally the client) and resolves with the answer. */
  write(w: Write, next: (w: Write) => Promise<unknown>): Promise<unknown>;
  /** The options a read goes out with (absent: unchanged). */
  read?<O extends { signal?: AbortSignal }>(opts: O): O;
}

/**
 * The namespace and name a write targets. Create and update take them from the object first (the uid guard and the
 * fence name what the write touches), the call options second.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeTarget } from "./write_interceptor.ts";
 * import { CoreTypes } from "../types.ts";
 * const w = { verb: "delete", rt: CoreTypes.ConfigMap, name: "a", opts: { namespace: "ns" } } as const;
 * assert.deepEqual(writeTarget(w), { namespace: "ns", name: "a" });
 * ```
 */
export function writeTarget(w: Write): { namespace: string | undefined; name: string | undefined } {
  if ("obj" in w) return { namespace: w.obj.metadata?.namespace ?? w.opts.namespace, name: w.obj.metadata?.name };
  return { namespace: w.opts.namespace, name: w.name };
}

/**
 * The write described for errors (a refused write names it): verb (`update` for status updates too), resource,
 * namespace, name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeCall } from "./write_interceptor.ts";
 * import { CoreTypes } from "../types.ts";
 * const w = { verb: "patch", rt: CoreTypes.ConfigMap, name: "a", body: {}, opts: { namespace: "ns", type: "merge" } } as const;
 * assert.deepEqual(writeCall(w), { verb: "patch", resource: "configmaps", namespace: "ns", name: "a" });
 * ```
 */
export function writeCall(w: Write): CallInfo {
  const verb = w.verb === "updateStatus" ? "update" : w.verb;
  return { verb, resource: resourceId(w.rt), ...writeTarget(w) };
}

/**
 * The write with `opts` (namespace, signal, fence) merged into its options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withWriteOptions } from "./write_interceptor.ts";
 * import { CoreTypes } from "../types.ts";
 * const signal = new AbortController().signal;
 * const w = { verb: "delete", rt: CoreTypes.ConfigMap, name: "a", opts: { namespace: "ns" } } as const;
 * assert.deepEqual(withWriteOptions(w, { signal }).opts, { namespace: "ns", signal });
 * ```
 */
export function withWriteOptions<W extends Write>(w: W, opts: NamespaceOption): W {
  return { ...w, opts: { ...w.opts, ...opts } };
}
