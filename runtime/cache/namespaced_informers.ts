/**
 * `--namespace a --namespace b`: namespaced caches restricted to a set of namespaces (controller-runtime's
 * multi-namespace cache). One namespace just scopes the informer; several get one informer per namespace behind a
 * composite that reads, lists and notifies as if it were one informer. Cluster-scoped resources and requests that
 * already name a namespace pass through unchanged.
 * @module
 */

import type { ShardSelector } from "../apimachinery/shard_selector.ts";
import type { InformerHandler, InformerLike, InformerSource, Store } from "./cache.ts";
import { type KubeObject, type ResourceType, splitKey } from "../types.ts";
import type { WatchScope } from "../watch/watch_runner.ts";

/** One informer per namespace, presented as one. */
export class MultiNamespaceInformer<T extends KubeObject = KubeObject> implements InformerLike<T> {
  readonly resource: ResourceType;
  readonly #members: Map<string, InformerLike<T>>;

  /** Combines `members`: one informer per namespace, keyed by namespace. */
  constructor(resource: ResourceType, members: Map<string, InformerLike<T>>) {
    this.resource = resource;
    this.#members = members;
  }

  /** One {@link Store} over the members' stores: reads by key go to that namespace's member, the rest merge. */
  get store(): Store<T> {
    const members = this.#members;
    const stores = () => [...members.values()].map((m) => m.store);
    return {
      get: (key) => members.get(splitKey(key).namespace ?? "")?.store.get(key),
      list: (namespace) =>
        namespace === undefined
          ? stores().flatMap((s) => s.list())
          : (members.get(namespace)?.store.list(namespace) ?? []),
      byIndex: (index, value) => stores().flatMap((s) => s.byIndex(index, value)),
      keys: () => stores().flatMap((s) => s.keys()),
      getByUid: (uid) => {
        for (const s of stores()) {
          const obj = s.getByUid(uid);
          if (obj) return obj;
        }
        return undefined;
      },
      get size() {
        return stores().reduce((n, s) => n + s.size, 0);
      },
    };
  }

  /** Adds index `name` to every member's cache. */
  addIndex(name: string, fn: (obj: T) => string[]): void {
    for (const [namespace, member] of this.#members) {
      if (!member.addIndex) {
        throw new Error(`${this.resource.plural}: the cache of namespace ${namespace} offers no indexes`);
      }
      member.addIndex(name, fn);
    }
  }

  /** Registers `handler` on every member; `synced` fires once, after all members synced. */
  addHandler(handler: InformerHandler<T>): () => void {
    let pending = this.#members.size;
    const wrapped: InformerHandler<T> = {
      added: handler.added?.bind(handler),
      modified: handler.modified?.bind(handler),
      deleted: handler.deleted?.bind(handler),
      synced: () => {
        if (--pending === 0) handler.synced?.();
      },
    };
    const off = [...this.#members.values()].map((m) => m.addHandler(wrapped));
    return () => off.forEach((f) => f());
  }

  hasSynced(): boolean {
    return [...this.#members.values()].every((m) => m.hasSynced());
  }

  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.#members.values()].map((m) => m.waitForSync(signal)));
  }
}

/**
 * Wraps `inner` so namespaced informers only cover `namespaces` (all namespaces when the list is empty).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes } from "../types.ts";
 * import { InformerRegistry } from "./informers.ts";
 * import { namespacedInformers } from "./namespaced_informers.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * for (const namespace of ["team-a", "team-b", "team-c"]) {
 *   await client.create(CoreTypes.Namespace, { metadata: { name: namespace } });
 *   await client.create(CoreTypes.ConfigMap, { metadata: { name: "settings", namespace } });
 * }
 * const registry = new InformerRegistry({ client });
 * const scoped = namespacedInformers(registry, ["team-a", "team-b"]);
 * const configMaps = scoped.get(CoreTypes.ConfigMap); // one informer per namespace behind one cache
 * const ctrl = new AbortController();
 * const running = registry.start(ctrl.signal);
 * await configMaps.waitForSync();
 * assert.deepEqual(configMaps.store.list().map((cm) => cm.metadata.namespace).sort(), ["team-a", "team-b"]);
 * ctrl.abort();
 * await running;
 * client.close();
 * await cluster.stop();
 * ```
 */
export function namespacedInformers(inner: InformerSource, namespaces: string[]): InformerSource {
  const unique = [...new Set(namespaces)];
  if (unique.length === 0) return inner;
  const composites = new Map<string, MultiNamespaceInformer>();
  const scopes = (rt: ResourceType, opts?: WatchScope): (WatchScope | undefined)[] =>
    !rt.namespaced || opts?.namespace ? [opts] : unique.map((namespace) => ({ ...opts, namespace }));
  const relist = inner.relist?.bind(inner);
  return {
    // Slicing a composite slices each namespace's informer.
    relist: relist &&
      ((rt: ResourceType, opts: WatchScope | undefined, slice: ShardSelector | null) => {
        for (const scope of scopes(rt, opts)) relist(rt, scope, slice);
      }),
    get<T extends KubeObject = KubeObject>(rt: ResourceType, opts?: WatchScope): InformerLike<T> {
      if (!rt.namespaced || opts?.namespace) return inner.get<T>(rt, opts);
      if (unique.length === 1) return inner.get<T>(rt, { ...opts, namespace: unique[0] });
      const id = JSON.stringify([
        rt.group,
        rt.version,
        rt.plural,
        opts?.labelSelector,
        opts?.fieldSelector,
        opts?.metadataOnly,
      ]);
      let composite = composites.get(id);
      if (!composite) {
        const members = new Map(unique.map((ns) => [ns, inner.get(rt, { ...opts, namespace: ns })]));
        composite = new MultiNamespaceInformer(rt, members);
        composites.set(id, composite);
      }
      return composite as unknown as InformerLike<T>;
    },
  };
}
