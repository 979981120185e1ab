/**
 * Objects of CRD-defined resources: updates must name the resourceVersion they replace; with a status subresource a
 * create drops any status sent; every write (status included) is pruned, defaulted and validated against the
 * version's openAPIV3Schema (testing/schema.ts). Unknown fields are dropped silently, warned about with
 * `fieldValidation=Warn` and refused (400 `strict decoding error`) with `Strict`.
 * @module
 */
import type { StatusCause } from "../../runtime/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { validateAndDefault } from "../schema.ts";
import { badRequest } from "../status_errors.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";

/** Prunes and defaults `obj` in place from the schema; returns the schema's validation causes (obj untouched then). */
function applySchema(obj: KubeObject, ctx: StrategyContext): StatusCause[] {
  const { def } = ctx;
  if (!def.schema) return [];
  const result = validateAndDefault(obj, def.schema, { kind: def.kind, name: obj.metadata?.name });
  const pruned = result.pruned.filter((p) => !p.startsWith("metadata.") && p !== "apiVersion" && p !== "kind");
  if (pruned.length > 0) {
    const messages = pruned.map((p) => `unknown field "${p}"`);
    if (ctx.fieldValidation === "Strict") {
      throw badRequest(`strict decoding error: ${messages.join(", ")}`, ctx.verb);
    }
    if (ctx.fieldValidation === "Warn") ctx.warnings.push(...messages);
  }
  if (result.causes.length > 0) return result.causes;
  const validated = result.object as KubeObject;
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
  validate: applySchema,
  validateUpdate: (next, _old, ctx) => applySchema(next, ctx),
};
