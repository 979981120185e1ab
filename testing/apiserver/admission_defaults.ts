/**
 * The admission plugins kube-apiserver v1.37 enables by default that the fake runs, in kube's order (after the
 * custom-resource handler's refusal of creates while a CRD terminates, admission_crd_terminating.ts): NamespaceLifecycle
 * (creates in missing or Terminating namespaces, deletes of the immortal namespaces), LimitRanger, ServiceAccount,
 * Priority and DefaultTolerationSeconds on pods, StorageObjectInUseProtection (the protection finalizers of
 * PersistentVolumes, claims and VolumeAttributesClasses), and ResourceQuota (the last validating plugin here; kube runs
 * it after the admission webhooks and policies, which the fake runs after the chain: admission_replay.ts).
 * @module
 */
import { type AdmissionChain, namespaceDeletionLifecycle, namespaceLifecycle } from "./admission.ts";
import { crdTerminatingAdmission } from "./admission_crd_terminating.ts";
import { limitRangerDefaults, limitRangerValidation } from "./admission_limit_ranger.ts";
import { priorityAdmission } from "./admission_priority.ts";
import { resourceQuotaAdmission } from "./admission_resource_quota.ts";
import { storageObjectInUseProtection } from "./admission_storage_protection.ts";
import { serviceAccountAdmission, serviceAccountValidation } from "./admission_service_account.ts";
import { defaultTolerationSeconds } from "./admission_tolerations.ts";
import type { ObjectStore } from "./object_storage.ts";

/** A fresh chain of the default plugins over `objects` (each FakeStore owns one; tests push more hooks onto it). */
export function defaultAdmissionChain(objects: ObjectStore): AdmissionChain {
  return {
    mutating: [
      crdTerminatingAdmission(objects),
      namespaceLifecycle(objects),
      limitRangerDefaults(objects),
      serviceAccountAdmission(objects),
      priorityAdmission(objects),
      defaultTolerationSeconds(),
      storageObjectInUseProtection(),
    ],
    validating: [limitRangerValidation(objects), serviceAccountValidation(objects), resourceQuotaAdmission(objects)],
    deleting: [namespaceDeletionLifecycle()],
  };
}
