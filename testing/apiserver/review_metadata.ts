/**
 * The access reviews' metadata rule (kube's ValidateSubjectAccessReview and friends): a SubjectAccessReview's or
 * SelfSubjectAccessReview's metadata must be empty, a LocalSubjectAccessReview's empty except for its namespace —
 * as kube checks it, after the field manager recorded the write, so a review sent with a name is refused with the
 * metadata it would have had (name, labels, the writer's managedFields entry) quoted in Go's field order.
 * @module
 */
import type { StatusCause } from "../../runtime/client/errors.ts";
import type { KubeObject } from "../../runtime/types.ts";
import { OBJECT_META_ORDER, sortedJson } from "./go_marshal.ts";
import { rfc3339 } from "./object_rules.ts";
import { managedFieldsAfterUpdate } from "./patch/apply.ts";
import type { ResourceDef } from "./resource_def.ts";
import { fieldInvalid } from "./validation/field_errors.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const ENTRY_ORDER = ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"];

/** A struct as Go marshals it: `order`'s fields that are set, each value with its maps sorted. */
function goStruct(value: Any, order: readonly string[], field = (_k: string, v: unknown) => sortedJson(v)): string {
  const keys = order.filter((k) => value[k] !== undefined && value[k] !== null && value[k] !== "");
  return `{${keys.map((k) => `${JSON.stringify(k)}:${field(k, value[k])}`).join(",")}}`;
}

/** ObjectMeta as Go marshals it: struct order (managedFields entries too), maps sorted, empty fields left out. */
function goObjectMeta(meta: Any): string {
  return goStruct(
    meta,
    OBJECT_META_ORDER,
    (k, v) =>
      k === "managedFields" ? `[${(v as Any[]).map((e) => goStruct(e, ENTRY_ORDER)).join(",")}]` : sortedJson(v),
  );
}

/** Reviews whose metadata must be empty (`except` names the field that may be set). */
const RULES: Record<string, { except?: "namespace" }> = {
  subjectaccessreviews: {},
  selfsubjectaccessreviews: {},
  localsubjectaccessreviews: { except: "namespace" },
};

/**
 * The cause refusing a review's metadata, or undefined when it is empty (or the kind has no such rule).
 *
 * @example
 * ```ts
 * import { reviewMetadataCause } from "./review_metadata.ts";
 * const def = { group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview", plural: "subjectaccessreviews" };
 * const body = { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", metadata: {}, spec: { user: "u" } };
 * console.assert(reviewMetadataCause(body as never, def as never, "m", 0) === undefined);
 * ```
 */
export function reviewMetadataCause(
  body: KubeObject,
  def: ResourceDef,
  fieldManager: string,
  nowMs: number,
  namespace?: string,
): StatusCause | undefined {
  const rule = RULES[def.plural];
  if (!rule) return undefined;
  // The create handler fills a namespaced object's namespace from the URL before anything checks it.
  const meta: Any = { ...(body.metadata ?? {}), ...(namespace ? { namespace } : {}) };
  delete meta.creationTimestamp; // a zero time: Go leaves it out
  const rest = Object.entries(meta).filter(([k, v]) => k !== rule.except && v !== undefined && v !== null && v !== "");
  if (rest.length === 0) return undefined;
  const entries = reviewManagedFields({ ...body, metadata: meta }, def, fieldManager, nowMs);
  if (entries.length > 0) meta.managedFields = entries;
  const detail = rule.except ? "must be empty except for namespace" : "must be empty";
  return { ...fieldInvalid("metadata", 0, detail), message: `Invalid value: ${goObjectMeta(meta)}: ${detail}` };
}

/** The managedFields entries kube's field manager records for a review written by `fieldManager` (an Update). */
export function reviewManagedFields(
  review: KubeObject,
  def: ResourceDef,
  fieldManager: string,
  nowMs: number,
): ReturnType<typeof managedFieldsAfterUpdate> {
  const written = { ...review, apiVersion: `${def.group}/${def.version}`, kind: def.kind };
  return managedFieldsAfterUpdate(undefined, written, fieldManager, rfc3339(nowMs), "Update", { def });
}
