/**
 * Namespaces: DNS-1123 label names, created Active with the `kubernetes` finalizer and the
 * `kubernetes.io/metadata.name` label; status and spec.finalizers are server-owned on updates (the finalize
 * subresource and the namespace controller change them); a delete marks the namespace Terminating and it stays until
 * the namespace controller (testing/apiserver/gc.ts) has emptied and removed it.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { validateLabelName } from "../object_rules.ts";
import type { ResourceDef } from "../resource_def.ts";
import type { ResourceStrategy } from "../strategy.ts";

/** The namespaces every cluster starts with. */
export const DEFAULT_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** The strategy of core v1 namespaces. */
export const NAMESPACES: ResourceStrategy = {
  validateName: validateLabelName,
  returnDeletedObject: true,
  // The namespace REST's Delete checks the preconditions before the store does.
  deletePreconditionsFailed: "Precondition failed",
  // kube's SetDefaults_Namespace: the label is a decoding default (on every write, owned by its writer) — unless the
  // name is generated, which happens after decoding; the strategy's Canonicalize sets it then, owned by no one.
  default(obj: KubeObject, ctx): void {
    if (!ctx.generatedName) nameLabel(obj);
  },
  canonicalize: nameLabel,
  prepareForCreate(obj: KubeObject): void {
    obj.spec = { finalizers: ["kubernetes"], ...obj.spec };
    obj.status = { phase: "Active" };
  },
  prepareForUpdate(next: KubeObject, old: KubeObject): void {
    next.status = old.status;
    // spec.finalizers change only through the finalize subresource.
    next.spec = { ...(next.spec ?? old.spec), finalizers: old.spec?.finalizers };
    if (next.spec.finalizers === undefined) delete next.spec.finalizers;
  },
  terminate(obj: KubeObject): void {
    obj.status = { ...obj.status, phase: "Terminating" };
  },
};

/** The `kubernetes.io/metadata.name` label, the namespace's name. */
function nameLabel(obj: KubeObject): void {
  obj.metadata.labels = { ...obj.metadata.labels, "kubernetes.io/metadata.name": obj.metadata.name! };
}

/** True for the core namespaces resource. */
export function isNamespaceDef(def: Pick<ResourceDef, "group" | "plural">): boolean {
  return def.group === "" && def.plural === "namespaces";
}
