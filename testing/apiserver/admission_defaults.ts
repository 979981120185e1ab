/**
 * The admission plugins kube-apiserver v1.37 enables by default that the fake runs, in kube's order (after the
 * custom-resource handler's refusal of creates while a CRD terminates, admission_crd_terminating.ts): NamespaceLifecycle
 * (creates in missing or Terminating namespaces, deletes of the immortal namespaces), ServiceAccount, Priority and
 * DefaultTolerationSeconds on pods. Admission webhooks and policies run after them (admission_replay.ts).
 * @module
 */
import { type AdmissionChain, namespaceDeletionLifecycle, namespaceLifecycle } from "./admission.ts";
import { crdTerminatingAdmission } from "./admission_crd_terminating.ts";
import { priorityAdmission } from "./admission_priority.ts";
import { serviceAccountAdmission, serviceAccountValidation } from "./admission_service_account.ts";
import { defaultTolerationSeconds } from "./admission_tolerations.ts";
import type { ObjectStore } from "./object_storage.ts";

/** A fresh chain of the default plugins over `objects` (each FakeStore owns one; tests push more hooks onto it). */
export function defaultAdmissionChain(objects: ObjectStore): AdmissionChain {
  return {
    mutating: [
      crdTerminatingAdmission(objects),
      namespaceLifecycle(objects),
      serviceAccountAdmission(objects),
      priorityAdmission(objects),
      defaultTolerationSeconds(),
    ],
    validating: [serviceAccountValidation(objects)],
    deleting: [namespaceDeletionLifecycle()],
  };
}
