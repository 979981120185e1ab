/**
 * CRD-time checks of a version's openAPIV3Schema as apiextensions validation does them: the structural-schema rules
 * the fake knows (typed object fields, root `metadata` limited to name/generateName) and every
 * `x-kubernetes-validations` entry (reason, fieldPath, compilation, estimated cost per rule and per schema). Field
 * paths are kube's (`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { OpenApiSchema } from "../resource_def.ts";
import { celError, type CompiledExpression, compileExpression } from "./compile.ts";
import { cardinalityOf, costErrorMessage, estimateCost, PER_CRD_COST_LIMIT, PER_RULE_COST_LIMIT } from "./cost.ts";
import { undefinedField, withTypeAndObjectMeta } from "./fields.ts";
import type { ValidationRule } from "./validate.ts";

const REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

/** Go's json.Marshal of the internal ValidationRule (HTML characters escaped). */
function goRule(rule: ValidationRule): string {
  const json = JSON.stringify({
    Rule: rule.rule ?? "",
    Message: rule.message ?? "",
    MessageExpression: rule.messageExpression ?? "",
    Reason: rule.reason ?? null,
    FieldPath: rule.fieldPath ?? "",
    OptionalOldSelf: rule.optionalOldSelf ?? null,
  });
  return json.replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** The schema a JSON path such as `.spec.color` names under `schema` (kube: cel.ValidFieldPath), if any. */
export function schemaAtPath(schema: OpenApiSchema, fieldPath: string): OpenApiSchema | undefined {
  const parts = fieldPath.trim().replace(/^\./, "").split(".");
  let node: OpenApiSchema | undefined = schema;
  for (const part of parts) {
    const additional: OpenApiSchema | undefined = typeof node?.additionalProperties === "object"
      ? node.additionalProperties
      : undefined;
    node = part === "" ? undefined : node?.properties?.[part] ?? additional;
    if (!node) return undefined;
  }
  return node;
}

/** Whether `.a.b` / `['a']` names a field under `schema`. */
function pathValid(schema: OpenApiSchema, fieldPath: string): boolean {
  const parts = fieldPath.trim().replace(/\['([^']*)'\]/g, ".$1").replace(/^\./, "").split(".");
  let node: OpenApiSchema | undefined = schema;
  for (const part of parts) {
    const additional: OpenApiSchema | undefined = typeof node?.additionalProperties === "object"
      ? node.additionalProperties
      : undefined;
    node = node?.properties?.[part] ?? additional;
    if (!node || part === "") return false;
  }
  return true;
}

interface RuleCost {
  field: string;
  cost: number;
}

/** Where a schema node sits: how many values of it an object may hold, and its first uncorrelatable ancestor. */
interface Place {
  cardinality: number;
  uncorrelatable?: string;
}

/** The compile error of `source` at a node of `schema`: cel-go's parse/reference errors, then undefined fields. */
function compileError(source: string, schema: OpenApiSchema, root: boolean): [CompiledExpression, string | undefined] {
  const compiled = compileExpression(source);
  if (compiled.unsupported) return [compiled, undefined]; // accepted as kube does; skipped (with a warning) on writes
  if (compiled.error || !compiled.expr) return [compiled, compiled.error];
  const missing = undefinedField(compiled.expr, root ? withTypeAndObjectMeta(schema) : schema);
  if (!missing) return [compiled, undefined];
  const offset = compiled.offsets?.[String(missing.id)] ?? 0;
  return [compiled, celError(source, offset, `undefined field '${missing.field}'`)];
}

function walk(
  schema: OpenApiSchema,
  path: string,
  root: boolean,
  place: Place,
  causes: StatusCause[],
  costs: RuleCost[],
): void {
  if (schema.properties && !schema.type) {
    causes.push({
      reason: "FieldValueRequired",
      message: "Required value: must not be empty for specified object fields",
      field: `${path}.type`,
    });
  }
  if (root && schema.properties?.metadata) {
    const meta = schema.properties.metadata as OpenApiSchema;
    const allowed = (k: string) =>
      k === "type" ||
      (k === "properties" && Object.keys(meta.properties ?? {}).every((p) => p === "name" || p === "generateName"));
    if (meta.type !== "object" || !Object.keys(meta).every(allowed)) {
      causes.push({
        reason: "FieldValueForbidden",
        message:
          "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
        field: `${path}.properties[metadata]`,
      });
    }
  }
  // Children first, then this node's rules (kube's ValidateCustomResourceDefinitionOpenAPISchema order).
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (root && name === "metadata") continue;
    walk(sub as OpenApiSchema, `${path}.properties[${name}]`, false, place, causes, costs);
  }
  const cardinality = place.cardinality * cardinalityOf(schema);
  if (schema.items && typeof schema.items === "object") {
    // Only map lists correlate their items with the old ones (by key); elsewhere oldSelf has nothing to compare.
    const correlates = schema["x-kubernetes-list-type"] === "map";
    const uncorrelatable = place.uncorrelatable ?? (correlates ? undefined : path);
    walk(schema.items, `${path}.items`, false, { cardinality, uncorrelatable }, causes, costs);
  }
  if (typeof schema.additionalProperties === "object") {
    const inner = { cardinality, uncorrelatable: place.uncorrelatable };
    walk(schema.additionalProperties, `${path}.additionalProperties`, false, inner, causes, costs);
  }
  const rules: ValidationRule[] = schema["x-kubernetes-validations"] ?? [];
  const schemaErrors: StatusCause[] = [];
  rules.forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    if (!rule.rule?.trim()) {
      schemaErrors.push({
        reason: "FieldValueRequired",
        message: "Required value: rule is not specified",
        field: `${at}.rule`,
      });
    }
    if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
      schemaErrors.push({
        reason: "FieldValueNotSupported",
        message: `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: ${
          REASONS.map((r) => `"${r}"`).join(", ")
        }`,
        field: `${at}.reason`,
      });
    }
    if (rule.fieldPath !== undefined && rule.fieldPath !== "" && !pathValid(schema, rule.fieldPath)) {
      schemaErrors.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(rule.fieldPath)}: must be a valid path`,
        field: `${at}.fieldPath`,
      });
    }
  });
  causes.push(...schemaErrors);
  if (schemaErrors.length === 0) {
    rules.forEach((rule, i) => {
      const at = `${path}.x-kubernetes-validations[${i}]`;
      const [compiled, error] = compileError(rule.rule, schema, root);
      const cost = compiled.expr && !error ? estimateCost(compiled.expr, schema) * place.cardinality : 0;
      if (cost > PER_RULE_COST_LIMIT) {
        causes.push({
          reason: "FieldValueForbidden",
          message: `Forbidden: ${costErrorMessage("estimated rule cost", cost, PER_RULE_COST_LIMIT)}`,
          field: `${at}.rule`,
        });
      }
      costs.push({ field: `${at}.rule`, cost });
      if (error) {
        causes.push({
          reason: "FieldValueInvalid",
          message: `Invalid value: ${goRule(rule)}: compilation failed: ${error}`,
          field: `${at}.rule`,
        });
      }
      if (rule.messageExpression) {
        const [, messageError] = compileError(rule.messageExpression, schema, root);
        if (messageError) {
          causes.push({
            reason: "FieldValueInvalid",
            message: `Invalid value: ${goRule(rule)}: messageExpression compilation failed: ${messageError}`,
            field: `${at}.messageExpression`,
          });
        }
      }
      if (compiled.usesOldSelf && place.uncorrelatable) {
        causes.push({
          reason: "FieldValueInvalid",
          message:
            `Invalid value: ${JSON.stringify(rule.rule)}: oldSelf cannot be used on the uncorrelatable portion ` +
            `of the schema within ${place.uncorrelatable}`,
          field: `${at}.rule`,
        });
      } else if (!compiled.usesOldSelf && rule.optionalOldSelf !== undefined) {
        causes.push({
          reason: "FieldValueInvalid",
          message: `Invalid value: ${rule.optionalOldSelf}: may not be set if oldSelf is not used in rule`,
          field: `${at}.optionalOldSelf`,
        });
      }
    });
  }
}

/**
 * The causes apiextensions validation reports for one openAPIV3Schema at `path`
 * (`spec.validation.openAPIV3Schema` when every version shares it, else `spec.versions[i].schema.openAPIV3Schema`).
 *
 * @example
 * ```ts
 * import { validateCrdSchema } from "./crd_rules.ts";
 * const causes = validateCrdSchema({ type: "object", "x-kubernetes-validations": [{ rule: "foo == 1" }] }, "s");
 * console.assert(causes[0].field === "s.x-kubernetes-validations[0].rule");
 * ```
 */
export function validateCrdSchema(schema: OpenApiSchema, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const costs: RuleCost[] = [];
  walk(schema, path, true, { cardinality: 1 }, causes, costs);
  const total = costs.reduce((n, c) => n + c.cost, 0);
  if (total > PER_CRD_COST_LIMIT) {
    // kube lists the (at most 4) most expensive rules, ignoring those under 1% of the limit.
    for (
      const c of [...costs].sort((a, b) => b.cost - a.cost).filter((c) => c.cost >= PER_CRD_COST_LIMIT / 100).slice(
        0,
        4,
      )
    ) {
      causes.push({
        reason: "FieldValueForbidden",
        message: "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        field: c.field,
      });
    }
    causes.push({
      reason: "FieldValueForbidden",
      message: `Forbidden: ${
        costErrorMessage(
          "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
          total,
          PER_CRD_COST_LIMIT,
        )
      }`,
      field: path,
    });
  }
  return causes;
}
