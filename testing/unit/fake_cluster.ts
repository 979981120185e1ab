/**
 * A cluster for unit tests of reconcile functions, with no HTTP: the fake API server's {@link FakeStore} (the same
 * commit path, strategies, admission chain, CRD schemas and garbage collector the conformance suite checks against a
 * real kube-apiserver), a recording {@link FakeControllerClient}, informers that read the store synchronously
 * ({@link FakeInformers}), a recording EventRecorder and a {@link VirtualClock}. {@link FakeCluster.context} hands a
 * reconcile function the {@link ReconcileContext} a controller would; the test drives it step by step.
 *
 * Test-side helpers (`create`, `get`, `list`, `patch`, `update`, `delete`) act as another user of the cluster: they
 * are not recorded, and after each write the garbage collector, namespace controller and storage protection
 * controllers (a deleted claim or volume goes once unused) finish their work, so the test looks at a settled cluster
 * (on a real server they finish a moment later).
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { VirtualClock } from "../../runtime/clock.ts";
import type { ReconcileContext } from "../../runtime/controller/controller.ts";
import type { EventInput } from "../../runtime/observe/events.ts";
import { objectKey, type ResourceType, splitKey } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "../apiserver/unstructured.ts";
import { CrdController } from "../apiserver/crd.ts";
import { CrdFinalizer } from "../apiserver/crd_finalizer.ts";
import { FakeControllerClient, type RecordedCall } from "./fake_client.ts";
import { FakeInformers } from "./fake_informers.ts";
import { type DeleteOptions, FakeStore } from "../apiserver/commit_path.ts";
import { GarbageCollector } from "../apiserver/gc.ts";
import { StorageProtection } from "../apiserver/storage_protection_controller.ts";
import { patchObject } from "../apiserver/patch_object.ts";
import { ResourceRegistry } from "../apiserver/registry.ts";
import { ObjectStore } from "../apiserver/object_storage.ts";
import { DEFAULT_NAMESPACES } from "../apiserver/strategies/namespaces.ts";

/** Options of {@link FakeCluster}. */
export interface FakeClusterOptions {
  /** Epoch ms the virtual clock starts at (default: VirtualClock's). */
  startMs?: number;
  /** CustomResourceDefinitions to install (their kinds are served with their schemas, as by kube-apiserver). */
  crds?: KubeObject[];
  /** Namespaces that exist from the start (default: default, kube-system, kube-public, kube-node-lease). */
  namespaces?: readonly string[];
  /** The client's field manager (default `kubeop`, as KubeClient's). */
  fieldManager?: string;
}

/** One Event emitted through a context's recorder. */
export interface RecordedEvent {
  /** `namespace/name` of the regarding object. */
  regarding: string;
  /** What the reconcile recorded (type, reason, action, note). */
  input: EventInput;
}

/**
 * The unit-test cluster.
 *
 * @example
 * ```ts
 * import { FakeCluster } from "./fake_cluster.ts";
 * import { CoreTypes } from "../../runtime/types.ts";
 * import type { ReconcileContext } from "../../runtime/controller/controller.ts";
 * // A reconcile that labels its ConfigMap.
 * async function reconcile(ctx: ReconcileContext) {
 *   await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { metadata: { labels: { seen: "yes" } } }, {
 *     namespace: ctx.namespace,
 *     type: "merge",
 *   });
 * }
 * const cluster = new FakeCluster();
 * cluster.create(CoreTypes.ConfigMap, { metadata: { name: "cfg", namespace: "default" } });
 * await reconcile(cluster.context(CoreTypes.ConfigMap, "default/cfg"));
 * console.assert(cluster.get(CoreTypes.ConfigMap, "default/cfg")?.metadata.labels?.seen === "yes");
 * console.assert(cluster.writes().length === 1);
 * ```
 */
export class FakeCluster {
  /** Time for the cluster and the reconciles. */
  readonly clock: VirtualClock;
  /** The fake API server's object semantics (direct access for anything the helpers do not cover). */
  readonly store: FakeStore;
  /** The reconciles' client; every call lands in {@link calls}. */
  readonly client: FakeControllerClient;
  /** Informers reading {@link store}. */
  readonly informers: FakeInformers;
  /** Events recorded through the contexts' recorder. */
  readonly events: RecordedEvent[] = [];
  readonly #gc: GarbageCollector;
  readonly #storageProtection: StorageProtection;

