/**
 * What apiextensions-apiserver's decoder does to a custom resource body before anything else runs (its
 * schemaCoercingDecoder and unstructuredSchemaCoercer): `metadata` is decoded alone into the Go ObjectMeta — a value
 * of the wrong JSON type is a decoding error (`json: cannot unmarshal string into Go struct field ObjectMeta.labels of
 * type map[string]string`, answered 400), a key ObjectMeta does not declare is an unknown field
 * (`metadata.bogusMeta`) — then the rest is pruned against the version's structural schema, whose dropped paths are
 * unknown fields too, sorted as the pruning sorts them. The strict decoder reports the metadata's first, then the
 * pruned ones.
 * @module
 */
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";
import { applyFieldValidation } from "./field_validation.ts";
import { goStructTypeError } from "./go_json_types.ts";
import { duplicateJsonFields } from "./json_duplicates.ts";
import { dropUnknownStructFields, strictFieldPath } from "./go_json_unknown.ts";
import type { ResourceDef } from "./resource_def.ts";
import { validateAndDefault } from "./schema.ts";

/** The recorded Go struct a custom resource's metadata decodes into. */
const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/**
 * The decoding error of a custom resource body's metadata (undefined when it decodes): what kube answers 400
 * `<Kind> in version "<version>" cannot be handled as a <Kind>: <error>` with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { customResourceDecodeError } from "./custom_resource_decoding.ts";
 * assert.equal(
 *   customResourceDecodeError({ metadata: { name: "a", labels: "x" } }),
 *   "json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string",
 * );
 * assert.equal(customResourceDecodeError({ metadata: "a" }), "json: cannot unmarshal string into Go value of type v1.ObjectMeta");
 * assert.equal(customResourceDecodeError({ metadata: { name: "a" }, spec: 1 }), undefined);
 * ```
 */
export function customResourceDecodeError(body: Record<string, unknown>): string | undefined {
  const meta = body.metadata;
  if (meta !== undefined && meta !== null && (typeof meta !== "object" || Array.isArray(meta))) {
    const what = Array.isArray(meta) ? "array" : typeof meta === "boolean" ? "bool" : typeof meta;
    return `json: cannot unmarshal ${what} into Go value of type v1.ObjectMeta`;
  }
  return goStructTypeError(OBJECT_META, meta);
}

/**
 * The unknown field paths of a custom resource body as kube's strict decoder lists them: ObjectMeta's (keys sorted, as
 * the decoder re-marshals the metadata map), then what pruning against `def`'s schema drops (sorted). The body is not
 * changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { customResourceUnknownFields } from "./custom_resource_decoding.ts";
 * const schema = { type: "object", properties: { spec: { type: "object", properties: { a: { type: "string" } } } } };
 * const body = { metadata: { name: "x", zz: 1 }, spec: { b: 1, a: "" }, bogus: true };
 * assert.deepEqual(customResourceUnknownFields({ schema }, body), ["metadata.zz", "bogus", "spec.b"]);
 * ```
 */
export function customResourceUnknownFields(
  def: Pick<ResourceDef, "schema">,
  body: Record<string, unknown>,
  prunedBySchema?: string[],
): string[] {
  const meta = dropUnknownStructFields(OBJECT_META, body.metadata, { sorted: true, keep: true })
    .map((steps) => `metadata.${strictFieldPath(steps)}`);
  if (!def.schema) return meta;
  // The paths schema.ts's validateAndDefault reports pruned, when the caller has them already.
  const pruned = (prunedBySchema ?? validateAndDefault(body, def.schema).pruned)
    .filter((p) => !p.startsWith("metadata.") && p !== "apiVersion" && p !== "kind");
  return [...meta, ...pruned.sort(compareStrings)];
}

/**
 * Drops the keys of a custom resource's metadata that ObjectMeta does not declare (kube's decoder rebuilds the
 * metadata from the decoded ObjectMeta, so they are never stored).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dropUnknownMetadata } from "./custom_resource_decoding.ts";
 * const obj = { metadata: { name: "a", bogus: 1 } };
 * dropUnknownMetadata(obj);
 * assert.deepEqual(obj, { metadata: { name: "a" } });
 * ```
 */
export function dropUnknownMetadata(obj: Record<string, unknown>): void {
  dropUnknownStructFields(OBJECT_META, obj.metadata);
}

/**
 * Prunes and defaults a custom resource in place as its decoder does: ObjectMeta's unknown keys and the fields the
 * schema does not know go, the schema's defaults are set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pruneCustomResource } from "./custom_resource_decoding.ts";
 * const schema = { type: "object", properties: { spec: { type: "object", properties: { a: { type: "string", default: "x" } } } } };
 * const obj = { metadata: { name: "n", bogus: 1 }, spec: { b: 1 } };
 * pruneCustomResource({ schema }, obj);
 * assert.deepEqual(obj, { metadata: { name: "n" }, spec: { a: "x" } });
 * ```
 */
export function pruneCustomResource(def: Pick<ResourceDef, "schema">, obj: Record<string, unknown>): void {
  dropUnknownMetadata(obj);
  if (!def.schema) return;
  const decoded = validateAndDefault(obj, def.schema).object as Record<string, unknown>;
  for (const key of Object.keys(obj)) if (key !== "metadata" && !(key in decoded)) delete obj[key];
  for (const [key, value] of Object.entries(decoded)) if (key !== "metadata") obj[key] = value;
}

/**
 * A custom resource JSON body's strict decoding errors in kube's order — duplicate keys, then
 * {@link customResourceUnknownFields} — refused at once (400) under `fieldValidation=Strict`, before admission and the
 * store (an existing name's 409 included); else returned for the strategy to warn about.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { customResourceStrictErrors } from "./custom_resource_decoding.ts";
 * const def = { kind: "Dial", version: "v1" } as Parameters<typeof customResourceStrictErrors>[0];
 * const text = '{"metadata":{"name":"a","name":"a"},"x":1}';
 * const { strictErrors } = customResourceStrictErrors(def, JSON.parse(text), text, "create", "Warn");
 * assert.deepEqual(strictErrors, ['duplicate field "metadata.name"']);
 * assert.throws(() => customResourceStrictErrors(def, JSON.parse(text), text, "create", "Strict"), /strict decoding error/);
 * ```
 */
export function customResourceStrictErrors(
  def: ResourceDef,
  body: Record<string, unknown>,
  text: string,
  verb: "create" | "update",
  fieldValidation: string | undefined,
): { duplicateFields: string[]; strictErrors: string[] } {
  const duplicateFields = duplicateJsonFields(text);
  const strictErrors = [
    ...duplicateFields.map((p) => `duplicate field ${JSON.stringify(p)}`),
    ...customResourceUnknownFields(def, body).map((p) => `unknown field ${JSON.stringify(p)}`),
  ];
  if (fieldValidation === "Strict") {
    applyFieldValidation({ def, verb, fieldValidation, strictErrors, warnings: [] }, []);
  }
  return { duplicateFields, strictErrors };
}
