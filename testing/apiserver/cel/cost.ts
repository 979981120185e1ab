/**
 * An approximation of cel-go's static cost estimate for CRD validation rules: each node costs 1, a comprehension
 * (all/exists/map/filter) costs its range's estimated size times its body. Sizes come from the schema (`maxItems`,
 * `maxProperties`, `maxLength`); an unbounded list or map is estimated from the 3 MiB request limit as kube does
 * (about a million elements). kube's exact numbers differ — only the verdict against the limits (10⁷ per rule, 10⁸
 * per CRD) is meant to agree for the obvious cases (a loop nested in a loop over an unbounded list: "more than 100x").
 * @module
 */
import type { OpenApiSchema } from "../resource_def.ts";
import type { CelExpr } from "./compile.ts";

/** kube's StaticEstimatedCostLimit (per rule). */
export const PER_RULE_COST_LIMIT = 10_000_000;
/** kube's StaticEstimatedCRDCostLimit (all rules of a schema). */
export const PER_CRD_COST_LIMIT = 100_000_000;
/** Elements an unbounded list or map may hold in a 3 MiB request (kube divides by the minimal element size). */
const UNBOUNDED = 1_048_576;
/** Characters an unbounded string may hold in a 3 MiB request. */
const UNBOUNDED_STRING = 3_145_728;
/** Calls whose cost grows with the length of their string operands (cel-go: 0.1 per character). */
const STRING_TRAVERSING = new Set(["_==_", "_!=_", "matches", "contains", "startsWith", "endsWith", "_+_", "split"]);

/** Elements a list or map schema may hold (maxItems/maxProperties, or what a request could carry). */
export function cardinalityOf(schema: OpenApiSchema | undefined): number {
  if (!schema) return UNBOUNDED;
  return schema.maxItems ?? schema.maxProperties ?? UNBOUNDED;
}

const sizeOf = cardinalityOf;

/** The largest serialized size of a value of `schema`, in characters (traversal cost of comparisons). */
function traversalSize(schema: OpenApiSchema | undefined, depth = 0): number {
  if (!schema || depth > 8) return 0;
  if (schema.type === "string") return schema.maxLength ?? UNBOUNDED_STRING;
  if (schema.type === "array") {
    return Math.min(UNBOUNDED_STRING, cardinalityOf(schema) * (1 + traversalSize(schema.items, depth + 1)));
  }
  if (schema.type === "object") {
    const props = Object.values(schema.properties ?? {}) as OpenApiSchema[];
    const additional = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
    const own = props.reduce((n, p) => n + traversalSize(p, depth + 1), 0);
    const extra = additional ? cardinalityOf(schema) * (1 + traversalSize(additional, depth + 1)) : 0;
    return Math.min(UNBOUNDED_STRING, own + extra);
  }
  return 0;
}

/** The schema an expression's value has: `self`, `self.a.b`, comprehension variables (undefined: unknown). */
export function schemaOf(expr: CelExpr, vars: Map<string, OpenApiSchema | undefined>): OpenApiSchema | undefined {
  const { case: kind, value } = expr?.exprKind ?? {};
  if (kind === "identExpr") return vars.get(value.name);
  if (kind === "selectExpr") {
    const parent = schemaOf(value.operand, vars);
    const additional = typeof parent?.additionalProperties === "object" ? parent.additionalProperties : undefined;
    return parent?.properties?.[value.field] ?? additional;
  }
  return undefined;
}

function cost(expr: CelExpr, vars: Map<string, OpenApiSchema | undefined>): number {
  const { case: kind, value } = expr?.exprKind ?? {};
  switch (kind) {
    case "selectExpr":
      return 1 + cost(value.operand, vars);
    case "callExpr": {
      const operands: CelExpr[] = [...(value.target ? [value.target] : []), ...value.args];
      const traversal = STRING_TRAVERSING.has(value.function)
        ? Math.ceil(0.1 * Math.max(0, ...operands.map((o) => traversalSize(schemaOf(o, vars)))))
        : 0;
      return 1 + traversal + operands.reduce((n: number, a: CelExpr) => n + cost(a, vars), 0);
    }
    case "listExpr":
      return 1 + value.elements.reduce((n: number, e: CelExpr) => n + cost(e, vars), 0);
    case "comprehensionExpr": {
      const range = schemaOf(value.iterRange, vars);
      const size = value.iterRange?.exprKind?.case === "listExpr"
        ? value.iterRange.exprKind.value.elements.length
        : sizeOf(range);
      const inner = new Map(vars);
      inner.set(
        value.iterVar,
        range?.items ?? (typeof range?.additionalProperties === "object" ? range.additionalProperties : undefined),
      );
      const body = cost(value.loopStep, inner) + cost(value.loopCondition, inner);
      return cost(value.iterRange, vars) + size * body + cost(value.result, vars);
    }
    default:
      return 1;
  }
}

/**
 * The estimated cost of a rule at a schema node.
 *
 * @example
 * ```ts
 * import { parse } from "@bufbuild/cel";
 * import { estimateCost, PER_RULE_COST_LIMIT } from "./cost.ts";
 * const schema = { type: "object", properties: { items: { type: "array", items: { type: "string" } } } };
 * const nested = parse("self.items.all(x, self.items.all(y, x == y))").expr;
 * console.assert(estimateCost(nested, schema) > 100 * PER_RULE_COST_LIMIT);
 * ```
 */
export function estimateCost(expr: CelExpr, schema: OpenApiSchema): number {
  return cost(expr, new Map([["self", schema], ["oldSelf", schema]]));
}

/** kube's getCostErrorMessage: `<what> exceeds budget by factor of <f>x (try simplifying ...)`. */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? "more than 100x" : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
