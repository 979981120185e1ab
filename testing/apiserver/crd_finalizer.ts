/**
 * apiextensions-apiserver's CRD finalizer controller (pkg/controller/finalizer): a CRD marked for deletion carries
 * the `customresourcecleanup.apiextensions.k8s.io` finalizer (the CRD strategy's `terminate` adds it with Terminating
 * True InstanceDeletionPending); this sets Terminating True InstanceDeletionInProgress, deletes every object of the
 * CRD's kind (finalizers honoured: it waits for them), then writes Terminating False InstanceDeletionCompleted
 * `removed all instances` (NeverEstablished for a CRD never established) and drops its finalizer in the same write;
 * the CRD goes once no other finalizer is left. Work runs after the commit that asks for it (a microtask), and again
 * each time an object of a terminating CRD's kind is deleted.
 *
 * Objects still there a minute after the deletes were issued (a finalizer holds them) make it write Terminating True
 * InstanceDeletionCheck `could not confirm zero CustomResources remaining: context deadline exceeded` and
 * retry as kube's work queue does (5 ms, then doubling): InstanceDeletionInProgress again and another minute. Time is
 * the store's clock.
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import { CRD_CLEANUP_FINALIZER, type CrdCondition as Condition, setCrdCondition } from "./crd_conditions.ts";
import { rfc3339 } from "./object_rules.ts";
import { recordStatusWrite } from "./patch/managed_fields_writes.ts";
import type { StoredEvent } from "./object_storage.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

const CRD_KEY = "apiextensions.k8s.io/customresourcedefinitions";
const CRD_REF = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" };

const isTrue = (crd: KubeObject, type: string) =>
  (crd.status?.conditions ?? []).some((c: Condition) => c.type === type && c.status === "True");

/** The CRD finalizer controller over a store (see the module doc). */
export class CrdFinalizer {
  #store: FakeStore;
  /** Storage keys (`group/plural`) of terminating CRDs, to their CRD's name. */
  #waiting = new Map<string, string>();
  /** By CRD name: the cancel of its pending timer (the minute's deadline, or the retry after it). */
  #timers = new Map<string, () => void>();
  /** Timed-out minutes per CRD name (the work queue's failure count). */
  #failures = new Map<string, number>();

  constructor(store: FakeStore) {
    this.#store = store;
    store.objects.onCommit((ev) => this.#observe(ev));
    for (const crd of store.objects.list(CRD_KEY)) {
      this.#observe({ type: "MODIFIED", storageKey: CRD_KEY, object: crd });
    }
  }

  /** Cancels the pending deadlines and retries (the server stops); {@link resume} arms them again. */
  cancelTimers(): void {
    for (const cancel of this.#timers.values()) cancel();
    this.#timers.clear();
  }

  /** Syncs every terminating CRD again (after a restart). */
  resume(): void {
    for (const crd of this.#store.objects.list(CRD_KEY)) {
      this.#observe({ type: "MODIFIED", storageKey: CRD_KEY, object: crd });
    }
  }

  #observe(ev: Pick<StoredEvent, "type" | "storageKey" | "object"> & { prev?: KubeObject }): void {
    const name = ev.storageKey === CRD_KEY ? ev.object.metadata.name : this.#waiting.get(ev.storageKey);
    if (!name || (ev.storageKey === CRD_KEY && ev.type === "DELETED")) return;
    if (ev.storageKey !== CRD_KEY && ev.type !== "DELETED") return;
    // kube's update handler: a change of the Terminating condition alone (this controller's own write) requeues
    // nothing; failures are retried by the work queue.
    if (ev.storageKey === CRD_KEY && ev.prev && sameButTerminating(ev.prev, ev.object)) return;
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
    const crd = copyJson(stored);
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
        this.#putStatus(stored, copyJson(crd));
      }
      this.#waiting.set(storageKey, name);
      const def = this.#store.registry.lookupAnyVersion(crd.spec.group, crd.spec.names.plural);
      for (const obj of objects.list(storageKey)) {
        if (obj.metadata.deletionTimestamp || !def) continue;
        this.#store.delete(def, obj.metadata.name!, { namespace: obj.metadata.namespace });
      }
      if (objects.list(storageKey).length > 0) {
        if (!this.#timers.has(name)) this.#arm(name, DEADLINE_MS, () => this.#timedOut(name));
        return;
      }
      this.#timers.get(name)?.();
      this.#timers.delete(name);
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
    this.#timers.get(name)?.();
    this.#timers.delete(name);
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    crd.metadata.finalizers = finalizers;
    // kube's status update carries the finalizer's removal; the generic store then deletes a CRD left without any.
    if (finalizers.length > 0) this.#putStatus(objects.get(CRD_KEY, "", name) ?? stored, crd);
    else objects.remove(CRD_KEY, "", name, crd);
  }

  /** Stores `crd`'s status write, recorded in managedFields as kube-apiserver's (subresource status). */
  #putStatus(before: KubeObject, crd: KubeObject): void {
    recordStatusWrite(before, crd, "kube-apiserver", rfc3339(this.#store.clock.now()), this.#store.def(CRD_REF));
    this.#store.objects.put(CRD_KEY, crd);
  }

  #arm(name: string, ms: number, fn: () => void): void {
    this.#timers.get(name)?.();
    this.#timers.set(
      name,
      this.#store.clock.setTimer(ms, () => {
        this.#timers.delete(name);
        try {
          fn();
        } catch {
          // The CRD changed meanwhile: its next commit syncs again.
        }
      }),
    );
  }

  /** The minute is over with instances left: InstanceDeletionCheck, then a retry after the queue's backoff. */
  #timedOut(name: string): void {
    const stored = this.#store.objects.get(CRD_KEY, "", name);
    if (!stored?.metadata.deletionTimestamp || !(stored.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
      return;
    }
    const crd = copyJson(stored);
    setCrdCondition(crd, {
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionCheck",
      message: "could not confirm zero CustomResources remaining: context deadline exceeded",
    }, rfc3339(this.#store.clock.now()));
    this.#putStatus(stored, crd);
    const failures = (this.#failures.get(name) ?? 0) + 1;
    this.#failures.set(name, failures);
    this.#arm(name, retryMs(failures), () => this.#sync(name));
  }
}

/** Whether two versions of a CRD differ in nothing but their Terminating condition (and resourceVersion). */
function sameButTerminating(a: KubeObject, b: KubeObject): boolean {
  const strip = (crd: KubeObject) => ({
    ...crd,
    metadata: { ...crd.metadata, resourceVersion: undefined, managedFields: undefined },
    status: {
      ...crd.status,
      conditions: (crd.status?.conditions ?? []).filter((c: Condition) => c.type !== "Terminating"),
    },
  });
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** kube's wait.PollImmediate(5s, 1m) for the instances to go. */
const DEADLINE_MS = 60_000;
/** kube's controller rate limiter: 5 ms after the first failure, doubling, at most 1000 s. */
const retryMs = (failures: number) => Math.min(5 * 2 ** (failures - 1), 1_000_000);

const isInProgress = (crd: KubeObject) =>
  (crd.status?.conditions ?? []).some((c: Condition) =>
    c.type === "Terminating" && c.status === "True" && c.reason === "InstanceDeletionInProgress"
  );
