/**
 * CRD openAPIV3Schema handling on writes of custom resources: prune unknown fields, apply defaults, validate
 * (422 Invalid with field paths). With `fieldValidation=Strict` unknown fields are a 400 BadRequest
 * (`strict decoding error: unknown field "spec.foo"`); with `Warn` (kubectl's default is Strict) they become
 * warnings.
 * @module
 */
import type { KubeObject } from "../runtime/types.ts";
import type { AdmissionContext } from "./fake_store.ts";
import { validateAndDefault } from "./schema.ts";
import { badRequest, invalid } from "./status_errors.ts";

/** The admission hook. */
export function schemaAdmission(ctx: AdmissionContext): void {
  const { def, object } = ctx;
  if (!def.custom || !def.schema) return;
  const result = validateAndDefault(object, def.schema, { kind: def.kind, name: object.metadata?.name });
  const pruned = result.pruned.filter((p) => !p.startsWith("metadata.") && p !== "apiVersion" && p !== "kind");
  if (pruned.length > 0) {
    const messages = pruned.map((p) => `unknown field "${p}"`);
    if (ctx.fieldValidation === "Strict") {
      throw badRequest(`strict decoding error: ${messages.join(", ")}`, ctx.verb);
    }
    if (ctx.fieldValidation === "Warn") ctx.warnings.push(...messages);
  }
  if (result.causes.length > 0) throw invalid(def, object.metadata?.name ?? "", result.causes, ctx.verb);
  const validated = result.object as KubeObject;
  for (const key of Object.keys(object)) if (key !== "metadata" && !(key in validated)) delete object[key];
  for (const [key, value] of Object.entries(validated)) if (key !== "metadata") object[key] = value;
}
