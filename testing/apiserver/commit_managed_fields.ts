/**
 * The commit path's field manager for non-apply writes (kube's FieldManager.Update): the objects are compared in the
 * request's version — a resource stored in another form (autoscaling/v1 HPAs, events.k8s.io Events) as served — and
 * each other manager's entry in its own entry's apiVersion (structured-merge-diff converts the objects to it); and the
 * conversion server-side apply uses to find conflicts with a manager recorded in another version ({@link servedIn}).
 * @module
 */
import type { ManagedFieldsEntry } from "../../runtime/apimachinery/managed_fields.ts";
import { managedFieldsAfterUpdate } from "./patch/apply.ts";
import type { ResourceRegistry } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { StrategyRegistry, WrittenSubresource } from "./strategy.ts";
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
  write: { manager: string; nowIso: string; subresource?: WrittenSubresource },
): ManagedFieldsEntry[] {
  const inVersion = (apiVersion: string) => {
    const after = storedIn(views, def, next, apiVersion);
    return after && { before: old && storedIn(views, def, old, apiVersion), after };
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

/** The definition serving `def`'s group-resource in `apiVersion`, if any. */
function servedAt(views: ServedViews, def: ResourceDef, apiVersion: string): ResourceDef | undefined {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
  return group === def.group ? views.registry.lookup(group, version, def.plural) : undefined;
}

/** A stored object of `def` as `apiVersion` of the same group-resource serves it (undefined: not served there). */
function storedIn(
  views: ServedViews,
  def: ResourceDef,
  stored: KubeObject,
  apiVersion: string,
): KubeObject | undefined {
  const other = servedAt(views, def, apiVersion);
  return other && views.present(other, stored);
}

/**
 * An object as `def` serves it, converted to `apiVersion` of the same group-resource (undefined when not served
 * there): what server-side apply compares another version's manager in.
 */
export function servedIn(
  views: ServedViews,
  def: ResourceDef,
  obj: KubeObject,
  apiVersion: string,
): KubeObject | undefined {
  const conversion = views.strategies.for(def).conversion;
  return storedIn(views, def, conversion ? conversion.toStorage(obj) : obj, apiVersion);
}
