/**
 * Expected answers of the validation conformance cases (validation_meta.ts, validation_kinds.ts): kube-apiserver's
 * 422 Invalid Status for one or several causes, and the cause reasons they use.
 * @module
 */
import { cause } from "./status_assert.ts";

/** Cause reason of a value the field does not accept. */
export const INVALID = "FieldValueInvalid";
/** Cause reason of a missing required field. */
export const REQUIRED = "FieldValueRequired";

/** One invalid object: `Kind "name" is invalid: <field>: <message>` with that single cause. */
export function single(kind: string, name: string, reason: string, field: string, message: string) {
  return {
    code: 422,
    reason: "Invalid",
    message: `${kind} "${name}" is invalid: ${field}: ${message}`,
    causes: [cause(reason, field, message)],
  };
}

/** Several causes: `Kind "name" is invalid: [a: x, b: y]`. */
export function several(kind: string, name: string, causes: Array<[reason: string, field: string, message: string]>) {
  const list = causes.map(([, f, m]) => `${f}: ${m}`).join(", ");
  return {
    code: 422,
    reason: "Invalid",
    message: `${kind} "${name}" is invalid: [${list}]`,
    causes: causes.map(([r, f, m]) => cause(r, f, m)),
  };
}
