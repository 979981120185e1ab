/**
 * The client a sharded reconcile writes through: every write passes the fence of the bucket the reconcile was
 * admitted for (runtime/shard/shard_gate.ts) — here, and again inside KubeClient right before each attempt is sent, after
 * throttling (the per-call `fence` option) — and every write to the reconciled object itself is made conditional on the
 * uid the reconcile was dispatched for — the name-level guard of docs/sharding.md. The queue is keyed by
 * namespace/name, but a bucket owns a uid: when the object is deleted and recreated under the same name, the new uid
 * may belong to another replica's bucket; a reconcile still running for the old uid then cannot touch the new object,
 * because the API server refuses the precondition (update and patch: `metadata.uid` in the body, "Precondition
 * failed: UID in precondition"; JSON patch: a `test` of `/metadata/uid`; delete: `preconditions.uid`).
 * Server-side apply bodies are left alone (a uid in an apply configuration would become a managed field).
 * @module
 */

import type {
  CreateOptions,
  DeleteOptions,
  ListOptions,
  NamespaceOption,
  PatchOptions,
  RawResponse,
  RequestOptions,
  UpdateOptions,
} from "../client/client.ts";
import type { ControllerClient } from "../controller/controller_client.ts";
import { ApiError, type CallInfo, failureStatus } from "../client/errors.ts";
import { resourceId } from "../apimachinery/names.ts";
import type { KubeList, KubeObject, ResourceType } from "../types.ts";
import type { WriteFence } from "../leader/write_fence.ts";

/** Options of {@link ShardFencedClient}. */
export interface ShardFencedClientOptions {
  /** Where calls go. */
  client: ControllerClient;
  /** The fence of the reconcile's bucket. */
  fence: WriteFence;
  /** The reconciled resource. */
  forType: ResourceType;
  /** The reconciled object's namespace (absent: cluster-scoped). */
  namespace?: string;
  /** The reconciled object's name. */
  name: string;
  /** The uid the reconcile was admitted for. */
  uid: string;
}

/**
 * A {@link ControllerClient} whose writes pass a bucket fence and carry the reconciled object's uid.
 *
 * @example
 * ```ts ignore
 * const client = new ShardFencedClient({ client, fence: ticket.fence, forType: MachineType, namespace: "ns", name: "m", uid: ticket.uid });
 * await client.patch(MachineType, "m", { status: { ready: true } }, { namespace: "ns", type: "merge", subresource: "status" });
 * // sent as {"status":{"ready":true},"metadata":{"uid":"<ticket.uid>"}}
 * ```
 */
export class ShardFencedClient implements ControllerClient {
  readonly #o: ShardFencedClientOptions;
  readonly #resource: string;

  /** Wraps `opts.client` for one sharded reconcile. */
  constructor(opts: ShardFencedClientOptions) {
    this.#o = opts;
    this.#resource = resourceId(opts.forType);
  }

  get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, opts?: NamespaceOption): Promise<T> {
    return this.#o.client.get<T>(rt, name, opts);
  }

  list<T extends KubeObject = KubeObject>(rt: ResourceType, opts?: ListOptions): Promise<KubeList<T>> {
    return this.#o.client.list<T>(rt, opts);
  }

  request(method: "GET", path: string, opts?: RequestOptions): Promise<RawResponse> {
    return this.#o.client.request(method, path, opts);
  }

  async create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: CreateOptions = {}): Promise<T> {
    this.#check("create", rt, obj.metadata.namespace ?? opts.namespace, obj.metadata.name);
    return await this.#o.client.create<T>(rt, obj, this.#fenced(opts));
  }

  async update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: UpdateOptions = {}): Promise<T> {
    return await this.#o.client.update<T>(rt, this.#withUid("update", rt, obj, opts.namespace), this.#fenced(opts));
  }

  async updateStatus<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: T,
    opts: NamespaceOption = {},
  ): Promise<T> {
    return await this.#o.client.updateStatus<T>(
      rt,
      this.#withUid("update", rt, obj, opts.namespace),
      this.#fenced(opts),
    );
  }

  async patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    this.#check("patch", rt, opts.namespace, name);
    if (!this.#isReconciled(rt, opts.namespace, name) || opts.type === "apply") {
      return await this.#o.client.patch<T>(rt, name, body, this.#fenced(opts));
    }
    const uid = this.#o.uid;
    let guarded = body;
    if (opts.type === "json" && Array.isArray(body)) {
      guarded = [{ op: "test", path: "/metadata/uid", value: uid }, ...body];
    } else if (body && typeof body === "object" && !Array.isArray(body)) {
      const b = body as { metadata?: Record<string, unknown> };
      if (b.metadata?.uid !== undefined && b.metadata.uid !== uid) {
        throw this.#uidMismatch("patch", name, b.metadata.uid);
      }
      guarded = { ...b, metadata: { ...(b.metadata ?? {}), uid } };
    }
    return await this.#o.client.patch<T>(rt, name, guarded, this.#fenced(opts));
  }

  async delete(rt: ResourceType, name: string, opts: DeleteOptions = {}): Promise<void> {
    this.#check("delete", rt, opts.namespace, name);
    if (!this.#isReconciled(rt, opts.namespace, name) || opts.preconditions?.uid) {
      return await this.#o.client.delete(rt, name, this.#fenced(opts));
    }
    const preconditions = { ...opts.preconditions, uid: this.#o.uid };
    return await this.#o.client.delete(rt, name, this.#fenced({ ...opts, preconditions }));
  }

  /** The options with the bucket's fence, which KubeClient checks again right before each attempt is sent. */
  #fenced<O extends NamespaceOption>(opts: O): O {
    return { ...opts, fence: this.#o.fence };
  }

  #check(verb: string, rt: ResourceType, namespace: string | undefined, name: string | undefined): void {
    const call: CallInfo = { verb, resource: resourceId(rt), namespace, name };
    this.#o.fence.check(call);
  }

  #isReconciled(rt: ResourceType, namespace: string | undefined, name: string | undefined): boolean {
    return resourceId(rt) === this.#resource && name === this.#o.name &&
      (namespace ?? "") === (this.#o.namespace ?? "");
  }

  #withUid<T extends KubeObject>(verb: string, rt: ResourceType, obj: T, namespace: string | undefined): T {
    const ns = obj.metadata.namespace ?? namespace;
    this.#check(verb, rt, ns, obj.metadata.name);
    if (!this.#isReconciled(rt, ns, obj.metadata.name)) return obj;
    const given = obj.metadata.uid;
    if (given && given !== this.#o.uid) throw this.#uidMismatch(verb, obj.metadata.name ?? "", given);
    return given ? obj : { ...obj, metadata: { ...obj.metadata, uid: this.#o.uid } };
  }

  /** A write for another uid than the reconcile's: refused locally with the API server's own Conflict wording. */
  #uidMismatch(verb: string, name: string, given: unknown): ApiError {
    return new ApiError(
      failureStatus(
        409,
        "Conflict",
        `Precondition failed: UID in precondition: ${this.#o.uid}, UID in object meta: ${String(given)} ` +
          `(the reconcile of ${this.#resource} ${this.#o.namespace ? `${this.#o.namespace}/` : ""}${this.#o.name} ` +
          `was dispatched for uid ${this.#o.uid})`,
      ),
      { verb, resource: this.#resource, namespace: this.#o.namespace, name },
    );
  }
}
