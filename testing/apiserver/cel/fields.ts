/**
 * The one type check of cel-go's the fake repeats at CRD time: selecting a field an object schema does not declare
 * (`undefined field 'b'`). An object schema declares its `properties` only (even with
 * `x-kubernetes-preserve-unknown-fields`); maps (`additionalProperties`) accept any key (a missing one is a runtime
 * `no such key`); the root adds apiVersion, kind and metadata (name and generateName only).
 * @module
 */
import type { OpenApiSchema } from "../resource_def.ts";
import type { CelExpr } from "./compile.ts";
import { schemaOf } from "./cost.ts";

const STRING = { type: "string" };

/** The root schema as CEL sees it: apiVersion, kind and metadata {name, generateName} declared. */
export function withTypeAndObjectMeta(schema: OpenApiSchema): OpenApiSchema {
  return {
    ...schema,
    properties: {
      ...schema.properties,
      apiVersion: STRING,
      kind: STRING,
      metadata: { type: "object", properties: { name: STRING, generateName: STRING } },
    },
  };
}

function declaresNoSuchField(schema: OpenApiSchema | undefined, field: string): boolean {
  if (!schema || schema.type !== "object" || schema.additionalProperties !== undefined) return false;
  if (schema["x-kubernetes-int-or-string"] || schema["x-kubernetes-embedded-resource"]) return false;
  return !(field in (schema.properties ?? {}));
}

function find(expr: CelExpr, vars: Map<string, OpenApiSchema | undefined>): { field: string; id: bigint } | undefined {
  const { case: kind, value } = expr?.exprKind ?? {};
  switch (kind) {
    case "selectExpr":
      if (declaresNoSuchField(schemaOf(value.operand, vars), value.field)) return { field: value.field, id: expr.id };
      return find(value.operand, vars);
    case "callExpr":
      for (const e of [...(value.target ? [value.target] : []), ...value.args]) {
        const hit = find(e, vars);
        if (hit) return hit;
      }
      return undefined;
    case "listExpr":
      for (const e of value.elements) {
        const hit = find(e, vars);
        if (hit) return hit;
      }
      return undefined;
    case "comprehensionExpr": {
      const range = schemaOf(value.iterRange, vars);
      const inner = new Map(vars);
      const element = range?.type === "array"
        ? range.items
        : typeof range?.additionalProperties === "object"
        ? STRING
        : undefined;
      inner.set(value.iterVar, element);
      inner.delete(value.accuVar);
      return find(value.iterRange, vars) ?? find(value.loopCondition, inner) ?? find(value.loopStep, inner) ??
        find(value.result, inner);
    }
    default:
      return undefined;
  }
}

/**
 * The first selection of an undeclared field in `expr` evaluated at `schema` (the rule's node), with its expr id.
 *
 * @example
 * ```ts
 * import { parse } from "@bufbuild/cel";
 * import { undefinedField } from "./fields.ts";
 * const schema = { type: "object", properties: { a: { type: "string" } } };
 * console.assert(undefinedField(parse("self.b == 'x'").expr, schema)?.field === "b");
 * ```
 */
export function undefinedField(expr: CelExpr, schema: OpenApiSchema): { field: string; id: bigint } | undefined {
  return find(expr, new Map([["self", schema], ["oldSelf", schema]]));
}
