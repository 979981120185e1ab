/**
 * Structural-schema handling of custom resources as kube-apiserver does it on create/update: drop unknown fields
 * (pruning, silent), apply `default`s, then validate (type, required, enum, bounds, lengths, pattern, items,
 * date-time format, nullable, int-or-string, additionalProperties maps) and report each failure as a StatusCause
 * with kube-apiserver's field paths and wording (kube-openapi messages wrapped by apiextensions'
 * `kubeOpenAPIResultToFieldErrors`).
 * @module
 */

import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import { failureStatus, type Status, type StatusCause } from "../../runtime/client/errors.ts";
import type { OpenApiSchema } from "./resource_def.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** Result of {@link validateAndDefault}. */
export interface ValidationResult {
  /** The pruned and defaulted object (a copy). */
  object: unknown;
  /** Schema validation failures; empty when valid. */
  causes: StatusCause[];
  /** Duplicates in list-type set/map lists (validated separately, after the schema; see validateListSetsAndMaps). */
  listCauses: StatusCause[];
  /** Paths of the unknown fields that were dropped (kube-apiserver prunes them silently; Strict validation warns). */
  pruned: string[];
}

type JsonMap = Record<string, unknown>;

const isMap = (v: unknown): v is JsonMap => typeof v === "object" && v !== null && !Array.isArray(v);
const child = (path: string, name: string) => path ? `${path}.${name}` : name;

/** The schema's `pattern` as a RegExp, or undefined when it is not one (kube-apiserver rejects such a CRD). */
function compilePattern(pattern: unknown): RegExp | undefined {
  try {
    return new RegExp(String(pattern), "u");
  } catch {
    return undefined;
  }
}

/** Go's `%v`/`%q` rendering of a bad value inside `Invalid value: ...`. */
function goValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || value === undefined) return "null";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "object") return "object";
  return typeof value; // string, boolean
}

// ---------------------------------------------------------------------------------------------------------------
// Pruning and defaulting (structural schemas: every level names its properties or preserves unknown fields)

function preserves(schema: OpenApiSchema): boolean {
  return schema["x-kubernetes-preserve-unknown-fields"] === true;
}

function pruneAndDefault(
  value: unknown,
  schema: OpenApiSchema | undefined,
  path: string,
  pruned: string[],
  root: boolean,
): unknown {
  if (!schema) return value;
  if (Array.isArray(value)) {
    return schema.items
      ? value.map((item, i) => pruneAndDefault(item, schema.items, `${path}[${i}]`, pruned, false))
      : value;
  }
  if (!isMap(value)) return value;
  const properties: Record<string, OpenApiSchema> | undefined = schema.properties;
  const additional = isMap(schema.additionalProperties) ? schema.additionalProperties as OpenApiSchema : undefined;
  const embedded = root || schema["x-kubernetes-embedded-resource"] === true;
  const out: JsonMap = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = properties?.[key] ?? additional;
    if (embedded && (key === "metadata" || ((key === "apiVersion" || key === "kind") && !properties?.[key]))) {
      // ObjectMeta is validated and pruned by the server's own rules, never by the CRD schema.
      out[key] = v;
      continue;
    }
    if (!sub && !preserves(schema) && schema.additionalProperties !== true) {
      pruned.push(child(path, key));
      continue;
    }
    // null on a non-nullable field is dropped (kube: PruneNonNullableNullsWithoutDefaults, then defaulting replaces
    // the nulls of fields with a default), so the default, if any, applies.
    if (v === null && sub && !sub.nullable) continue;
    out[key] = pruneAndDefault(v, sub, child(path, key), pruned, false);
  }
  for (const [key, sub] of Object.entries(properties ?? {})) {
    if (!(key in out) && sub.default !== undefined) {
      out[key] = pruneAndDefault(copyJson(sub.default), sub, child(path, key), [], false);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Validation

function invalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: "FieldValueInvalid", message: `Invalid value: ${goValue(value)}: ${detail}`, field };
}

function typeInvalid(field: string, expected: string, actualType: string): StatusCause {
  return {
    reason: "FieldValueTypeInvalid",
    message: `Invalid value: ${goValue(actualType)}: ${field} in body must be of type ${expected}: ${
      goValue(actualType)
    }`,
    field,
  };
}

