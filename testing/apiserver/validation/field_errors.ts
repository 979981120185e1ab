/**
 * apimachinery's field.Error constructors (pkg/util/validation/field) as StatusCauses: the reason and the message
 * text kube-apiserver puts in a 422's causes (`Invalid value: "x": detail`, `Required value`, `Unsupported value: ...`).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";

/** A value as field.Error prints it: strings quoted, numbers and booleans bare, the rest as JSON. */
export function fieldValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === undefined || value === null) return "null";
  return JSON.stringify(value);
}

/** field.Invalid: `Invalid value: <value>: <detail>`. */
export function fieldInvalid(field: string, value: unknown, detail: string): StatusCause {
  const message = `Invalid value: ${fieldValue(value)}${detail ? `: ${detail}` : ""}`;
  return { reason: "FieldValueInvalid", message, field };
}

/** field.Required: `Required value` (`: <detail>`). */
export function fieldRequired(field: string, detail = ""): StatusCause {
  return { reason: "FieldValueRequired", message: detail ? `Required value: ${detail}` : "Required value", field };
}

/** field.NotSupported: `Unsupported value: <value>: supported values: "a", "b"`. */
export function fieldNotSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const list = supported.map((s) => JSON.stringify(s)).join(", ");
  return {
    reason: "FieldValueNotSupported",
    message: `Unsupported value: ${fieldValue(value)}: supported values: ${list}`,
    field,
  };
}

/** field.Duplicate: `Duplicate value: <value>`. */
export function fieldDuplicate(field: string, value: unknown): StatusCause {
  return { reason: "FieldValueDuplicate", message: `Duplicate value: ${fieldValue(value)}`, field };
}

/** field.NotFound: `Not found: <value>`. */
export function fieldNotFound(field: string, value: unknown): StatusCause {
  return { reason: "FieldValueNotFound", message: `Not found: ${fieldValue(value)}`, field };
}

/** field.Forbidden: `Forbidden: <detail>`. */
export function fieldForbidden(field: string, detail: string): StatusCause {
  return { reason: "FieldValueForbidden", message: `Forbidden: ${detail}`, field };
}

/** field.TooLong with a byte limit: `Too long: may not be more than <n> bytes`. */
export function fieldTooLong(field: string, maxBytes: number): StatusCause {
  return { reason: "FieldValueTooLong", message: `Too long: may not be more than ${maxBytes} bytes`, field };
}

/** An immutable field changed: `Invalid value: <new>: field is immutable`. */
export function fieldImmutable(field: string, value: unknown): StatusCause {
  return fieldInvalid(field, value, "field is immutable");
}

/**
 * ValidateNonnegativeField over several fields: `Invalid value: <n>: must be greater than or equal to 0` for each of
 * `fields` of `obj` that is a negative number, at `<prefix>.<field>`, in the order given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { negativeFieldCauses } from "./field_errors.ts";
 * const causes = negativeFieldCauses({ replicas: -1, minReadySeconds: 0 }, ["replicas", "minReadySeconds"], "spec");
 * assert.deepEqual(causes.map((c) => c.field), ["spec.replicas"]);
 * ```
 */
export function negativeFieldCauses(
  obj: Record<string, unknown>,
  fields: readonly string[],
  prefix: string,
): StatusCause[] {
  return fields.filter((f) => typeof obj[f] === "number" && (obj[f] as number) < 0)
    .map((f) => fieldInvalid(`${prefix}.${f}`, obj[f], "must be greater than or equal to 0"));
}
