/**
 * A {@link ControllerClient} that calls a {@link FakeStore} directly — no HTTP, no awaits on I/O — for unit tests of
 * reconcile functions. Every call goes through the same commit path, strategies, admission chain and patch code as a
 * request to the fake API server, and fails with the ApiError runtime/client/client.ts's KubeClient would raise for that server's
 * answer (the server's Status, the client's call description). Each call is recorded, in order, in
 * {@link FakeControllerClient.calls}.
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
} from "../../runtime/client/client.ts";
import { resourceId } from "../../runtime/apimachinery/names.ts";
import type { ControllerClient } from "../../runtime/controller/controller_client.ts";
import { ApiError, type CallInfo, failureStatus } from "../../runtime/client/errors.ts";
import { apiVersionOf, type KubeList, type ResourceType } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "../apiserver/unstructured.ts";
import type { FakeStore } from "../apiserver/commit_path.ts";
import { toPartialObjectMetadataList } from "../apiserver/partial_metadata.ts";
import { patchObject } from "../apiserver/patch_object.ts";
import type { ResourceDef } from "../apiserver/resource_def.ts";
import { methodNotAllowed, notFound } from "../apiserver/status_errors.ts";

/** One recorded client call. */
export interface RecordedCall {
  /** create, get, list, update, patch or delete. */
  verb: string;
  /** Resource plural. */
  resource: string;
  /** `namespace/name` or `name` (`generateName*` for generated names; the namespace for lists). */
  key: string;
  /** `status` for status writes. */
  subresource?: string;
}

/** Options of {@link FakeControllerClient}. */
export interface FakeControllerClientOptions {
  /** The store every call reads and writes (the fake API server's semantics, no HTTP). */
  store: FakeStore;
  /** Recorded in managedFields, as KubeClient's `fieldManager` (default `kubeop`). */
  fieldManager?: string;
  /**
   * Served for `GET /api/v1/namespaces/<ns>/pods/<name>/log` (`namespace/name` → text). A pod that exists but has no
   * entry answers 404, as when the kubelet cannot serve its container's log.
   */
  podLogs?: Map<string, string>;
}

/**
 * The unit-test client.
 *
 * @example
 * ```ts
 * import { FakeCluster } from "./fake_cluster.ts";
 * import { CoreTypes } from "../../runtime/types.ts";
 * import { isNotFound } from "../../runtime/client/errors.ts";
 * const { client } = new FakeCluster();
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "cfg", namespace: "default" }, data: { a: "1" } });
 * await client.patch(CoreTypes.ConfigMap, "cfg", { data: { b: "2" } }, { namespace: "default", type: "merge" });
 * const missing = await client.get(CoreTypes.ConfigMap, "other", { namespace: "default" }).catch((e) => e);
 * console.assert(isNotFound(missing) && client.calls.map((c) => c.verb).join() === "create,patch,get");
 * ```
 */
export class FakeControllerClient implements ControllerClient {
  /** Every call, in order. */
  readonly calls: RecordedCall[] = [];
  /** See {@link FakeControllerClientOptions.podLogs}. */
  readonly podLogs: Map<string, string>;
  readonly #store: FakeStore;
  readonly #fieldManager: string;

  /** A client over `opts.store` that records every call. */
  constructor(opts: FakeControllerClientOptions) {
    this.#store = opts.store;
    this.#fieldManager = opts.fieldManager ?? "kubeop";
    this.podLogs = opts.podLogs ?? new Map();
  }