  /** A cluster with the default namespaces (or `opts.namespaces`) and `opts.crds` installed. */
  constructor(opts: FakeClusterOptions = {}) {
    this.clock = new VirtualClock(opts.startMs);
    this.store = new FakeStore({ registry: new ResourceRegistry(), objects: new ObjectStore(), clock: this.clock });
    this.#gc = new GarbageCollector(this.store);
    this.#storageProtection = new StorageProtection(this.store);
    new CrdController(this.store);
    new CrdFinalizer(this.store);
    this.client = new FakeControllerClient({ store: this.store, fieldManager: opts.fieldManager });
    this.informers = new FakeInformers(this.store);
    for (const name of opts.namespaces ?? DEFAULT_NAMESPACES) {
      this.store.create({ group: "", version: "v1", plural: "namespaces" }, { metadata: { name } });
    }
    for (const crd of opts.crds ?? []) {
      this.store.create({ group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" }, crd);
    }
  }

  /** Every client call, in order. */
  get calls(): RecordedCall[] {
    return this.client.calls;
  }

  /** Pod logs served for `GET .../pods/<name>/log` (`namespace/name` → text); a pod without one answers 404. */
  get podLogs(): Map<string, string> {
    return this.client.podLogs;
  }

  /** Writes (create/update/patch/delete) recorded so far. */
  writes(): RecordedCall[] {
    return this.client.writes();
  }

  /** Creates an object as a user would (the server's defaults apply; status is the server's). Returns it stored. */
  create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: KubeObject): T {
    return this.#settled(() => this.store.create(rt, obj, { namespace: obj.metadata.namespace }) as T);
  }

  /** The object at `key` (`namespace/name` or `name`), a copy, or undefined. */
  get<T extends KubeObject = KubeObject>(rt: ResourceType, key: string): T | undefined {
    const { namespace, name } = splitKey(key);
    const def = this.store.def(rt);
    return this.store.peek(def, namespace, name) ? this.store.get(def, name, { namespace }) as T : undefined;
  }

  /** The objects of `rt` (copies), in one namespace or all. */
  list<T extends KubeObject = KubeObject>(rt: ResourceType, namespace?: string): T[] {
    return this.store.list(rt, { namespace }).items as T[];
  }

  /** Merge-patches the object at `key` (or its status); the server's rules apply as to any PATCH. */
  patch<T extends KubeObject = KubeObject>(rt: ResourceType, key: string, body: unknown, subresource?: "status"): T {
    const { namespace, name } = splitKey(key);
    return this.#settled(() =>
      patchObject(this.store, this.store.def(rt), name, structuredClone(body), {
        type: "merge",
        namespace,
        subresource,
      })
        .object as T
    );
  }

  /** PUTs the object (or its status); its resourceVersion must be current. */
  update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: KubeObject, subresource?: "status"): T {
    return this.#settled(() => this.store.update(rt, obj, { namespace: obj.metadata.namespace, subresource }) as T);
  }

  /** Deletes the object at `key` (marks it while finalizers remain); dependents are collected before this returns. */
  delete(rt: ResourceType, key: string, opts: Omit<DeleteOptions, "namespace"> = {}): void {
    const { namespace, name } = splitKey(key);
    this.#settled(() => this.store.delete(rt, name, { ...opts, namespace }));
  }

  /** A ReconcileContext for `key` of `rt`, with the object as the informer has it (frozen). */
  context<T extends KubeObject = KubeObject>(rt: ResourceType, key: string): ReconcileContext<T> {
    this.#settle();
    const { namespace, name } = splitKey(key);
    return {
      key,
      namespace,
      name,
      object: this.informers.get<T>(rt).store.get(key),
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

  /** Runs a test-side write, then lets the in-cluster controllers (garbage collector, namespaces, storage protection) finish. */
  #settled<R>(write: () => R): R {
    const out = write();
    this.#settle();
    return out;
  }

  /** The in-cluster controllers' pending work, until none queues more (a claim released by a pod's collection). */
  #settle(): void {
    do this.#gc.flush(); while (this.#storageProtection.flush());
  }
}
