/**
 * The commit path's field manager for non-apply writes (kube's FieldManager.Update): the objects are compared in the
 * request's version — a resource stored in another form (autoscaling/v1 HPAs, events.k8s.io Events) as served — and
 * each other manager's entry in its own entry's apiVersion (structured-merge-diff converts the objects to it).
 * @module
 */
import type { ManagedFieldsEntry } from "../../runtime/apimachinery/managed_fields.ts";
import { managedFieldsAfterUpdate } from "./patch/apply.ts";
import type { ResourceRegistry } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { StrategyRegistry } from "./strategy.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** What the field manager needs of the store: the served definitions and how a stored object is presented. */
export interface ServedViews {
  registry: ResourceRegistry;
  /** The stored object as `def` serves it. */
  present(def: ResourceDef, obj: KubeObject): KubeObject;
  /** The strategies: whether `def` serves objects stored in another form (a `conversion`). */
  strategies: StrategyRegistry;
}

/**
 * The managedFields after `manager`'s non-apply write of `def` from `old` to `next` (stored forms; `old` undefined on
 * create), through `subresource` when set.
 */
export function managedFieldsOfWrite(
  views: ServedViews,
  def: ResourceDef,
  old: KubeObject | undefined,
  next: KubeObject,
  write: { manager: string; nowIso: string; subresource?: "status" },
): ManagedFieldsEntry[] {
  const inVersion = (apiVersion: string) => {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
    const other = group === def.group ? views.registry.lookup(group, version, def.plural) : undefined;
    return other && { before: old && views.present(other, old), after: views.present(other, next) };
  };
  const converts = views.strategies.for(def).conversion !== undefined;
  const served = (obj: KubeObject) => converts ? views.present(def, obj) : obj;
  return managedFieldsAfterUpdate(old && served(old), served(next), write.manager, write.nowIso, "Update", {
    subresource: write.subresource,
    statusSubresource: def.subresources.includes("status"),
    def,
    inVersion,
  });
}
