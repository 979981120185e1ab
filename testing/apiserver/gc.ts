/**
 * The controllers the fake runs inside itself, reacting to commits: ownerReference garbage collection (background:
 * dependents of a vanished owner go; foreground: the owner waits with `foregroundDeletion` until its dependents are
 * gone; orphan: dependents lose the ownerReference, then the `orphan` finalizer is removed) and namespace deletion
 * (a Terminating namespace empties, then disappears: namespace_deletion.ts). Work is coalesced per microtask turn; it never needs time.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { type FakeStore, isNamespaceDef } from "./commit_path.ts";
import { storageKeyOf } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { ObjectRef, StoredEvent } from "./object_storage.ts";
import { syncTerminatingNamespace } from "./namespace_deletion.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

const FOREGROUND = "foregroundDeletion";
const ORPHAN = "orphan";
/** The field manager of kube-controller-manager's writes (its User-Agent's first word). */
const KCM = "kube-controller-manager";

/** Background garbage collector and namespace controller. */
export class GarbageCollector {
  #store: FakeStore;
  #owners = new Set<string>();
  #dependents = new Map<string, ObjectRef>();
  #namespaces = new Set<string>();
  /** Cancels of the timers that run a Terminating namespace's pass again, by namespace. */
  #rechecks = new Map<string, () => void>();
  #scheduled = false;
  #stopped = false;
  #unsubscribe: () => void;
  /** Errors seen while collecting (kept for tests; the collector never throws). */
  readonly errors: unknown[] = [];

  constructor(store: FakeStore) {
    this.#store = store;
    this.#unsubscribe = store.objects.onCommit((ev) => this.#observe(ev));
  }

  /** Stops reacting to commits. */
  stop(): void {
    this.#stopped = true;
    this.#unsubscribe();
    this.cancelTimers();
  }

