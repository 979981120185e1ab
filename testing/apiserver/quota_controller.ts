/**
 * kube-controller-manager's ResourceQuota controller, for `kubeop dev` (option `quotaController`; off by default, as on
 * a cluster whose kube-controller-manager does not run it — the conformance tier's): each quota's `status.hard` is its
 * `spec.hard`, and `status.used` is recounted from the namespace's objects (pods in a terminal phase count for nothing)
 * whenever the quota or an object of its namespace changes. Written through /status as kube-controller-manager.
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import type { StoredEvent } from "./object_storage.ts";
import { quotaCounts, quotaMatches, quotaUsage, type Usage } from "./quota_usage.ts";
import { addQuantities, formatQuantity } from "./resource_quantity.ts";
import { storageKeyOf } from "./registry.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

const QUOTAS = { group: "", version: "v1", plural: "resourcequotas" };
const QUOTAS_KEY = "/resourcequotas";

/** Keeps every quota's status current; returns the unsubscribe function. */
export function startQuotaController(store: FakeStore): () => void {
  const pending = new Set<string>();
  const sync = () => {
    for (const namespace of pending) {
      pending.delete(namespace);
      for (const quota of store.objects.list(QUOTAS_KEY, namespace)) {
        try {
          recount(store, quota);
        } catch {
          // Raced with a write or the quota's deletion: its commit queues another pass.
        }
      }
    }
  };
  for (const q of store.objects.list(QUOTAS_KEY)) pending.add(q.metadata.namespace!);
  sync();
  return store.objects.onCommit((ev: StoredEvent) => {
    const namespace = ev.object.metadata.namespace;
    if (!namespace || store.objects.list(QUOTAS_KEY, namespace).length === 0) return;
    // The controller's own status writes change nothing it counts.
    if (ev.storageKey === QUOTAS_KEY && ev.prev && sameSpec(ev.prev, ev.object)) return;
    if (pending.size === 0) queueMicrotask(sync);
    pending.add(namespace);
  });
}

function sameSpec(a: KubeObject, b: KubeObject): boolean {
  return JSON.stringify(a.spec) === JSON.stringify(b.spec) &&
    a.metadata.deletionTimestamp === b.metadata.deletionTimestamp;
}

/** Writes `quota`'s status as counted now, when it changed. */
function recount(store: FakeStore, quota: KubeObject): void {
  const hard: Record<string, string> = quota.spec?.hard ?? {};
  const namespace = quota.metadata.namespace!;
  const used: Usage = new Map();
  const seen = new Set<string>();
  for (const def of store.registry.all()) {
    // One pass per stored resource (a resource served in several versions is stored once).
    if (!def.namespaced || def.group === "events.k8s.io" || seen.has(storageKeyOf(def))) continue;
    seen.add(storageKeyOf(def));
    const names = Object.keys(hard).filter((k) => quotaCounts(k, def));
    if (names.length === 0) continue;
    for (const obj of store.objects.list(storageKeyOf(def), namespace)) {
      const phase = obj.status?.phase;
      if (def.group === "" && def.plural === "pods" && (phase === "Succeeded" || phase === "Failed")) continue;
      if (!quotaMatches(quota, obj, def.group === "" && def.plural === "pods")) continue;
      const usage = quotaUsage(def, obj);
      for (const k of names) {
        const v = usage.get(k);
        if (v) used.set(k, used.has(k) ? addQuantities(used.get(k)!, v) : v);
      }
    }
  }
  const status = {
    hard: sorted(hard),
    used: sorted(
      Object.fromEntries(Object.keys(hard).map((k) => [k, used.has(k) ? formatQuantity(used.get(k)!) : "0"])),
    ),
  };
  if (JSON.stringify(status) === JSON.stringify(quota.status)) return;
  store.update(QUOTAS, { ...copyJson(quota), status }, {
    namespace,
    name: quota.metadata.name,
    subresource: "status",
    fieldManager: "kube-controller-manager",
  });
}

function sorted(list: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(list).sort(([a], [b]) => (a < b ? -1 : 1)));
}
