/**
 * ObjectMeta validation every strategy shares, as kube-apiserver v1.37 runs it (apimachinery
 * pkg/api/validation/objectmeta.go `ValidateObjectMetaAccessor`, pkg/apis/meta/v1/validation `ValidateLabels`, and
 * for built-in kinds pkg/apis/core/validation `ValidateObjectMeta`'s finalizer-name check): generateName, label keys
 * and values, annotation keys and their 256 KiB total, ownerReferences and finalizers — in kube's order, with kube's
 * field paths and messages.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { ObjectMeta, OwnerReference } from "../../../runtime/types.ts";
import { labelValueErrors, qualifiedNameErrors } from "../../../runtime/apimachinery/names.ts";
import { fieldInvalid, fieldRequired, fieldTooLong } from "./field_errors.ts";

/** apimachinery's TotalAnnotationSizeLimitB: keys plus values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/** Finalizers without a domain that built-in kinds accept (core helper.IsStandardFinalizerName). */
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** UTF-8 length, as Go's len(string). */
export function byteLength(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/** What {@link validateObjectMeta} checks besides the generic rules. */
export interface ObjectMetaOptions {
  /**
   * Built-in kinds also refuse finalizer names without a `/` that are not standard (`kubernetes`, `orphan`,
   * `foregroundDeletion`); custom resources only warn (not modelled).
   */
  builtin: boolean;
}

/**
 * Causes for a `generateName` the kind's name rule refuses (checked as a prefix: a trailing `-` is allowed), with
 * `validateName`'s messages moved to `metadata.generateName`.
 */
export function validateGenerateName(
  generateName: string,
  validateName: (name: string) => StatusCause[],
): StatusCause[] {
  // kube: maskTrailingDash — "abc-" is checked as "abc" + an alphanumeric.
  const masked = generateName.length > 1 && generateName.endsWith("-") ? `${generateName.slice(0, -2)}a` : generateName;
  return validateName(masked).map((c) => ({
    ...c,
    field: "metadata.generateName",
    message: (c.message ?? "").replace(JSON.stringify(masked), JSON.stringify(generateName)),
  }));
}

/** Causes for label keys and values (pkg/apis/meta/v1/validation.ValidateLabels). */
export function validateLabels(labels: Record<string, string> | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of qualifiedNameErrors(k)) causes.push(fieldInvalid(field, k, msg));
    for (const msg of labelValueErrors(String(v))) causes.push(fieldInvalid(field, String(v), msg));
  }
  return causes;
}

/** Causes for annotation keys (case-insensitive qualified names) and their total size. */
export function validateAnnotations(annotations: Record<string, string> | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of qualifiedNameErrors(k.toLowerCase())) causes.push(fieldInvalid(field, k, msg));
    total += byteLength(k) + byteLength(String(v));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) causes.push(fieldTooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return causes;
}

/** The JSON Go writes for an OwnerReference (field order of the struct, empty fields left out). */
function ownerRefJson(ref: OwnerReference): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"] as const) {
    const v = ref[k];
    if (v !== undefined && v !== "") out[k] = v;
  }
  return out;
}

/** Causes for ownerReferences: required fields per reference, at most one controller. */
export function validateOwnerReferences(refs: OwnerReference[] | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let firstController = "";
  (refs ?? []).forEach((ref, i) => {
    const at = `${field}[${i}]`;
    const apiVersion = ref.apiVersion ?? "";
    if (!apiVersion) causes.push(fieldRequired(`${at}.apiVersion`, "must not be empty"));
    else if (apiVersion.split("/").length > 2 || apiVersion.endsWith("/")) {
      causes.push(fieldInvalid(`${at}.apiVersion`, apiVersion, "must be <group>/<version> or <version>"));
    }
    if (!ref.kind) causes.push(fieldRequired(`${at}.kind`, "must not be empty"));
    if (!ref.name) causes.push(fieldRequired(`${at}.name`, "must not be empty"));
    if (!ref.uid) causes.push(fieldRequired(`${at}.uid`, "must not be empty"));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        causes.push(
          fieldInvalid(
            field,
            (refs ?? []).map(ownerRefJson),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else firstController = current;
    }
  });
  return causes;
}

/** Causes for finalizer names (qualified names; built-ins: fully qualified unless standard). */
export function validateFinalizers(finalizers: string[] | undefined, field: string, builtin: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of finalizers ?? []) {
    for (const msg of qualifiedNameErrors(String(f))) causes.push(fieldInvalid(field, String(f), msg));
  }
  if (builtin) {
    (finalizers ?? []).forEach((f, i) => {
      if (!String(f).includes("/") && !STANDARD_FINALIZERS.has(String(f))) {
        causes.push(
          fieldInvalid(
            `${field}[${i}]`,
            String(f),
            "name is neither a standard finalizer name nor is it fully qualified",
          ),
        );
      }
    });
  }
  return causes;
}

/**
 * Causes for an object's metadata besides its name (checked by the strategy's `validateName`): labels,
 * annotations, ownerReferences, finalizers — in kube's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateObjectMeta } from "./object_meta.ts";
 * const causes = validateObjectMeta({ name: "x", ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "" }] }, {
 *   builtin: true,
 * });
 * assert.deepEqual(causes, [{
 *   reason: "FieldValueRequired",
 *   message: "Required value: must not be empty",
 *   field: "metadata.ownerReferences[0].uid",
 * }]);
 * ```
 */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions): StatusCause[] {
  return [
    ...validateLabels(meta.labels, "metadata.labels"),
    ...validateAnnotations(meta.annotations, "metadata.annotations"),
    ...validateOwnerReferences(meta.ownerReferences, "metadata.ownerReferences"),
    ...validateFinalizers(meta.finalizers, "metadata.finalizers", opts.builtin),
  ];
}
