/**
 * JSON values of a custom resource as CEL values, typed by the structural schema as kube-apiserver's
 * `UnstructuredToVal` does: integers (`type: integer`, and whole numbers of untyped nodes) become `int` (bigint),
 * `number` nodes `double`, objects maps, arrays lists.
 * @module
 */
import type { OpenApiSchema } from "../resource_def.ts";

/** Converts `value` (JSON) under `schema` to the input @bufbuild/cel binds. */
export function toCel(value: unknown, schema: OpenApiSchema | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") {
    if (schema?.type === "number") return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => toCel(v, schema?.items));
  if (typeof value === "object") {
    const additional = typeof schema?.additionalProperties === "object" ? schema.additionalProperties : undefined;
    return new Map(
      Object.entries(value as Record<string, unknown>).map((
        [k, v],
      ) => [k, toCel(v, schema?.properties?.[k] ?? additional)]),
    );
  }
  return value;
}

/** A CEL result (bigint, Map, list) back as JSON-ish text for messageExpression results. */
export function celToString(value: unknown): string {
  return typeof value === "string" ? value : String(value);
}
