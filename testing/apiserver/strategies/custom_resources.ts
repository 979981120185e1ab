/**
 * Objects of CRD-defined resources: updates must name the resourceVersion they replace; with a status subresource a
 * create drops any status sent; every write (status included) is pruned, defaulted and validated against the
 * version's openAPIV3Schema (testing/apiserver/schema.ts; on updates errors on unchanged values are ratcheted,
 * testing/apiserver/schema_ratcheting.ts), then its CEL `x-kubernetes-validations` run (testing/apiserver/cel/: transition rules with
 * oldSelf on updates, ratcheted errors as warnings) unless a blocking schema error makes kube skip them; the CRD's
 * scale paths are validated too (validation/custom_resource_scale.ts). Unknown fields (ObjectMeta's, then the pruned
 * ones: custom_resource_decoding.ts) are dropped silently, warned about with `fieldValidation=Warn` and refused (400
 * `strict decoding error`) with `Strict`. A write of the status subresource changes nothing but status (kube's
 * statusStrategy copies the old object and sets status); an update's generation is compared as decoded.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { hasValidationRules, validateCel } from "../cel/validate.ts";
import { validateAndDefault, validateListSetsAndMaps } from "../schema.ts";
import { ratchetSchemaCauses } from "../schema_ratcheting.ts";
import { scaleCauses } from "../validation/custom_resource_scale.ts";
import { applyFieldValidation } from "../field_validation.ts";
import { customResourceUnknownFields, dropUnknownMetadata } from "../custom_resource_decoding.ts";
import { RESET_OBJECT_META_FOR_STATUS, type ResourceStrategy, type StrategyContext } from "../strategy.ts";

/** Errors after which kube skips the CEL rules (hasBlockingErr: the object is too broken to evaluate them on). */
const BLOCKING = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

const CEL_SKIPPED: StatusCause = {
  reason: "FieldValueInvalid",
  message:
    "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
  field: "<nil>",
};

/**
 * Prunes and defaults `obj` in place from the schema, as kube's customResourceStrategy validates: schema errors
 * (ratcheted on updates), list-type set/map duplicates (on updates only if the old object had none), then the CEL
 * rules unless an error blocks them. Returns the causes (obj untouched then).
 */
function applySchema(obj: KubeObject, ctx: StrategyContext, old?: KubeObject): StatusCause[] {
  const { def } = ctx;
  // A JSON body's decoder found them already (ctx.strictErrors: duplicates and unknown fields, in kube's order).
  const result = def.schema
    ? validateAndDefault(obj, def.schema, { kind: def.kind, name: obj.metadata?.name })
    : undefined;
  applyFieldValidation(ctx, ctx.strictErrors ? [] : customResourceUnknownFields(def, obj, result?.pruned));
  dropUnknownMetadata(obj);
  if (!def.schema || !result) return [];
  const validated = result.object as KubeObject;
  const causes = old ? ratchetSchemaCauses(result.causes, validated, old, def.schema) : [...result.causes];
  if (def.scale) causes.push(...scaleCauses(validated, def.scale, ctx.subresource === "status"));
  if (!old || validateListSetsAndMaps(old, def.schema).length === 0) causes.push(...result.listCauses);
  // kube builds a CEL validator only for schemas with rules, and skips it after a blocking error.
  if (hasValidationRules(def.schema)) {
    if (causes.some((c) => BLOCKING.has(c.reason ?? ""))) causes.push(CEL_SKIPPED);
    else {
      const cel = validateCel({ ...validated, metadata: obj.metadata }, old, def.schema);
      ctx.warnings.push(...cel.warnings);
      causes.push(...cel.causes);
    }
  }
  if (causes.length > 0) return causes;
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
  // The custom resource status strategy keeps everything but the status.
  statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
  // kube's PrepareForUpdate compares everything but metadata as decoded: pruned and defaulted (a PUT leaving out a
  // defaulted field changes nothing).
  decoded: (obj, ctx) => ctx.def.schema ? validateAndDefault(obj, ctx.def.schema).object as KubeObject : obj,
  validate: (obj, ctx) => applySchema(obj, ctx),
  validateUpdate: (next, old, ctx) => applySchema(next, ctx, old),
};
