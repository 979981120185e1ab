/**
 * What apiextensions-apiserver's custom-resource handler wraps around admission while a CRD is being deleted
 * (`forbidCreateAdmission`): a create of its kind — a POST, or an apply or patch that would create — is 403
 * `<plural>.<group> "<name>" is forbidden: create not allowed while custom resource definition is terminating`,
 * before any other admission plugin runs.
 * @module
 */
import type { AdmissionHook } from "./admission.ts";
import type { ObjectStore } from "./object_storage.ts";
import { forbidden } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

const CRD_KEY = "apiextensions.k8s.io/customresourcedefinitions";

/** kube's test: marked for deletion, or its Terminating condition True. */
const crdTerminating = (crd: KubeObject) =>
  Boolean(crd.metadata.deletionTimestamp) ||
  (crd.status?.conditions ?? []).some((c: KubeObject) => c.type === "Terminating" && c.status === "True");

/** The hook, over the store's CRDs. */
export function crdTerminatingAdmission(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (ctx.verb !== "create" || !ctx.def.custom) return;
    const crd = objects.get(CRD_KEY, "", `${ctx.def.plural}.${ctx.def.group}`);
    if (!crd || !crdTerminating(crd)) return;
    const why = "create not allowed while custom resource definition is terminating";
    throw forbidden(ctx.def, ctx.object.metadata.name ?? "", why, "create");
  };
}
