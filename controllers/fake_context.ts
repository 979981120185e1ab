/**
 * An in-memory cluster for unit tests of reconcile functions: a store with create/get/update/merge-patch/delete
 * (generateName, uid, resourceVersion, generation, status subresource, finalizers, ownerReference cascade,
 * resourceVersion and uid preconditions), informers that read it synchronously, a recording EventRecorder and a
 * VirtualClock. Integration tests use the real fake API server (testing/); this one only makes a reconcile
 * function's decisions cheap to check step by step.
 * @module
 */

import { getLogger } from "@logtape/logtape";
import type {
  CreateOptions,
  DeleteOptions,
  ListOptions,
  NamespaceOption,
  PatchOptions,
  RawResponse,
  UpdateOptions,
} from "../runtime/client.ts";
import { VirtualClock } from "../runtime/clock.ts";
import type { ControllerClient } from "../runtime/controller_client.ts";
import type { InformerLike, InformerOptions, InformerSource, ReconcileContext } from "../runtime/controller.ts";
import { ApiError, failureStatus } from "../runtime/errors.ts";
import type { EventInput } from "../runtime/events.ts";
import { parseLabelSelector } from "../runtime/apimachinery/label_selector.ts";
import { applyMergePatch } from "../runtime/apimachinery/merge_patch.ts";
import { type KubeList, type KubeObject, objectKey, type ResourceType, splitKey } from "../runtime/types.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One recorded client call. */
export interface Call {
  /** create, get, list, update, patch or delete. */
  verb: string;
  /** Resource plural. */
  resource: string;
  /** `namespace/name` (`generateName*` for generated names). */
  key: string;
  /** `status` for status writes. */
  subresource?: string;
}

/** Informer stores hand out frozen objects (as runtime/cache.ts does), so a reconcile that mutates one fails here. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const rtId = (rt: ResourceType) => `${rt.group}/${rt.plural}`;

function apiError(code: number, reason: string, message: string, verb: string, rt: ResourceType): ApiError {
  return new ApiError(failureStatus(code, reason, message), { verb, resource: rt.plural });
}

/** The in-memory cluster. */
export class FakeCluster {
  /** Time for the cluster and the reconciles. */
  readonly clock: VirtualClock;
  /** Events recorded through the contexts' recorder. */
  readonly events: { regarding: string; input: EventInput }[] = [];
  /** Every client call, in order. */
  readonly calls: Call[] = [];
  /** Pod logs served for `GET .../pods/<name>/log` (`namespace/name` → text); absent → 404. */
  readonly podLogs = new Map<string, string>();
  /** How many times a reconcile listed each resource's informer store (`plural` → count): scans, not index reads. */
  readonly storeLists = new Map<string, number>();
  #indexes = new Map<string, Map<string, (obj: KubeObject) => string[]>>();
  #objects = new Map<string, Map<string, KubeObject>>();
  #types = new Map<string, ResourceType>();
  #rv = 1;
  #uid = 1;
  #names = 1;

  /** An empty cluster whose virtual clock starts at `opts.startMs` (epoch ms). */
  constructor(opts: { startMs?: number } = {}) {
    this.clock = new VirtualClock(opts.startMs);
  }

