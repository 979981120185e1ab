/**
 * A custom resource's replicas and selector at its CRD's `subresources.scale` paths, validated as apiextensions'
 * customResourceValidator does on every write (ValidateScaleSpec, ValidateScaleStatus): unstructured.NestedInt64's
 * accessor errors (`.spec.replicas accessor error: 12345 is of the type int64, expected map[string]interface{}`),
 * negative replicas and replicas above MaxInt32; the label selector must be a string.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { fieldInvalid } from "./field_errors.ts";

/** A CRD version's `subresources.scale`. */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

const MAX_INT32 = 2147483647;

/** Go's `%T` of a decoded JSON value (unstructured: integers are int64). */
function goType(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  return Array.isArray(value) ? "[]interface {}" : "map[string]interface {}";
}

/** Go's `%v` of a decoded JSON value. */
function goPrint(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goPrint).join(" ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `map[${entries.map(([k, v]) => `${k}:${goPrint(v)}`).join(" ")}]`;
  }
  return String(value);
}

/**
 * unstructured.NestedFieldNoCopy + a type check: the value at `path` (`.spec.replicas`), whether it was found, or the
 * accessor error.
 */
function nested(
  obj: unknown,
  path: string,
  want: "int64" | "string",
): { value?: unknown; error?: string } {
  const fields = path.replace(/^\./, "").split(".");
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return {};
    if (typeof val !== "object" || Array.isArray(val)) {
      const at = `.${fields.slice(0, i + 1).join(".")}`;
      return {
        error: `${at} accessor error: ${goPrint(val)} is of the type ${goType(val)}, expected map[string]interface{}`,
      };
    }
    const m = val as Record<string, unknown>;
    if (!(fields[i] in m)) return {};
    val = m[fields[i]];
  }
  if (goType(val) !== want) {
    return {
      error: `.${fields.join(".")} accessor error: ${goPrint(val)} is of the type ${goType(val)}, expected ${want}`,
    };
  }
  return { value: val };
}

/** The replicas at `path`: its accessor error, or a negative or too large value. */
function replicasCauses(obj: unknown, path: string): StatusCause[] {
  const { value, error } = nested(obj, path, "int64");
  if (error) return [fieldInvalid(path, 0, error)];
  const n = typeof value === "number" ? value : 0;
  if (n < 0) return [fieldInvalid(path, n, "should be a non-negative integer")];
  if (n > MAX_INT32) return [fieldInvalid(path, n, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/**
 * The scale causes of a write: the spec replicas (not on a status write), then the status replicas and selector.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scaleCauses } from "./custom_resource_scale.ts";
 * const paths = { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" };
 * assert.deepEqual(scaleCauses({ spec: 12345 }, paths, false).map((c) => c.message), [
 *   "Invalid value: 0: .spec.replicas accessor error: 12345 is of the type int64, expected map[string]interface{}",
 * ]);
 * assert.deepEqual(scaleCauses({ spec: { replicas: -1 } }, paths, false)[0].message, "Invalid value: -1: should be a non-negative integer");
 * ```
 */
export function scaleCauses(obj: unknown, paths: ScalePaths, statusOnly: boolean): StatusCause[] {
  const causes = statusOnly ? [] : replicasCauses(obj, paths.specReplicasPath);
  causes.push(...replicasCauses(obj, paths.statusReplicasPath));
  if (paths.labelSelectorPath) {
    const { error } = nested(obj, paths.labelSelectorPath, "string");
    if (error) causes.push(fieldInvalid(paths.labelSelectorPath, "", error));
  }
  return causes;
}
