/**
 * Evaluates the `x-kubernetes-validations` rules of a custom resource's structural schema as kube-apiserver's
 * apiextensions `cel.Validator` does: every rule is run at its schema node with `self` bound to the node's value (and
 * `oldSelf` to the old value on updates where the node correlates: object properties, map-list items by key);
 * transition rules are skipped without an old value; a false rule yields a cause on the node or its `fieldPath`, with
 * `message`, `messageExpression` or `failed rule: <rule>` and the `reason`'s error type. Validation ratcheting
 * (GA in v1.33): on updates, a failing rule that does not read oldSelf on a node equal to its old value (or under the
 * nearest correlatable ancestor equal to its old value) becomes a warning instead of an error. Runtime cost is not
 * metered (kube stops at a per-request budget).
 * @module
 */
import { deepEqual } from "../../../runtime/apimachinery/equality.ts";
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { OpenApiSchema } from "../resource_def.ts";
import { compileExpression, runtimeErrorText } from "./compile.ts";
import { optionalOf } from "./optional.ts";
import { toCel } from "./values.ts";

/** A rule of `x-kubernetes-validations`. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** Causes (errors) and warnings (ratcheted errors) of one validation. */
export interface CelValidationResult {
  causes: StatusCause[];
  warnings: string[];
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Go's rendering of a bad value (`"text"`, `5`, JSON for the rest). */
function goValue(value: unknown): string {
  return typeof value === "string"
    ? JSON.stringify(value)
    : typeof value === "object"
    ? JSON.stringify(value)
    : String(value);
}

/** `.a.b` / `['a'].b` → `a.b`. */
function normalizeFieldPath(fieldPath: string): string {
  return fieldPath.trim().replace(/\['([^']*)'\]/g, ".$1").replace(/^\./, "");
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
}

/** The StatusCause of a field error (field.Invalid/Forbidden/Required/Duplicate as kube words them). */
function causeFor(field: string, value: unknown, detail: string, reason: string | undefined): StatusCause {
  switch (reason) {
    case "FieldValueForbidden":
      return { reason, message: `Forbidden: ${detail}`, field };
    case "FieldValueRequired":
      return { reason, message: `Required value: ${detail}`, field };
    case "FieldValueDuplicate":
      return { reason, message: `Duplicate value: ${goValue(value)}`, field };
    default: {
      const shown = isMap(value) || Array.isArray(value) ? "Invalid value" : `Invalid value: ${goValue(value)}`;
      return { reason: "FieldValueInvalid", message: `${shown}: ${detail}`, field };
    }
  }
}

interface Walk {
  causes: StatusCause[];
  warnings: string[];
}

/** Whether errors at a node ratchet: the node (or its nearest correlatable ancestor) equals its old value. */
type Ratchet = { correlated: boolean; old: unknown; parentEqual: boolean } | undefined;

function shouldRatchet(value: unknown, r: Ratchet): boolean {
  if (!r) return false;
  return r.correlated ? deepEqual(value, r.old) : r.parentEqual;
}

function nextRatchet(r: Ratchet, value: unknown, oldChild: unknown, correlated: boolean): Ratchet {
  if (!r) return undefined;
  const equalHere = r.correlated ? deepEqual(value, r.old) : r.parentEqual;
  return { correlated: correlated && r.correlated && oldChild !== undefined, old: oldChild, parentEqual: equalHere };
}

function runRules(
  value: unknown,
  old: unknown,
  schema: OpenApiSchema,
  path: string,
  ratchet: Ratchet,
  out: Walk,
): void {
  const rules: ValidationRule[] = schema["x-kubernetes-validations"] ?? [];
  if (rules.length === 0) return;
  const self = toCel(value, schema);
  const oldSelf = old === undefined ? undefined : toCel(old, schema);
  const type = schema.type ?? ""; // kube shows the node's type ("" for int-or-string) as the bad value
  for (const rule of rules) {
    const compiled = compileExpression(rule.rule);
    const skipped = (why: string) =>
      out.warnings.push(
        `${path || "<root>"}: the fake API server did not evaluate rule ${JSON.stringify(rule.rule)}: ${why}`,
      );
    if (compiled.unsupported) {
      skipped(`unsupported CEL: ${compiled.unsupported}`);
      continue;
    }
    if (compiled.error || !compiled.run) {
      out.causes.push(causeFor(path, type, `rule compile error: ${compiled.error}`, undefined));
      continue;
    }
    if (compiled.usesOldSelf && old === undefined && !rule.optionalOldSelf) continue;
    const vars: Record<string, unknown> = { self };
    if (compiled.usesOldSelf) vars.oldSelf = rule.optionalOldSelf ? optionalOf(oldSelf) : oldSelf;
    const result = compiled.run(vars);
    const error = runtimeErrorText(result);
    if (error?.startsWith("unbound function")) {
      // A function of kube's library the fake lacks (ip, cidr, semver, find, ...): not evaluated rather than refused.
      skipped(`unsupported CEL: ${error}`);
      continue;
    }
    if (error !== undefined) {
      const detail = error === "no such overload"
        ? `'${error}': call arguments did not match a supported operator, function or macro signature for rule: ${
          ruleErrorString(rule)
        }`
        : `${error} evaluating rule: ${ruleErrorString(rule)}`;
      out.causes.push(causeFor(path, type, detail, undefined));
      continue;
    }
    if (result === true) continue;
    const field = rule.fieldPath ? [path, normalizeFieldPath(rule.fieldPath)].filter((p) => p).join(".") : path;
    let detail = rule.message?.trim() ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
    if (rule.messageExpression) {
      const message = compileExpression(rule.messageExpression).run?.(vars);
      if (typeof message === "string" && message.trim() !== "") detail = message;
    }
    const cause = causeFor(field, value, detail, rule.reason);
    if (!compiled.usesOldSelf && shouldRatchet(value, ratchet)) {
      out.warnings.push(`${cause.field}: ${cause.message}`);
    } else out.causes.push(cause);
  }
}

function walk(value: unknown, old: unknown, schema: OpenApiSchema | undefined, path: string, r: Ratchet, out: Walk) {
  if (!schema || value === null || value === undefined) return;
  runRules(value, old, schema, path, r, out);
  if (Array.isArray(value)) {
    const items = schema.items as OpenApiSchema | undefined;
    if (!items) return;
    const keys: string[] | undefined = schema["x-kubernetes-list-type"] === "map"
      ? schema["x-kubernetes-list-map-keys"]
      : undefined;
    const oldItems = Array.isArray(old) ? old : [];
    value.forEach((item, i) => {
      const oldItem = keys && isMap(item)
        ? oldItems.find((o) => isMap(o) && keys.every((k) => deepEqual(o[k], item[k])))
        : undefined;
      walk(item, oldItem, items, `${path}[${i}]`, nextRatchet(r, value, oldItem, keys !== undefined), out);
    });
    return;
  }
  if (!isMap(value)) return;
  const additional = isMap(schema.additionalProperties) ? schema.additionalProperties as OpenApiSchema : undefined;
  const oldMap = isMap(old) ? old : undefined;
  for (const [key, v] of Object.entries(value)) {
    const sub = schema.properties?.[key] as OpenApiSchema | undefined;
    if (sub) {
      walk(v, oldMap?.[key], sub, path ? `${path}.${key}` : key, nextRatchet(r, value, oldMap?.[key], true), out);
    } else if (additional) {
      walk(v, oldMap?.[key], additional, `${path}[${key}]`, nextRatchet(r, value, oldMap?.[key], true), out);
    }
  }
}

/**
 * Runs every CEL rule of `schema` over `obj` (a whole custom resource; `old` on updates, enabling transition rules
 * and ratcheting).
 *
 * @example
 * ```ts
 * import { validateCel } from "./validate.ts";
 * const schema = { type: "object", properties: { spec: { type: "object",
 *   "x-kubernetes-validations": [{ rule: "self.min <= self.max", message: "min > max" }],
 *   properties: { min: { type: "integer" }, max: { type: "integer" } } } } };
 * const { causes } = validateCel({ spec: { min: 2, max: 1 } }, undefined, schema);
 * console.assert(causes[0].message === "Invalid value: min > max");
 * ```
 */
export function validateCel(obj: unknown, old: unknown, schema: OpenApiSchema): CelValidationResult {
  const out: Walk = { causes: [], warnings: [] };
  const ratchet: Ratchet = old === undefined ? undefined : { correlated: true, old, parentEqual: false };
  walk(obj, old, schema, "", ratchet, out);
  return out;
}

/**
 * Whether any node of `schema` has `x-kubernetes-validations` (kube builds no CEL validator otherwise). Remembered per
 * schema object: every write of a custom resource asks, and a CRD's schema object is replaced, not edited, on change.
 */
export function hasValidationRules(schema: OpenApiSchema | undefined): boolean {
  if (!schema || typeof schema !== "object") return false;
  let known = RULES_KNOWN.get(schema);
  if (known === undefined) RULES_KNOWN.set(schema, known = findValidationRules(schema));
  return known;
}

const RULES_KNOWN = new WeakMap<OpenApiSchema, boolean>();

function findValidationRules(schema: OpenApiSchema | undefined): boolean {
  if (!schema || typeof schema !== "object") return false;
  if ((schema["x-kubernetes-validations"] ?? []).length > 0) return true;
  const additional = isMap(schema.additionalProperties) ? [schema.additionalProperties as OpenApiSchema] : [];
  const children = [...Object.values(schema.properties ?? {}), ...(schema.items ? [schema.items] : []), ...additional];
  return children.some((c) => findValidationRules(c as OpenApiSchema));
}