function typeMatches(value: unknown, schema: OpenApiSchema): boolean {
  if (schema["x-kubernetes-int-or-string"]) return typeof value === "string" || Number.isInteger(value);
  const t = schema.type;
  if (!t) return true;
  const actual = jsonType(value);
  if (t === "number") return actual === "number" || actual === "integer";
  return actual === t;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validate(value: unknown, schema: OpenApiSchema | undefined, path: string, causes: StatusCause[]): void {
  if (!schema) return;
  if (value === null) {
    if (!schema.nullable && (schema.type || schema["x-kubernetes-int-or-string"])) {
      const expected = schema["x-kubernetes-int-or-string"] ? "integer,string" : schema.type;
      causes.push(typeInvalid(path, expected, "null"));
    }
    return;
  }
  if (!typeMatches(value, schema)) {
    const expected = schema["x-kubernetes-int-or-string"] ? "integer,string" : schema.type;
    causes.push(typeInvalid(path, expected, jsonType(value)));
    return;
  }
  if (typeof value === "string") {
    // kube-openapi's string validator stops at the first failure: maxLength, minLength, then pattern.
    const length = [...value].length;
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      causes.push({
        reason: "FieldValueTooLong",
        message: `Too long: may not be more than ${schema.maxLength} bytes`,
        field: path,
      });
    } else if (schema.minLength !== undefined && length < schema.minLength) {
      causes.push(invalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
    } else if (schema.pattern !== undefined) {
      const pattern = compilePattern(schema.pattern);
      if (!pattern) {
        causes.push({
          reason: "FieldValueInvalid",
          message: `Invalid value: the schema's pattern '${schema.pattern}' does not compile`,
          field: path,
        });
      } else if (!pattern.test(value)) {
        causes.push(invalid(path, value, `${path} in body should match '${schema.pattern}'`));
      }
    }
    if (schema.format === "date-time" && !RFC3339.test(value)) {
      causes.push({
        reason: "FieldValueTypeInvalid",
        message: `Invalid value: ${goValue(value)}: ${path} in body must be of type date-time: ${goValue(value)}`,
        field: path,
      });
    }
  }
  if (typeof value === "number") {
    if (
      schema.multipleOf !== undefined &&
      Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9
    ) {
      causes.push(invalid(path, value, `${path} in body should be a multiple of ${schema.multipleOf}`));
    }
    if (schema.maximum !== undefined) {
      if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum) {
        const words = schema.exclusiveMaximum ? "less than" : "less than or equal to";
        causes.push(invalid(path, value, `${path} in body should be ${words} ${schema.maximum}`));
      }
    }
    if (schema.minimum !== undefined) {
      if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum) {
        const words = schema.exclusiveMinimum ? "greater than" : "greater than or equal to";
        causes.push(invalid(path, value, `${path} in body should be ${words} ${schema.minimum}`));
      }
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      causes.push(invalid(path, value.length, `${path} in body should have at least ${schema.minItems} items`));
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      causes.push({
        reason: "FieldValueTooMany",
        message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
        field: path,
      });
    }
    if (schema.items) value.forEach((item, i) => validate(item, schema.items, `${path}[${i}]`, causes));
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => deepEqual(e, value))) {
    const supported = schema.enum.map((e: unknown) => JSON.stringify(typeof e === "string" ? e : JSON.stringify(e)));
    causes.push({
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${goValue(value)}: supported values: ${supported.join(", ")}`,
      field: path,
    });
  }
  if (isMap(value)) {
    if (schema.maxProperties !== undefined && Object.keys(value).length > schema.maxProperties) {
      causes.push({
        reason: "FieldValueTooMany",
        message: `Too many: ${Object.keys(value).length}: must have at most ${schema.maxProperties} items`,
        field: path,
      });
    }
    const additional = isMap(schema.additionalProperties) ? schema.additionalProperties as OpenApiSchema : undefined;
    for (const [key, v] of Object.entries(value)) {
      if (path === "" && (key === "metadata" || key === "apiVersion" || key === "kind")) continue;
      validate(v, schema.properties?.[key] ?? additional, child(path, key), causes);
    }
    // Required comes after the properties, as in kube-openapi's object validator.
    for (const name of (schema.required ?? []) as string[]) {
      if (!(name in value)) {
        causes.push({ reason: "FieldValueRequired", message: "Required value", field: child(path, name) });
      }
    }
  }
}

/** Duplicates in `x-kubernetes-list-type: set` items or `map` keys of one list. */
function listDuplicates(list: unknown[], schema: OpenApiSchema, path: string): StatusCause[] {
  const type = schema["x-kubernetes-list-type"];
  const keys: string[] = schema["x-kubernetes-list-map-keys"] ?? [];
  if (type !== "set" && type !== "map") return [];
  const identity = (item: unknown) =>
    type === "set" || !isMap(item) ? item : Object.fromEntries(keys.filter((k) => k in item).map((k) => [k, item[k]]));
  const causes: StatusCause[] = [];
  list.forEach((item, i) => {
    const id = identity(item);
    if (list.slice(0, i).some((earlier) => deepEqual(identity(earlier), id))) {
      causes.push({
        reason: "FieldValueDuplicate",
        message: `Duplicate value: ${goValue(id)}`,
        field: `${path}[${i}]`,
      });
    }
  });
  return causes;
}

function walkLists(value: unknown, schema: OpenApiSchema | undefined, path: string, causes: StatusCause[]): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    causes.push(...listDuplicates(value, schema, path));
    if (schema.items) value.forEach((item, i) => walkLists(item, schema.items, `${path}[${i}]`, causes));
    return;
  }
  if (!isMap(value)) return;
  const additional = isMap(schema.additionalProperties) ? schema.additionalProperties as OpenApiSchema : undefined;
  for (const [key, v] of Object.entries(value)) {
    walkLists(v, schema.properties?.[key] ?? additional, child(path, key), causes);
  }
}

/**
 * Duplicate items of `x-kubernetes-list-type: set` lists and duplicate keys of `map` lists, anywhere in `obj`
 * (kube: structurallisttype.ValidateListSetsAndMaps, run after the schema validation).
 *
 * @example
 * ```ts
 * import { validateListSetsAndMaps } from "./schema.ts";
 * const schema = { type: "object", properties: { tags: { type: "array", "x-kubernetes-list-type": "set" } } };
 * const causes = validateListSetsAndMaps({ tags: ["a", "a"] }, schema);
 * // causes[0]: { reason: "FieldValueDuplicate", message: 'Duplicate value: "a"', field: "tags[1]" }
 * ```
 */
export function validateListSetsAndMaps(obj: unknown, schema: OpenApiSchema): StatusCause[] {
  const causes: StatusCause[] = [];
  walkLists(obj, schema, "", causes);
  return causes;
}

/**
 * Prunes unknown fields, applies defaults, and validates a custom resource against its openAPIV3Schema.
 * `apiVersion`, `kind` and `metadata` at the root are kept and not validated here (the server checks ObjectMeta).
 *
 * @example
 * ```ts
 * import { validateAndDefault } from "./schema.ts";
 * const schema = { type: "object", properties: { spec: { type: "object",
 *   properties: { switches: { type: "integer", maximum: 100, default: 1 } } } } };
 * const { causes } = validateAndDefault({ spec: { switches: 1000 } }, schema);
 * // causes[0].message is "Invalid value: 1000: spec.switches in body should be less than or equal to 100"
 * ```
 */
export function validateAndDefault(
  obj: unknown,
  schema: OpenApiSchema,
  _opts?: { kind?: string; name?: string },
): ValidationResult {
  const pruned: string[] = [];
  const object = pruneAndDefault(copyJson(obj), schema, "", pruned, true);
  const causes: StatusCause[] = [];
  validate(object, schema, "", causes);
  return { object, causes, listCauses: validateListSetsAndMaps(object, schema), pruned };
}

/**
 * The 422 Invalid Status for causes, as `apierrors.NewInvalid` builds it:
 * `Foo.example.com "x" is invalid: spec.a: Required value` (several causes: `[a, b]`).
 *
 * @example
 * ```ts
 * import { invalidStatus } from "./schema.ts";
 * const s = invalidStatus("Foo", "x", "example.com", [{ field: "spec.a", message: "Required value" }]);
 * // s.message is 'Foo.example.com "x" is invalid: spec.a: Required value'
 * ```
 */
export function invalidStatus(kind: string, name: string, group: string, causes: StatusCause[]): Status {
  const qualified = group ? `${kind}.${group}` : kind;
  const parts = causes.map((c) => c.field ? `${c.field}: ${c.message}` : `${c.message}`);
  const text = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  return failureStatus(422, "Invalid", `${qualified} "${name}" is invalid: ${text}`, { name, group, kind, causes });
}
