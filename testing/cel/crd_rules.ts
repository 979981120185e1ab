/**
 * CRD-time checks of a version's openAPIV3Schema as apiextensions validation does them: the structural-schema rules
 * the fake knows (typed object fields, root `metadata` limited to name/generateName) and every
 * `x-kubernetes-validations` entry (reason, fieldPath, compilation, estimated cost per rule and per schema). Field
 * paths are kube's (`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`).
 * @module
 */
import type { StatusCause } from "../../runtime/errors.ts";
import type { OpenApiSchema } from "../resource_def.ts";
import { compileExpression } from "./compile.ts";
import { costErrorMessage, estimateCost, PER_CRD_COST_LIMIT, PER_RULE_COST_LIMIT } from "./cost.ts";
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

function walk(schema: OpenApiSchema, path: string, root: boolean, causes: StatusCause[], costs: RuleCost[]): void {
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
      const compiled = compileExpression(rule.rule);
      const cost = compiled.expr ? estimateCost(compiled.expr, schema) : 0;
      if (cost > PER_RULE_COST_LIMIT) {
        causes.push({
          reason: "FieldValueForbidden",
          message: `Forbidden: ${costErrorMessage("estimated rule cost", cost, PER_RULE_COST_LIMIT)}`,
          field: `${at}.rule`,
        });
      }
      costs.push({ field: `${at}.rule`, cost });
      if (compiled.error) {
        causes.push({
          reason: "FieldValueInvalid",
          message: `Invalid value: ${goRule(rule)}: compilation failed: ${compiled.error}`,
          field: `${at}.rule`,
        });
      }
      if (rule.messageExpression) {
        const message = compileExpression(rule.messageExpression);
        if (message.error) {
          causes.push({
            reason: "FieldValueInvalid",
            message: `Invalid value: ${goRule(rule)}: messageExpression compilation failed: ${message.error}`,
            field: `${at}.messageExpression`,
          });
        }
      }
    });
  }
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (root && name === "metadata") continue;
    walk(sub as OpenApiSchema, `${path}.properties[${name}]`, false, causes, costs);
  }
  if (schema.items && typeof schema.items === "object") walk(schema.items, `${path}.items`, false, causes, costs);
  if (typeof schema.additionalProperties === "object") {
    walk(schema.additionalProperties, `${path}.additionalProperties`, false, causes, costs);
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
  walk(schema, path, true, causes, costs);
  const total = costs.reduce((n, c) => n + c.cost, 0);
  if (total > PER_CRD_COST_LIMIT) {
    for (const c of [...costs].sort((a, b) => b.cost - a.cost).slice(0, 4).filter((c) => c.cost > 0)) {
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
