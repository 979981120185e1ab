/**
 * Validation ratcheting of OpenAPI schema errors on updates of custom resources (kube-apiserver's
 * RatchetingSchemaValidator, GA in v1.33): an error raised at a node whose value equals its old value — or at a
 * descendant of such a node, through properties, map keys and map-list items matched by key — is not reported, so an
 * object that became invalid under a tightened schema can still be updated elsewhere. Items of lists that are not
 * `x-kubernetes-list-type: map` do not correlate with old items. (kube keeps the dropped errors as internal warnings
 * it does not send.)
 * @module
 */
import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import type { StatusCause } from "../../runtime/client/errors.ts";
import type { OpenApiSchema } from "./resource_def.ts";

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `spec.ports[1].name` → ["spec", "ports", 1, "name"]. */
function segments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

/** Whether an error at `path` sits at or under a correlated node equal to its old value. */
function ratchets(path: string, next: unknown, old: unknown, schema: OpenApiSchema): boolean {
  if (deepEqual(next, old)) return true;
  let [n, o, s]: [unknown, unknown, OpenApiSchema | undefined] = [next, old, schema];
  const parts = segments(path);
  for (const [i, part] of parts.entries()) {
    if (typeof part === "number") {
      const keys: string[] | undefined = s?.["x-kubernetes-list-type"] === "map"
        ? s["x-kubernetes-list-map-keys"]
        : undefined;
      const item = Array.isArray(n) ? n[part] : undefined;
      if (!keys || !isMap(item) || !Array.isArray(o)) return false;
      o = o.find((x) => isMap(x) && keys.every((k) => deepEqual(x[k], item[k])));
      n = item;
      s = s?.items;
    } else {
      if (i === 0 && (part === "apiVersion" || part === "kind")) return false;
      const additional = isMap(s?.additionalProperties) ? s.additionalProperties as OpenApiSchema : undefined;
      s = s?.properties?.[part] ?? additional;
      n = isMap(n) ? n[part] : undefined;
      o = isMap(o) ? o[part] : undefined;
    }
    if (o === undefined) return false;
    if (deepEqual(n, o)) return true;
  }
  return false;
}

/**
 * The causes of an update's schema validation that survive ratcheting against the old object.
 *
 * @example
 * ```ts
 * import { ratchetSchemaCauses } from "./schema_ratcheting.ts";
 * const schema = { type: "object", properties: { spec: { type: "object",
 *   properties: { a: { type: "string", maxLength: 2 }, b: { type: "integer" } } } } };
 * const cause = { reason: "FieldValueTooLong", message: "Too long", field: "spec.a" };
 * const kept = ratchetSchemaCauses([cause], { spec: { a: "long", b: 2 } }, { spec: { a: "long", b: 1 } }, schema);
 * console.assert(kept.length === 0);
 * ```
 */
export function ratchetSchemaCauses(
  causes: StatusCause[],
  next: unknown,
  old: unknown,
  schema: OpenApiSchema,
): StatusCause[] {
  return causes.filter((c) => {
    const field = c.field ?? "";
    // Required is raised by the object that lacks the field.
    const at = c.reason === "FieldValueRequired" ? field.replace(/\.?[^.[\]]+$/, "") : field;
    return !ratchets(at, next, old, schema);
  });
}
