/**
 * metav1 LabelSelector validation as kube-apiserver v1.37 applies it (apimachinery's ValidateLabelSelector with
 * invalid values not allowed): matchLabels' keys and values, and each match expression's operator, values and key.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { labelValueErrors, qualifiedNameErrors } from "../../../runtime/apimachinery/names.ts";
import { fieldForbidden, fieldInvalid, fieldRequired } from "./field_errors.ts";
import { validateLabels } from "./object_meta.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/**
 * Causes for `selector` at `path` (none when absent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateLabelSelector } from "./label_selector.ts";
 * const causes = validateLabelSelector({ matchExpressions: [{ key: "a", operator: "In" }] }, "spec.selector");
 * assert.deepEqual(causes.map((c) => c.field), ["spec.selector.matchExpressions[0].values"]);
 * ```
 */
export function validateLabelSelector(selector: unknown, path: string): StatusCause[] {
  if (!selector || typeof selector !== "object") return [];
  const { matchLabels, matchExpressions } = selector as Any;
  const causes = validateLabels(matchLabels, `${path}.matchLabels`);
  (Array.isArray(matchExpressions) ? matchExpressions : []).forEach((req: Any, i: number) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values: unknown[] = Array.isArray(req?.values) ? req.values : [];
    switch (req?.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          causes.push(fieldRequired(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        }
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          causes.push(
            fieldForbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        }
        break;
      default:
        causes.push(fieldInvalid(`${at}.operator`, req?.operator ?? "", "not a valid selector operator"));
    }
    const key = String(req?.key ?? "");
    for (const msg of qualifiedNameErrors(key)) causes.push(fieldInvalid(`${at}.key`, key, msg));
    values.forEach((value, j) => {
      for (const msg of labelValueErrors(String(value))) {
        causes.push(fieldInvalid(`${at}.values[${j}]`, String(value), msg));
      }
    });
  });
  return causes;
}
