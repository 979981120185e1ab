/**
 * The narrow client a reconcile talks to (`ReconcileContext.client`): uncached reads and the writes controllers make,
 * nothing else. {@link KubeClient} implements it, so does the per-reconcile write chain (write_path.ts
 * `WriteChainClient`) that records read-your-own-writes expectations, and so does the unit-test double
 * (testing/unit/fake_client.ts). Every method is classified as a read or a write below; the compiler refuses a method
 * that is neither, and write_path_test.ts checks that every write records an expectation — a new write method cannot
 * bypass the tracking unnoticed.
 * @module
 */

import type {
  CreateOptions,
  DeleteOptions,
  KubeClient,
  ListOptions,
  NamespaceOption,
  PatchOptions,
  RawResponse,
  RequestOptions,
  UpdateOptions,
} from "../client/client.ts";
import type { KubeList, KubeObject, ResourceType } from "../types.ts";

/**
 * What a reconcile may do with the cluster besides reading its caches.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeCluster } from "../../testing/mod.ts";
 * import { CoreTypes } from "../types.ts";
 * import { type Action, done, type ReconcileContext } from "./reconcile.ts";
 * async function reconcile(ctx: ReconcileContext): Promise<Action> {
 *   const pod = await ctx.client.get(CoreTypes.Pod, ctx.name, { namespace: ctx.namespace }); // uncached read
 *   await ctx.client.patch(CoreTypes.Pod, ctx.name, { status: { message: `seen ${pod.metadata.name}` } }, {
 *     namespace: ctx.namespace,
 *     type: "merge",
 *     subresource: "status",
 *   });
 *   return done();
 * }
 * const cluster = new FakeCluster(); // its context's client is a ControllerClient, as the Manager's is
 * cluster.create(CoreTypes.Pod, {
 *   metadata: { name: "p", namespace: "default" },
 *   spec: { containers: [{ name: "c", image: "busybox" }] },
 * });
 * await reconcile(cluster.context(CoreTypes.Pod, "default/p"));
 * assert.deepEqual(cluster.writes().map((w) => `${w.verb} ${w.resource}/${w.subresource}`), ["patch pods/status"]);
 * ```
 */
export interface ControllerClient {
  /** Uncached GET of one object (prefer the informer cache). */
  get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, opts?: NamespaceOption): Promise<T>;
  /** Uncached list (prefer the informer cache). */
  list<T extends KubeObject = KubeObject>(rt: ResourceType, opts?: ListOptions): Promise<KubeList<T>>;
  /** A raw GET (e.g. `pods/log`). Raw writes are not offered: they would bypass read-your-own-writes tracking. */
  request(method: "GET", path: string, opts?: RequestOptions): Promise<RawResponse>;
  /** POST a new object. */
  create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts?: CreateOptions): Promise<T>;
  /** PUT the object (its resourceVersion is the precondition). */
  update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts?: UpdateOptions): Promise<T>;
  /** PUT the status subresource. */
  updateStatus<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts?: NamespaceOption): Promise<T>;
  /** PATCH (merge, JSON patch, strategic merge or server-side apply), optionally of a subresource. */
  patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T>;
  /** DELETE. */
  delete(rt: ResourceType, name: string, opts?: DeleteOptions): Promise<void>;
}

/** The {@link ControllerClient} methods that only read. */
export const CONTROLLER_CLIENT_READS = ["get", "list", "request"] as const;

/** The {@link ControllerClient} methods that write: each must record a read-your-own-writes expectation. */
export const CONTROLLER_CLIENT_WRITES = ["create", "update", "updateStatus", "patch", "delete"] as const;

/** One of {@link CONTROLLER_CLIENT_WRITES}. */
export type ControllerClientWrite = typeof CONTROLLER_CLIENT_WRITES[number];

type Classified = typeof CONTROLLER_CLIENT_READS[number] | ControllerClientWrite;
// Fails to compile when ControllerClient gains a method that is listed as neither a read nor a write.
const _everyMethodClassified: [Exclude<keyof ControllerClient, Classified>] extends [never] ? true : never = true;
// Fails to compile when KubeClient stops satisfying the narrow interface.
const _kubeClientFits = (c: KubeClient): ControllerClient => c;
