/**
 * Objects of CRD-defined resources: updates must name the resourceVersion they replace; with a status subresource a
 * create drops any status sent; every write (status included) is pruned, defaulted and validated against the
 * version's openAPIV3Schema (testing/schema.ts), then its CEL `x-kubernetes-validations` run (testing/cel/: transition
 * rules with oldSelf on updates, ratcheted errors as warnings). Unknown fields are dropped silently, warned about with
 * `fieldValidation=Warn` and refused (400 `strict decoding error`) with `Strict`. A write of the status subresource
 * changes nothing but status (kube's statusStrategy copies the old object and sets status).
 * @module
 */
import type { StatusCause } from "../../runtime/errors.ts";
import type { KubeObject } from "../../runtime/types.ts";
import { validateCel } from "../cel/validate.ts";
import { validateAndDefault } from "../schema.ts";
import { applyFieldValidation } from "../field_validation.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";

/** Prunes and defaults `obj` in place from the schema; returns the schema's validation causes (obj untouched then). */
function applySchema(obj: KubeObject, ctx: StrategyContext, old?: KubeObject): StatusCause[] {
  const { def } = ctx;
  if (!def.schema) {
    applyFieldValidation(ctx, []);
    return [];
  }
  const result = validateAndDefault(obj, def.schema, { kind: def.kind, name: obj.metadata?.name });
  const pruned = result.pruned.filter((p) => !p.startsWith("metadata.") && p !== "apiVersion" && p !== "kind");
  applyFieldValidation(ctx, pruned);
  if (result.causes.length > 0) return result.causes;
  const validated = result.object as KubeObject;
  const cel = validateCel({ ...validated, metadata: obj.metadata }, old, def.schema);
  ctx.warnings.push(...cel.warnings);
  if (cel.causes.length > 0) return cel.causes;
  for (const key of Object.keys(obj)) if (key !== "metadata" && !(key in validated)) delete obj[key];
  for (const [key, value] of Object.entries(validated)) if (key !== "metadata") obj[key] = value;
  return [];
}

/** The strategy of every CRD-defined resource (unless the registry names one for its group-resource). */
export const CUSTOM_RESOURCES: ResourceStrategy = {
  allowUnconditionalUpdate: false,
  prepareForCreate(obj: KubeObject, ctx: StrategyContext): void {
    if (ctx.def.subresources.includes("status")) delete obj.status;
  },
  prepareForUpdate(next: KubeObject, old: KubeObject, ctx: StrategyContext): void {
    if (ctx.subresource !== "status") return;
    next.metadata.labels = structuredClone(old.metadata.labels);
    next.metadata.annotations = structuredClone(old.metadata.annotations);
    if (next.metadata.labels === undefined) delete next.metadata.labels;
    if (next.metadata.annotations === undefined) delete next.metadata.annotations;
  },
  validate: (obj, ctx) => applySchema(obj, ctx),
  validateUpdate: (next, old, ctx) => applySchema(next, ctx, old),
};
