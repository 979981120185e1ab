/**
 * Informers that read a {@link FakeStore} synchronously, for unit tests of reconcile functions: what a synced
 * runtime/cache/cache.ts informer would hold if its watch were instantaneous. Objects are selected as the server's list and
 * watch select them (namespace, label and field selectors, metadata-only), presented as served, and handed out deeply
 * frozen, as the runtime cache hands them out — a reconcile that mutates a cached object fails here too. Handlers see
 * `added | modified | deleted | synced` from the store's commits (an object leaving the selector is `deleted`).
 * Indexes ({@link FakeInformer.addIndex}, `store.byIndex`) are runtime/cache/store.ts's own: the built-in `namespace`,
 * `owner` uid and `label` `key=value` indexes plus any added, evaluated over what the informer selects now.
 * @module
 */
import type { InformerHandler, InformerLike, InformerSource, Store } from "../../runtime/cache/cache.ts";
import { deepFreeze, type IndexFunc, StoreWriter } from "../../runtime/cache/store.ts";
import { type ResourceType, splitKey } from "../../runtime/types.ts";
import type { WatchScope } from "../../runtime/watch/watch_runner.ts";
import type { Unstructured as KubeObject } from "../apiserver/unstructured.ts";
import type { FakeStore } from "../apiserver/commit_path.ts";
import { toPartialObjectMetadata } from "../apiserver/partial_metadata.ts";
import { storageKeyOf } from "../apiserver/registry.ts";
import type { ResourceDef } from "../apiserver/resource_def.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "../apiserver/selectors.ts";
import { badRequest } from "../apiserver/status_errors.ts";

/**
 * The shared informers of a fake cluster: one per resource and options, created on first request.
 *
 * @example
 * ```ts
 * import { FakeCluster } from "./fake_cluster.ts";
 * import { CoreTypes } from "../../runtime/types.ts";
 * const cluster = new FakeCluster();
 * const namespaces = cluster.informers.get(CoreTypes.Namespace, { labelSelector: "kubernetes.io/metadata.name=default" });
 * console.assert(namespaces.store.list().length === 1 && Object.isFrozen(namespaces.store.list()[0]));
 * ```
 */
export class FakeInformers implements InformerSource {
  readonly #store: FakeStore;
  readonly #informers = new Map<string, FakeInformer>();

  /** Informers reading `store` synchronously. */
  constructor(store: FakeStore) {
    this.#store = store;
  }

  /** The informer of `rt` with `opts` (the same one for equal arguments). */
  get<T extends KubeObject = KubeObject>(rt: ResourceType, opts: WatchScope = {}): InformerLike<T> {
    const id = JSON.stringify([
      rt.group,
      rt.version,
      rt.plural,
      opts.namespace,
      opts.labelSelector,
      opts.fieldSelector,
      Boolean(opts.metadataOnly),
    ]);
    let informer = this.#informers.get(id);
    if (!informer) this.#informers.set(id, informer = new FakeInformer(this.#store, rt, opts));
    return informer as unknown as InformerLike<T>;
  }
}

/** One informer over the store. */
class FakeInformer implements InformerLike {
  readonly resource: ResourceType;
  readonly #store: FakeStore;
  readonly #opts: WatchScope;
  readonly #indexes = new Map<string, IndexFunc<KubeObject>>();
  #matcher?: (obj: KubeObject) => boolean;

  constructor(store: FakeStore, rt: ResourceType, opts: WatchScope) {
    this.#store = store;
    this.resource = rt;
    this.#opts = opts;
  }

  readonly store: Store = {
    get: (key: string): KubeObject | undefined => {
      const { namespace, name } = splitKey(key);
      const def = this.#def();
      const stored = this.#store.peek(def, namespace, name);
      return stored && this.#selects(def, stored) ? this.#present(def, stored) : undefined;
    },
    list: (namespace?: string): KubeObject[] => {
      const def = this.#def();
      const scope = this.#opts.namespace;
      if (scope !== undefined && namespace !== undefined && namespace !== scope) return [];
      const list = this.#store.listShared(def, {
        namespace: namespace ?? scope,
        labelSelector: this.#opts.labelSelector,
        fieldSelector: this.#opts.fieldSelector,
      });
      return list.items.map((o) => this.#frozen(o));
    },
    // The rest of the reader surface reads a snapshot of the selected objects with this informer's indexes.
    byIndex: (index: string, value: string): KubeObject[] => this.#indexed().byIndex(index, value),
    keys: (): string[] => this.#indexed().keys(),
    getByUid: (uid: string): KubeObject | undefined => this.#indexed().getByUid(uid),
    get size(): number {
      return this.list().length;
    },
  };

  /** Adds index `name` (runtime/cache/store.ts semantics: a name already taken, built-in or added, is an error). */
  addIndex(name: string, fn: IndexFunc<KubeObject>): void {
    this.#writer().addIndex(name, fn); // throws for a taken name, as the runtime store does
    this.#indexes.set(name, fn);
  }

  addHandler(handler: InformerHandler): () => void {
    for (const obj of this.store.list()) handler.added?.(obj);
    handler.synced?.();
    const def = this.#def();
    const storageKey = storageKeyOf(def);
    return this.#store.objects.onCommit((ev) => {
      if (ev.storageKey !== storageKey) return;
      const now = ev.type !== "DELETED" && this.#selects(def, ev.object) ? this.#present(def, ev.object) : undefined;
      const before = ev.prev && this.#selects(def, ev.prev) ? this.#present(def, ev.prev) : undefined;
      if (now && before) handler.modified?.(before, now);
      else if (now) handler.added?.(now);
      else if (before) handler.deleted?.(before);
    });
  }

  hasSynced(): boolean {
    return true;
  }

  waitForSync(): Promise<void> {
    return Promise.resolve();
  }

  /** A runtime {@link Store} over the selected objects with this informer's indexes: the runtime's index semantics. */
  #indexed(): Store {
    return this.#writer().reader;
  }

  /** A runtime StoreWriter holding the selected objects, with this informer's indexes. */
  #writer(): StoreWriter<KubeObject> {
    const writer = new StoreWriter<KubeObject>({ freeze: false });
    for (const [name, fn] of this.#indexes) writer.addIndex(name, fn);
    writer.replace(this.store.list());
    return writer;
  }

  #def(): ResourceDef {
    return this.#store.def(this.resource);
  }

  /** Whether the stored object is in this informer's scope and selectors. */
  #selects(def: ResourceDef, stored: KubeObject): boolean {
    const scope = this.#opts.namespace;
    if (scope !== undefined && def.namespaced && stored.metadata.namespace !== scope) return false;
    this.#matcher ??= this.#compile(def);
    return this.#matcher(stored);
  }

  #compile(def: ResourceDef): (obj: KubeObject) => boolean {
    try {
      const labels = parseLabelSelector(this.#opts.labelSelector);
      const fields = parseFieldSelector(
        this.#store.storageFieldSelector(def, this.#opts.fieldSelector),
        storageKeyOf(def),
        def.selectableFields,
        def.custom,
      );
      return (o) => labels(o) && fields(o);
    } catch (err) {
      if (err instanceof SelectorError) throw badRequest(err.message, "list");
      throw err;
    }
  }

  #present(def: ResourceDef, stored: KubeObject): KubeObject {
    return this.#frozen(this.#store.present(def, stored));
  }

  /** A frozen deep copy (metadata only for metadata-only informers). */
  #frozen(served: KubeObject): KubeObject {
    const copy = this.#opts.metadataOnly
      ? toPartialObjectMetadata(served) as unknown as KubeObject
      : structuredClone(served);
    return deepFreeze(copy);
  }
}
