/**
 * kube-apiserver's StorageObjectInUseProtection admission plugin (on by default): every PersistentVolume created gets
 * the finalizer `kubernetes.io/pv-protection`, every PersistentVolumeClaim `kubernetes.io/pvc-protection` and every
 * VolumeAttributesClass (storage.k8s.io, any version) `kubernetes.io/vac-protection`, appended after the finalizers
 * the request sent unless it sent that one. Creates only (a PUT that drops the finalizer keeps it dropped), never a
 * subresource; dry runs too, as every mutating plugin. kube-controller-manager's protection controllers
 * (storage_protection_controller.ts) remove it once the object is being deleted and no longer in use.
 * @module
 */
import type { AdmissionHook } from "./admission.ts";
import type { ResourceDef } from "./resource_def.ts";

/** A PersistentVolume's protection finalizer. */
export const PV_PROTECTION = "kubernetes.io/pv-protection";
/** A PersistentVolumeClaim's protection finalizer. */
export const PVC_PROTECTION = "kubernetes.io/pvc-protection";
/** A VolumeAttributesClass's protection finalizer. */
export const VAC_PROTECTION = "kubernetes.io/vac-protection";

/** The protection finalizer StorageObjectInUseProtection adds to objects of `def`, if any. */
export function protectionFinalizerOf(def: Pick<ResourceDef, "group" | "plural">): string | undefined {
  if (def.group === "" && def.plural === "persistentvolumes") return PV_PROTECTION;
  if (def.group === "" && def.plural === "persistentvolumeclaims") return PVC_PROTECTION;
  if (def.group === "storage.k8s.io" && def.plural === "volumeattributesclasses") return VAC_PROTECTION;
  return undefined;
}

/** The StorageObjectInUseProtection plugin (mutating). */
export function storageObjectInUseProtection(): AdmissionHook {
  return (ctx) => {
    if (ctx.verb !== "create" || ctx.subresource) return;
    const finalizer = protectionFinalizerOf(ctx.def);
    if (!finalizer) return;
    const meta = ctx.object.metadata;
    const finalizers: unknown = meta.finalizers;
    if (Array.isArray(finalizers)) {
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    } else if (finalizers === undefined || finalizers === null) meta.finalizers = [finalizer];
  };
}