  #bucket(rt: ResourceType): Map<string, KubeObject> {
    const id = rtId(rt);
    this.#types.set(id, rt);
    let m = this.#objects.get(id);
    if (!m) this.#objects.set(id, m = new Map());
    return m;
  }

  /** All objects of `rt` (copies). */
  list(rt: ResourceType, namespace?: string): KubeObject[] {
    return [...this.#bucket(rt).values()]
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .map((o) => structuredClone(o));
  }

  /** One object (a copy) or undefined. */
  get(rt: ResourceType, key: string): KubeObject | undefined {
    const o = this.#bucket(rt).get(key);
    return o && structuredClone(o);
  }

  /** Creates an object as a user would (status kept as given). */
  create(rt: ResourceType, obj: KubeObject): KubeObject {
    const m = this.#bucket(rt);
    const o: KubeObject = structuredClone({
      apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version,
      kind: rt.kind,
      ...obj,
    });
    if (!o.metadata.name && o.metadata.generateName) {
      o.metadata.name = `${o.metadata.generateName}${(this.#names++).toString(36).padStart(5, "0")}`;
    }
    const key = objectKey(o);
    if (m.has(key)) {
      throw apiError(409, "AlreadyExists", `${rt.plural} "${o.metadata.name}" already exists`, "create", rt);
    }
    o.metadata.uid = `uid-${this.#uid++}`;
    o.metadata.resourceVersion = String(this.#rv++);
    o.metadata.generation = 1;
    o.metadata.creationTimestamp = new Date(this.clock.now() + this.#uid).toISOString();
    m.set(key, o);
    return structuredClone(o);
  }

  #write(rt: ResourceType, next: KubeObject, old: KubeObject): KubeObject {
    if (JSON.stringify(next.spec) !== JSON.stringify(old.spec)) {
      next.metadata.generation = (old.metadata.generation ?? 1) + 1;
    }
    next.metadata.resourceVersion = String(this.#rv++);
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers?.length)) {
      this.#remove(rt, objectKey(next));
      return next;
    }
    this.#bucket(rt).set(objectKey(next), next);
    return structuredClone(next);
  }

  /** Merge-patches an object (`status` subresource: only status changes; else status is ignored). */
  patch(rt: ResourceType, key: string, body: Json, subresource?: string): KubeObject {
    const old = this.#bucket(rt).get(key);
    if (!old) throw apiError(404, "NotFound", `${rt.plural} "${key}" not found`, "patch", rt);
    const rv = body?.metadata?.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) {
      throw apiError(409, "Conflict", "the object has been modified", "patch", rt);
    }
    const merged = applyMergePatch(old, body) as KubeObject;
    const next: KubeObject = subresource === "status"
      ? { ...structuredClone(old), status: merged.status }
      : { ...merged, status: structuredClone(old.status) };
    if (next.status === undefined) delete next.status;
    next.metadata = {
      ...next.metadata,
      uid: old.metadata.uid,
      name: old.metadata.name,
      namespace: old.metadata.namespace,
    };
    return this.#write(rt, next, old);
  }

  /** PUT (`status` subresource: only status changes; else status is ignored). */
  update(rt: ResourceType, obj: KubeObject, subresource?: "status"): KubeObject {
    const key = objectKey(obj);
    const old = this.#bucket(rt).get(key);
    if (!old) throw apiError(404, "NotFound", `${rt.plural} "${key}" not found`, "update", rt);
    if (obj.metadata.resourceVersion !== old.metadata.resourceVersion) {
      throw apiError(409, "Conflict", "the object has been modified", "update", rt);
    }
    const next = subresource === "status"
      ? { ...structuredClone(old), status: structuredClone(obj.status) }
      : { ...structuredClone(obj), status: structuredClone(old.status) };
    return this.#write(rt, next, old);
  }

  /** Deletes (or marks for deletion when finalizers remain); cascades to controller-owned dependents. */
  delete(rt: ResourceType, key: string, preconditions?: { uid?: string }): void {
    const old = this.#bucket(rt).get(key);
    if (!old) throw apiError(404, "NotFound", `${rt.plural} "${key}" not found`, "delete", rt);
    if (preconditions?.uid && preconditions.uid !== old.metadata.uid) {
      throw apiError(409, "Conflict", "precondition failed: uid", "delete", rt);
    }
    if (old.metadata.finalizers?.length) {
      if (!old.metadata.deletionTimestamp) {
        old.metadata.deletionTimestamp = new Date(this.clock.now()).toISOString();
        old.metadata.resourceVersion = String(this.#rv++);
      }
      return;
    }
    this.#remove(rt, key);
  }

  #remove(rt: ResourceType, key: string): void {
    const old = this.#bucket(rt).get(key);
    if (!old) return;
    this.#bucket(rt).delete(key);
    for (const [id, m] of this.#objects) {
      for (const [k, o] of [...m]) {
        if (o.metadata.ownerReferences?.some((r) => r.uid === old.metadata.uid)) this.delete(this.#types.get(id)!, k);
      }
    }
  }

  /** Informers reading this cluster (label selectors as runtime/apimachinery parses them). */
  readonly informers: InformerSource = {
    get: <T extends KubeObject = KubeObject>(rt: ResourceType, opts?: InformerOptions): InformerLike<T> => {
      const selects = parseLabelSelector(opts?.labelSelector);
      const ok = (o: KubeObject) => selects(o.metadata.labels);
      return {
        resource: rt,
        store: {
          get: (key) => {
            const o = this.get(rt, key);
            return o && ok(o) ? deepFreeze(o) as T : undefined;
          },
          list: (ns) => {
            this.storeLists.set(rt.plural, (this.storeLists.get(rt.plural) ?? 0) + 1);
            return this.list(rt, ns).filter(ok).map(deepFreeze) as T[];
          },
          byIndex: (index, value) => {
            const fn = this.#indexFunc(rt, index);
            return this.list(rt).filter((o) => ok(o) && fn(o).includes(value)).map(deepFreeze) as T[];
          },
        },
        addIndex: (name, fn) => {
          let m = this.#indexes.get(rtId(rt));
          if (!m) this.#indexes.set(rtId(rt), m = new Map());
          m.set(name, fn as (obj: KubeObject) => string[]);
        },
        addHandler: () => () => {},
        hasSynced: () => true,
        waitForSync: () => Promise.resolve(),
      };
    },
  };

  /** The index `name` of `rt`: runtime/store.ts's built-ins (namespace, owner uid, label `k=v`) or one added. */
  #indexFunc(rt: ResourceType, name: string): (obj: KubeObject) => string[] {
    switch (name) {
      case "namespace":
        return (o) => [o.metadata.namespace ?? ""];
      case "owner":
        return (o) => (o.metadata.ownerReferences ?? []).map((r) => r.uid);
      case "label":
        return (o) => Object.entries(o.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`);
    }
    const fn = this.#indexes.get(rtId(rt))?.get(name);
    if (!fn) throw new Error(`FakeCluster: no index "${name}" on ${rt.plural}`);
    return fn;
  }

  /** The controllers' client ({@link ControllerClient}), backed by this cluster; every call lands in {@link calls}. */
  readonly client: ControllerClient = {
    get: <T extends KubeObject = KubeObject>(rt: ResourceType, name: string, opts: NamespaceOption = {}) => {
      this.calls.push({ verb: "get", resource: rt.plural, key: name });
      const o = this.get(rt, opts.namespace ? `${opts.namespace}/${name}` : name);
      if (!o) return Promise.reject(apiError(404, "NotFound", `${rt.plural} "${name}" not found`, "get", rt));
      return Promise.resolve(o as T);
    },
    list: <T extends KubeObject = KubeObject>(rt: ResourceType, opts: ListOptions = {}) => {
      this.calls.push({ verb: "list", resource: rt.plural, key: opts.namespace ?? "" });
      const list: KubeList<T> = {
        apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version,
        kind: `${rt.kind}List`,
        metadata: { resourceVersion: String(this.#rv - 1) },
        items: this.list(rt, opts.namespace) as T[],
      };
      return Promise.resolve(list);
    },
    create: <T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: CreateOptions = {}) => {
      const o = structuredClone(obj);
      o.metadata.namespace ??= opts.namespace;
      this.calls.push({ verb: "create", resource: rt.plural, key: o.metadata.name ?? `${o.metadata.generateName}*` });
      return this.#settle(() => this.create(rt, o) as T);
    },
    update: <T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: UpdateOptions = {}) => {
      const call: Call = { verb: "update", resource: rt.plural, key: objectKey(obj) };
      if (opts.subresource) call.subresource = opts.subresource;
      this.calls.push(call);
      return this.#settle(() => this.update(rt, obj, opts.subresource) as T);
    },
    updateStatus: <T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, _opts: NamespaceOption = {}) => {
      this.calls.push({ verb: "update", resource: rt.plural, key: objectKey(obj), subresource: "status" });
      return this.#settle(() => this.update(rt, obj, "status") as T);
    },
    patch: <T extends KubeObject = KubeObject>(rt: ResourceType, name: string, body: unknown, opts: PatchOptions) => {
      const key = opts.namespace ? `${opts.namespace}/${name}` : name;
      this.calls.push({ verb: "patch", resource: rt.plural, key, subresource: opts.subresource });
      return this.#settle(() => this.patch(rt, key, body, opts.subresource) as T);
    },
    delete: (rt: ResourceType, name: string, opts: DeleteOptions = {}) => {
      const key = opts.namespace ? `${opts.namespace}/${name}` : name;
      this.calls.push({ verb: "delete", resource: rt.plural, key });
      return this.#settle(() => this.delete(rt, key, opts.preconditions));
    },
    request: (_method: "GET", path: string): Promise<RawResponse> => {
      const m = /namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(path);
      const text = m ? this.podLogs.get(`${m[1]}/${m[2]}`) : undefined;
      if (text === undefined) {
        return Promise.reject(new ApiError(failureStatus(404, "NotFound", "no log"), { verb: "get", path }));
      }
      return Promise.resolve({ status: 200, headers: new Headers(), body: new TextEncoder().encode(text) });
    },
  };

  /** A call's result as a promise (a thrown ApiError becomes a rejection, as over HTTP). */
  #settle<R>(call: () => R): Promise<R> {
    try {
      return Promise.resolve(call());
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Writes (create/update/patch/delete) recorded so far. */
  writes(): Call[] {
    return this.calls.filter((c) => c.verb !== "get" && c.verb !== "list");
  }

  /** A ReconcileContext for `key` of `rt`. */
  context<T extends KubeObject = KubeObject>(rt: ResourceType, key: string): ReconcileContext<T> {
    const { namespace, name } = splitKey(key);
    return {
      key,
      namespace,
      name,
      object: this.get(rt, key) as T | undefined,
      signal: new AbortController().signal,
      client: this.client,
      informers: this.informers,
      recorder: {
        event: (regarding, input) => this.events.push({ regarding: objectKey(regarding), input }),
      },
      log: getLogger(["kubeop", "test"]),
      clock: this.clock,
      reconcileID: crypto.randomUUID(),
      expectWrite: () => {},
      expectDelete: () => {},
    };
  }
}
