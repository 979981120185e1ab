/**
 * The strategies of core/v1 PersistentVolumes and PersistentVolumeClaims as kube-apiserver v1.37 applies them with no
 * controller running: defaults (volumeMode Filesystem, a PV's Retain reclaim policy and hostPath type "") and the
 * Pending phase a new object starts in (a PV's with its lastPhaseTransitionTime). Not the protection finalizers the
 * StorageObjectInUseProtection admission plugin adds: no pv/pvc-protection controller runs here to remove them, and a
 * claim would then never go (nor its namespace).
 * @module
 */
import { rfc3339 } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { validatePvcSpec } from "../validation/persistent_volume_claim.ts";

/** core/v1 persistentvolumes. */
export const PERSISTENT_VOLUMES: ResourceStrategy = {
  returnDeletedObject: true,
  prepareForCreate(obj: KubeObject, ctx: StrategyContext): void {
    obj.status = { phase: "Pending", lastPhaseTransitionTime: rfc3339(ctx.clock.now()) };
  },
  default(obj: KubeObject): void {
    if (!obj.spec || typeof obj.spec !== "object") return;
    obj.spec.persistentVolumeReclaimPolicy ??= "Retain";
    obj.spec.volumeMode ??= "Filesystem";
    if (obj.spec.hostPath && typeof obj.spec.hostPath === "object") obj.spec.hostPath.type ??= "";
  },
};

/** core/v1 persistentvolumeclaims. */
export const PERSISTENT_VOLUME_CLAIMS: ResourceStrategy = {
  returnDeletedObject: true,
  prepareForCreate(obj: KubeObject): void {
    obj.status = { phase: "Pending" };
  },
  default(obj: KubeObject): void {
    if (!obj.spec || typeof obj.spec !== "object") return;
    obj.spec.volumeMode ??= "Filesystem";
  },
  validate: (obj) => validatePvcSpec(obj),
  validateUpdate: (next, _old, ctx) => ctx.subresource === "status" ? [] : validatePvcSpec(next),
};