  /** GET one object. */
  get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, opts: NamespaceOption = {}): Promise<T> {
    const { namespace } = opts;
    this.#record("get", rt, keyOf(namespace, name));
    return this.#run({ verb: "get", resource: resourceId(rt), namespace, name }, () => {
      this.#allowed(rt, "get");
      return this.#store.get(rt, name, { namespace }) as T;
    });
  }

  /** LIST (one page when `limit` is set), optionally metadata-only. */
  list<T extends KubeObject = KubeObject>(rt: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const { namespace } = opts;
    this.#record("list", rt, namespace ?? "");
    return this.#run({ verb: "list", resource: resourceId(rt), namespace }, () => {
      this.#allowed(rt, "list");
      const list = this.#store.list(rt, {
        namespace,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
      });
      return (opts.metadataOnly ? toPartialObjectMetadataList(list) : list) as unknown as KubeList<T>;
    });
  }

  /** POST a new object (namespace from opts or the object). */
  create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: CreateOptions = {}): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata?.namespace;
    const name = obj.metadata?.name;
    this.#record("create", rt, keyOf(namespace, name ?? `${obj.metadata?.generateName ?? ""}*`));
    return this.#run({ verb: "create", resource: resourceId(rt), namespace, name }, () => {
      this.#allowed(rt, "create");
      const body = { apiVersion: apiVersionOf(rt), kind: rt.kind, ...obj };
      return this.#store.create(rt, body, { namespace, dryRun: opts.dryRun, ...this.#writeOptions() }) as T;
    });
  }

  /** PUT the object (its resourceVersion is the precondition); `subresource: "status"` writes status. */
  update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: UpdateOptions = {}): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata?.namespace;
    const name = obj.metadata?.name;
    this.#record("update", rt, keyOf(namespace, name), opts.subresource);
    const verb = opts.subresource ? `update/${opts.subresource}` : "update";
    return this.#run({ verb, resource: resourceId(rt), namespace, name }, () => {
      const def = this.#allowed(rt, "update", opts.subresource, name);
      const body = { apiVersion: apiVersionOf(rt), kind: rt.kind, ...obj };
      return this.#store.update(def, body, {
        namespace,
        name,
        subresource: opts.subresource,
        ...this.#writeOptions(),
      }) as T;
    });
  }

  /** PUT the status subresource. */
  updateStatus<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T, opts: NamespaceOption = {}): Promise<T> {
    return this.update(rt, obj, { ...opts, subresource: "status" });
  }

  /** PATCH: merge, JSON patch, strategic merge or server-side apply (testing/apiserver/patch_object.ts). */
  patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    const { namespace } = opts;
    this.#record("patch", rt, keyOf(namespace, name), opts.subresource);
    return this.#run({ verb: `patch/${opts.type}`, resource: resourceId(rt), namespace, name }, () => {
      const def = this.#allowed(rt, "patch", opts.subresource, name);
      return patchObject(this.#store, def, name, structuredClone(body), {
        type: opts.type,
        namespace,
        subresource: opts.subresource === "status" ? "status" : undefined,
        force: opts.force,
        ...this.#writeOptions(),
      }).object as T;
    });
  }

  /** DELETE with optional propagation policy, preconditions and grace period. */
  delete(rt: ResourceType, name: string, opts: DeleteOptions = {}): Promise<void> {
    const { namespace } = opts;
    this.#record("delete", rt, keyOf(namespace, name));
    return this.#run({ verb: "delete", resource: resourceId(rt), namespace, name }, () => {
      this.#allowed(rt, "delete");
      this.#store.delete(rt, name, {
        namespace,
        propagationPolicy: opts.propagationPolicy,
        preconditions: opts.preconditions,
        gracePeriodSeconds: opts.gracePeriodSeconds,
      });
    });
  }

  /**
   * A raw GET; only pod logs are served (see {@link FakeControllerClientOptions.podLogs}), anything else is 404. As
   * KubeClient's, a non-2xx answer is returned unless `throwOnError` is set.
   */
  request(_method: "GET", path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    try {
      const text = this.#serveRaw(path);
      return Promise.resolve({
        status: 200,
        headers: new Headers({ "content-type": "text/plain" }),
        body: encode(text),
      });
    } catch (err) {
      if (!(err instanceof ApiError)) return Promise.reject(err);
      if (opts.throwOnError) return Promise.reject(new ApiError(err.status, opts.call ?? { verb: "get", path }));
      const headers = new Headers({ "content-type": "application/json" });
      return Promise.resolve({ status: err.code, headers, body: encode(JSON.stringify(err.status)) });
    }
  }

  /** Writes (create/update/patch/delete) recorded so far. */
  writes(): RecordedCall[] {
    return this.calls.filter((c) => c.verb !== "get" && c.verb !== "list");
  }

  /** The text of a raw GET, or the server's ApiError. */
  #serveRaw(path: string): string {
    const log = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(path.split("?")[0]);
    const missing = (message: string) => new ApiError(failureStatus(404, "NotFound", message), { verb: "get", path });
    if (!log) throw missing("the server could not find the requested resource");
    const [, namespace, name] = log;
    this.#store.get({ group: "", version: "v1", plural: "pods" }, name, { namespace });
    const text = this.podLogs.get(`${namespace}/${name}`);
    if (text === undefined) throw missing(`no log available for pod ${namespace}/${name}`);
    return text;
  }

  #record(verb: string, rt: ResourceType, key: string, subresource?: string): void {
    const call: RecordedCall = { verb, resource: rt.plural, key };
    if (subresource) call.subresource = subresource;
    this.calls.push(call);
  }

  /** What the HTTP layer sends with every write: KubeClient's field manager, `fieldValidation=Warn`. */
  #writeOptions() {
    return { fieldManager: this.#fieldManager, fieldValidation: "Warn", warnings: [] as string[] };
  }

  /** The served definition, refusing verbs and subresources it does not serve as the HTTP layer does. */
  #allowed(rt: ResourceType, verb: string, subresource?: string, name = ""): ResourceDef {
    const def = this.#store.def(rt);
    if (subresource !== undefined && (subresource !== "status" || !def.subresources.includes(subresource))) {
      throw notFound(def, subresource === "status" ? name : `${name}/${subresource}`, verb);
    }
    if (!def.verbs.includes(verb)) throw methodNotAllowed(def, verb);
    return def;
  }

  /** Runs a store call as an API call: its ApiError carries `call` as KubeClient's would; a rejection, never a throw. */
  #run<R>(call: CallInfo, fn: () => R): Promise<R> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      if (err instanceof ApiError) return Promise.reject(new ApiError(err.status, call, err.retryAfterSeconds));
      return Promise.reject(err);
    }
  }
}

function keyOf(namespace: string | undefined, name: string | undefined): string {
  return namespace ? `${namespace}/${name ?? ""}` : name ?? "";
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
