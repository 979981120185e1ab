/**
 * kube-controller-manager's three storage protection controllers (pvc-protection, pv-protection, vac-protection), the
 * other half of the StorageObjectInUseProtection admission plugin (admission_storage_protection.ts). Each removes its
 * finalizer once the object is being deleted and no longer in use, and adds it back to an object not being deleted that
 * lacks it (an update dropped it):
 * - a PersistentVolumeClaim is in use while a pod scheduled to a node (`spec.nodeName`) names it in a
 *   `persistentVolumeClaim` volume, whatever the pod's phase, or, for a generic ephemeral volume's claim (named
 *   `<pod>-<volume>`, controlled by the pod), while that pod is not shut down (deleted with grace period 0);
 * - a PersistentVolume is in use while its `status.phase` is Bound;
 * - a VolumeAttributesClass is in use while a PersistentVolume names it in `spec.volumeAttributesClassName`, or a claim
 *   in `spec.volumeAttributesClassName`, `status.currentVolumeAttributesClassName` or
 *   `status.modifyVolumeStatus.targetVolumeAttributesClassName`.
 * Writes are updates as `kube-controller-manager`. Work is coalesced per microtask turn, as the garbage collector's.
 * @module
 */
import { PV_PROTECTION, PVC_PROTECTION, VAC_PROTECTION } from "./admission_storage_protection.ts";
import type { FakeStore } from "./commit_path.ts";
import type { StoredEvent } from "./object_storage.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const PVCS = { group: "", version: "v1", plural: "persistentvolumeclaims", key: "/persistentvolumeclaims" };
const PVS = { group: "", version: "v1", plural: "persistentvolumes", key: "/persistentvolumes" };
const VACS = {
  group: "storage.k8s.io",
  version: "v1",
  plural: "volumeattributesclasses",
  key: "storage.k8s.io/volumeattributesclasses",
};
const PODS_KEY = "/pods";
/** The field manager of kube-controller-manager's writes (its User-Agent's first word). */
const KCM = "kube-controller-manager";

/** The three controllers over one store. */
export class StorageProtection {
  readonly #store: FakeStore;
  readonly #claims = new Set<string>(); // `namespace/name`
  readonly #volumes = new Set<string>();
  readonly #classes = new Set<string>();
  #scheduled = false;
  readonly #unsubscribe: () => void;

  /** Starts reacting to commits, after queueing what the controllers' first list would find. */
  constructor(store: FakeStore) {
    this.#store = store;
    // A restored store, or objects made before the plugin ran.
    for (const o of store.objects.list(PVCS.key)) {
      if (needsWork(o, PVC_PROTECTION)) this.#claims.add(`${o.metadata.namespace}/${o.metadata.name}`);
    }
    for (const o of store.objects.list(PVS.key)) if (needsWork(o, PV_PROTECTION)) this.#volumes.add(o.metadata.name!);
    for (const o of store.objects.list(VACS.key)) if (needsWork(o, VAC_PROTECTION)) this.#classes.add(o.metadata.name!);
    this.#schedule();
    this.#unsubscribe = store.objects.onCommit((ev) => this.#observe(ev));
  }

  /** Stops reacting to commits. */
  stop(): void {
    this.#unsubscribe();
  }

  /**
   * Does the pending work now instead of at the end of the microtask turn (testing/unit/fake_cluster.ts); answers
   * whether there was any.
   */
  flush(): boolean {
    if (this.#pending() === 0) return false;
    this.#sync();
    return true;
  }

  #pending(): number {
    return this.#claims.size + this.#volumes.size + this.#classes.size;
  }

  #schedule(): void {
    if (this.#scheduled || this.#pending() === 0) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#sync();
    });
  }

  #observe(ev: StoredEvent): void {
    switch (ev.storageKey) {
      case PVCS.key:
        if (ev.type !== "DELETED" && needsWork(ev.object, PVC_PROTECTION)) {
          this.#claims.add(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
        }
        for (const c of releasedClasses(ev, claimClasses)) this.#classes.add(c);
        break;
      case PVS.key:
        if (ev.type !== "DELETED" && needsWork(ev.object, PV_PROTECTION)) this.#volumes.add(ev.object.metadata.name!);
        for (const c of releasedClasses(ev, volumeClasses)) this.#classes.add(c);
        break;
      case VACS.key:
        if (ev.type !== "DELETED" && needsWork(ev.object, VAC_PROTECTION)) this.#classes.add(ev.object.metadata.name!);
        break;
      case PODS_KEY:
        for (const claim of claimsFreedBy(ev)) this.#claims.add(`${ev.object.metadata.namespace}/${claim}`);
        break;
      default:
        return;
    }
    this.#schedule();
  }

  #sync(): void {
    const store = this.#store;
    for (const key of this.#claims) {
      this.#claims.delete(key);
      const [namespace, name] = key.split("/");
      const pvc = store.objects.get(PVCS.key, namespace, name);
      if (pvc) reconcile(store, PVCS, pvc, PVC_PROTECTION, () => claimInUse(store, pvc));
    }
    for (const name of this.#volumes) {
      this.#volumes.delete(name);
      const pv = store.objects.get(PVS.key, "", name);
      if (pv) reconcile(store, PVS, pv, PV_PROTECTION, () => (pv.status as Any)?.phase === "Bound");
    }
    for (const name of this.#classes) {
      this.#classes.delete(name);
      const vac = store.objects.get(VACS.key, "", name);
      if (vac) reconcile(store, VACS, vac, VAC_PROTECTION, () => classInUse(store, name));
    }
  }
}