  /** Cancels the namespace rechecks pending on the clock (the server stops); {@link enqueueAll} arms them again. */
  cancelTimers(): void {
    for (const cancel of this.#rechecks.values()) cancel();
    this.#rechecks.clear();
  }

  /**
   * Does the pending work now instead of at the end of the microtask turn: what a unit test calls to see the
   * cluster settled right after a write (testing/unit/fake_cluster.ts).
   */
  flush(): void {
    this.#run();
  }

  /** Queues a namespace check (after restart with a Terminating namespace). */
  enqueueAll(): void {
    for (const ns of this.#store.objects.list("/namespaces")) {
      if (ns.metadata.deletionTimestamp) this.#namespaces.add(ns.metadata.name!);
    }
    this.#schedule();
  }

  #observe(ev: StoredEvent): void {
    const meta = ev.object.metadata;
    if (ev.type === "DELETED") {
      if (meta.uid) this.#owners.add(meta.uid);
      // A foreground owner waiting for this dependent may now finish.
      for (const owner of meta.ownerReferences ?? []) this.#owners.add(owner.uid);
      if (meta.namespace) this.#namespaces.add(meta.namespace);
    } else {
      if (ev.type === "ADDED" && meta.ownerReferences?.length) {
        const ref = { storageKey: ev.storageKey, namespace: meta.namespace ?? "", name: meta.name ?? "" };
        this.#dependents.set(`${ref.storageKey}\u0000${ref.namespace}\u0000${ref.name}`, ref);
      }
      if (meta.deletionTimestamp && meta.uid) {
        const f = meta.finalizers ?? [];
        if (f.includes(FOREGROUND) || f.includes(ORPHAN)) this.#owners.add(meta.uid);
        if (ev.storageKey === "/namespaces") this.#namespaces.add(meta.name!);
        // Content held by finalizers changed: the namespace's conditions count them.
        else if (meta.namespace) this.#namespaces.add(meta.namespace);
      }
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#run();
    });
  }

  #run(): void {
    for (let round = 0; round < 10_000 && !this.#stopped; round++) {
      const owners = [...this.#owners];
      const dependents = [...this.#dependents.values()];
      const namespaces = [...this.#namespaces];
      this.#owners.clear();
      this.#dependents.clear();
      this.#namespaces.clear();
      if (owners.length + dependents.length + namespaces.length === 0) return;
      for (const uid of owners) this.#guard(() => this.#processOwner(uid));
      for (const ref of dependents) this.#guard(() => this.#processDependent(ref));
      for (const ns of namespaces) this.#guard(() => this.#processNamespace(ns));
    }
  }

  #guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.errors.push(err);
    }
  }

  #defFor(storageKey: string): ResourceDef | undefined {
    return this.#store.registry.all().find((d) => storageKeyOf(d) === storageKey && d.group !== "events.k8s.io");
  }

  #get(ref: ObjectRef): KubeObject | undefined {
    return this.#store.objects.get(ref.storageKey, ref.namespace, ref.name);
  }

  #processOwner(uid: string): void {
    const objects = this.#store.objects;
    const ownerRef = objects.byUid(uid);
    const owner = ownerRef && this.#get(ownerRef);
    const deps = objects.dependentsOf(uid);
    if (!owner) {
      for (const dep of deps) this.#processDependent(dep);
      return;
    }
    if (!owner.metadata.deletionTimestamp) return;
    const finalizers = owner.metadata.finalizers ?? [];
    const ownerDef = this.#defFor(ownerRef!.storageKey);
    if (!ownerDef) return;
    if (finalizers.includes(ORPHAN)) {
      for (const dep of deps) {
        const obj = this.#get(dep);
        const def = this.#defFor(dep.storageKey);
        if (!obj || !def) continue;
        const next = copyJson(obj);
        next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
        this.#store.update(def, next, { namespace: dep.namespace, name: dep.name, fieldManager: KCM });
      }
      this.#removeFinalizer(ownerDef, owner, ORPHAN);
      return;
    }
    if (finalizers.includes(FOREGROUND)) {
      for (const dep of deps) {
        const obj = this.#get(dep);
        const def = this.#defFor(dep.storageKey);
        if (!obj || !def || obj.metadata.deletionTimestamp) continue;
        this.#store.delete(def, dep.name, { namespace: dep.namespace, propagationPolicy: "Foreground" });
      }
      if (objects.dependentsOf(uid).length === 0) this.#removeFinalizer(ownerDef, owner, FOREGROUND);
    }
  }

  #processDependent(ref: ObjectRef): void {
    const obj = this.#get(ref);
    if (!obj || obj.metadata.deletionTimestamp) return;
    const objects = this.#store.objects;
    const refs = obj.metadata.ownerReferences ?? [];
    const alive = refs.filter((o) => {
      const where = objects.byUid(o.uid);
      const owner = where && this.#get(where);
      if (!owner) return false;
      return !(owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND));
    });
    const def = this.#defFor(ref.storageKey);
    if (!def) return;
    if (alive.length > 0) {
      // kube's attemptToDeleteItem: with a solid owner left, references to dangling owners and to owners waiting
      // for their dependents' deletion are removed from the dependent.
      if (alive.length === refs.length) return;
      const next = copyJson(obj);
      next.metadata.ownerReferences = alive;
      this.#store.update(def, next, { namespace: ref.namespace, name: ref.name, fieldManager: KCM });
      return;
    }
    this.#store.delete(def, ref.name, { namespace: ref.namespace, propagationPolicy: "Background" });
  }

  #processNamespace(name: string): void {
    const { recheckInMs } = syncTerminatingNamespace(this.#store, name, (fn) => this.#guard(fn));
    this.#rechecks.get(name)?.();
    this.#rechecks.delete(name);
    if (recheckInMs === undefined || this.#stopped) return;
    // kube's namespace controller requeues the namespace when its estimate of the pods' termination ends.
    this.#rechecks.set(
      name,
      this.#store.clock.setTimer(recheckInMs, () => {
        this.#rechecks.delete(name);
        this.#namespaces.add(name);
        this.#schedule();
      }),
    );
  }

  #removeFinalizer(def: ResourceDef, obj: KubeObject, finalizer: string): void {
    const next = copyJson(obj);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (isNamespaceDef(def)) return;
    this.#store.update(def, next, { namespace: obj.metadata.namespace, name: obj.metadata.name, fieldManager: KCM });
  }
}
