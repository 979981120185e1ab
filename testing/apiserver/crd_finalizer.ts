/**
 * apiextensions-apiserver's CRD finalizer controller (pkg/controller/finalizer): a CRD marked for deletion carries
 * the `customresourcecleanup.apiextensions.k8s.io` finalizer (the CRD strategy's `terminate` adds it with Terminating
 * True InstanceDeletionPending); this sets Terminating True InstanceDeletionInProgress, deletes every object of the
 * CRD's kind (finalizers honoured: it waits for them), then writes Terminating False InstanceDeletionCompleted
 * `removed all instances` (NeverEstablished for a CRD never established) and drops its finalizer in the same write;
 * the CRD goes once no other finalizer is left. Work runs after the commit that asks for it (a microtask), and again
 * each time an object of a terminating CRD's kind is deleted.
 *
 * Difference from kube: kube checks the remaining objects every 5 s for a minute, then writes Terminating True
 * InstanceDeletionCheck `could not confirm zero CustomResources remaining: ...` and retries; the fake waits for the
 * objects' deletion without a deadline, so that condition never appears.
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import { CRD_CLEANUP_FINALIZER, type CrdCondition as Condition, setCrdCondition } from "./crd_conditions.ts";
import { rfc3339 } from "./object_rules.ts";
import type { StoredEvent } from "./object_storage.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

const CRD_KEY = "apiextensions.k8s.io/customresourcedefinitions";

const isTrue = (crd: KubeObject, type: string) =>
  (crd.status?.conditions ?? []).some((c: Condition) => c.type === type && c.status === "True");

/** The CRD finalizer controller over a store (see the module doc). */
export class CrdFinalizer {
  #store: FakeStore;
  /** Storage keys (`group/plural`) of terminating CRDs, to their CRD's name. */
  #waiting = new Map<string, string>();

  constructor(store: FakeStore) {
    this.#store = store;
    store.objects.onCommit((ev) => this.#observe(ev));
    for (const crd of store.objects.list(CRD_KEY)) {
      this.#observe({ type: "MODIFIED", storageKey: CRD_KEY, object: crd });
    }
  }

  #observe(ev: Pick<StoredEvent, "type" | "storageKey" | "object">): void {
    const name = ev.storageKey === CRD_KEY ? ev.object.metadata.name : this.#waiting.get(ev.storageKey);
    if (!name || (ev.storageKey === CRD_KEY && ev.type === "DELETED")) return;
    if (ev.storageKey !== CRD_KEY && ev.type !== "DELETED") return;
    queueMicrotask(() => {
      try {
        this.#sync(name);
      } catch {
        // The CRD changed meanwhile (deleted, conflicting write): its next commit syncs again.
      }
    });
  }

  #sync(name: string): void {
    const objects = this.#store.objects;
    const stored = objects.get(CRD_KEY, "", name);
    if (!stored?.metadata.deletionTimestamp || !(stored.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
      return;
    }
    const crd = structuredClone(stored);
    const now = rfc3339(this.#store.clock.now());
    const storageKey = `${crd.spec.group}/${crd.spec.names.plural}`;
    if (isTrue(crd, "Established")) {
      if (!isInProgress(crd)) {
        setCrdCondition(crd, {
          type: "Terminating",
          status: "True",
          reason: "InstanceDeletionInProgress",
          message: "CustomResource deletion is in progress",
        }, now);
        objects.put(CRD_KEY, structuredClone(crd));
      }
      this.#waiting.set(storageKey, name);
      const def = this.#store.registry.lookupAnyVersion(crd.spec.group, crd.spec.names.plural);
      for (const obj of objects.list(storageKey)) {
        if (obj.metadata.deletionTimestamp || !def) continue;
        this.#store.delete(def, obj.metadata.name!, { namespace: obj.metadata.namespace });
      }
      if (objects.list(storageKey).length > 0) return;
      setCrdCondition(crd, {
        type: "Terminating",
        status: "False",
        reason: "InstanceDeletionCompleted",
        message: "removed all instances",
      }, now);
    } else {
      setCrdCondition(crd, {
        type: "Terminating",
        status: "False",
        reason: "NeverEstablished",
        message: "resource was never established",
      }, now);
    }
    this.#waiting.delete(storageKey);
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    crd.metadata.finalizers = finalizers;
    // kube's status update carries the finalizer's removal; the generic store then deletes a CRD left without any.
    if (finalizers.length > 0) objects.put(CRD_KEY, crd);
    else objects.remove(CRD_KEY, "", name, crd);
  }
}

const isInProgress = (crd: KubeObject) =>
  (crd.status?.conditions ?? []).some((c: Condition) =>
    c.type === "Terminating" && c.status === "True" && c.reason === "InstanceDeletionInProgress"
  );