/** kube's protectionutil: a deletion candidate (being deleted, finalizer present) or an object missing it. */
function needsWork(obj: KubeObject, finalizer: string): boolean {
  const has = (obj.metadata.finalizers ?? []).includes(finalizer);
  return obj.metadata.deletionTimestamp ? has : !has;
}

/** processPVC / processPV / processVAC: remove the finalizer from an unused object being deleted, add a missing one. */
function reconcile(
  store: FakeStore,
  ref: typeof PVCS,
  obj: KubeObject,
  finalizer: string,
  inUse: () => boolean,
): void {
  const finalizers = obj.metadata.finalizers ?? [];
  let next: string[] | undefined;
  if (obj.metadata.deletionTimestamp) {
    if (finalizers.includes(finalizer) && !inUse()) next = finalizers.filter((f) => f !== finalizer);
  } else if (!finalizers.includes(finalizer)) next = [...finalizers, finalizer];
  if (!next) return;
  const body = copyJson(obj);
  body.metadata.finalizers = next;
  try {
    store.update(ref, body, { namespace: obj.metadata.namespace, name: obj.metadata.name, fieldManager: KCM });
  } catch {
    // Raced with another write (a conflict) or the object's removal: that commit queues the object again.
  }
}

/** kube's podUsesPVC over the claim's namespace. */
function claimInUse(store: FakeStore, pvc: KubeObject): boolean {
  return store.objects.list(PODS_KEY, pvc.metadata.namespace).some((pod) => podUsesClaim(pod, pvc));
}

function podUsesClaim(pod: KubeObject, pvc: KubeObject): boolean {
  const spec = pod.spec as Any;
  if (!spec?.nodeName) return false;
  return (spec.volumes ?? []).some((v: Any) =>
    v?.persistentVolumeClaim?.claimName === pvc.metadata.name ||
    (v?.ephemeral && !podIsShutDown(pod) && `${pod.metadata.name}-${v.name}` === pvc.metadata.name &&
      (pvc.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === pod.metadata.uid))
  );
}

/** Done with by the kubelet or force-deleted: deletionTimestamp with a zero grace period. */
function podIsShutDown(pod: KubeObject): boolean {
  return Boolean(pod.metadata.deletionTimestamp) && pod.metadata.deletionGracePeriodSeconds === 0;
}

/**
 * The claims a pod event may free (kube's enqueuePVCs): every claim a deleted, terminated (Succeeded or Failed) or
 * unscheduled pod names.
 */
function claimsFreedBy(ev: StoredEvent): string[] {
  const pod = ev.object;
  const spec = pod.spec as Any;
  const phase = (pod.status as Any)?.phase;
  if (ev.type !== "DELETED" && phase !== "Succeeded" && phase !== "Failed" && spec?.nodeName) return [];
  return (spec?.volumes ?? []).flatMap((v: Any) =>
    v?.persistentVolumeClaim?.claimName
      ? [String(v.persistentVolumeClaim.claimName)]
      : v?.ephemeral
      ? [`${pod.metadata.name}-${v.name}`]
      : []
  );
}

function claimClasses(pvc: KubeObject): string[] {
  const spec = pvc.spec as Any;
  const status = pvc.status as Any;
  return [
    spec?.volumeAttributesClassName,
    status?.currentVolumeAttributesClassName,
    status?.modifyVolumeStatus?.targetVolumeAttributesClassName,
  ].filter((n): n is string => typeof n === "string" && n !== "");
}

function volumeClasses(pv: KubeObject): string[] {
  const name = (pv.spec as Any)?.volumeAttributesClassName;
  return typeof name === "string" && name !== "" ? [name] : [];
}

/** The classes a claim or volume stopped naming (updated) or named (deleted): they may be free now. */
function releasedClasses(ev: StoredEvent, classesOf: (o: KubeObject) => string[]): string[] {
  if (ev.type === "DELETED") return classesOf(ev.object);
  if (ev.type !== "MODIFIED" || !ev.prev) return [];
  const now = new Set(classesOf(ev.object));
  return classesOf(ev.prev).filter((c) => !now.has(c));
}

/** Whether any volume or claim names the class. */
function classInUse(store: FakeStore, name: string): boolean {
  return store.objects.list(PVS.key).some((pv) => volumeClasses(pv).includes(name)) ||
    store.objects.list(PVCS.key).some((pvc) => claimClasses(pvc).includes(name));
}
