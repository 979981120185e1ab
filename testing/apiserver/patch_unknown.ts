/**
 * Unknown fields of a built-in's PATCH, as kube-apiserver meets them (go_json_unknown.ts finds them). A JSON, merge
 * or strategic merge patch's result is decoded into the Go struct: under `fieldValidation=Strict` its unknown fields
 * are 422 on `patch` (`Invalid value: "<the patched object>": strict decoding error: unknown field "a", ...`, keys
 * sorted: the patch libraries re-marshal maps), under Warn warnings, and they are dropped. A server-side apply body is
 * converted to the kind's structured-merge-diff type first, which knows no unknown field whatever fieldValidation says:
 * 500 `failed to create typed patch object (<ns>/<name>; <group>/<version>, Kind=<Kind>): .<path>: field not declared
 * in schema` (keyed list items named by their keys: `.spec.containers[name="c"].bogus`).
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { dropUnknownGoFields, strictFieldPath, type UnknownFieldStep } from "./go_json_unknown.ts";
import { customResourceUnknownFields, pruneCustomResource } from "./custom_resource_decoding.ts";
import { childMeta, type PatchMeta, patchMetaFor } from "./patch/patch_meta.ts";
import type { ResourceDef } from "./resource_def.ts";

/**
 * Applies `fieldValidation` to the unknown fields of a built-in's patched object `obj`: the strict decoding error
 * (for the caller to answer as its 422 on `patch`) under Strict, else undefined after dropping them (and warning
 * under Warn). Custom resources: their decoder's unknown fields (custom_resource_decoding.ts), dropped by pruning.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BUILTIN_RESOURCES } from "./builtin_resources.ts";
 * import { patchedUnknownFields } from "./patch_unknown.ts";
 * const def = BUILTIN_RESOURCES.find((d) => d.plural === "configmaps")!;
 * const obj = { metadata: { name: "a" }, zz: 1, aa: 2 };
 * assert.equal(
 *   patchedUnknownFields(def, obj, "Strict", []),
 *   'strict decoding error: unknown field "aa", unknown field "zz"',
 * );
 * const warnings: string[] = [];
 * assert.equal(patchedUnknownFields(def, obj, "Warn", warnings), undefined);
 * assert.deepEqual(obj, { metadata: { name: "a" } });
 * assert.deepEqual(warnings, ['unknown field "aa"', 'unknown field "zz"']);
 * ```
 */
export function patchedUnknownFields(
  def: Pick<ResourceDef, "group" | "version" | "kind" | "custom" | "schema">,
  obj: Record<string, unknown>,
  fieldValidation: string | undefined,
  warnings: string[],
): string | undefined {
  const strict = fieldValidation === "Strict";
  const unknown = def.custom
    ? customResourceUnknownFields(def, obj)
    : dropUnknownGoFields(def.group, def.version, def.kind, obj, { sorted: true, keep: strict }).map(strictFieldPath);
  const messages = unknown.map((path) => `unknown field ${JSON.stringify(path)}`);
  if (def.custom && messages.length > 0 && !strict) pruneCustomResource(def, obj);
  if (messages.length === 0) return undefined;
  if (strict) return `strict decoding error: ${messages.join(", ")}`;
  if (fieldValidation === "Warn") warnings.push(...messages);
  return undefined;
}

/**
 * kube's 500 for a server-side apply body of a built-in with fields its type does not declare, or undefined.
 * `namespace` is the body's own `metadata.namespace` (kube names the object as sent).
 *
 * @example
 * ```ts
 * import { BUILTIN_RESOURCES } from "./builtin_resources.ts";
 * import { appliedUnknownFieldsError } from "./patch_unknown.ts";
 * const def = BUILTIN_RESOURCES.find((d) => d.plural === "configmaps")!;
 * const err = appliedUnknownFieldsError(def, { metadata: { name: "a" }, bogus: 1 }, "", "a");
 * console.assert(err?.status.message?.endsWith("(/a; /v1, Kind=ConfigMap): .bogus: field not declared in schema"));
 * ```
 */
export function appliedUnknownFieldsError(
  def: Pick<ResourceDef, "group" | "version" | "kind" | "custom">,
  applied: Record<string, unknown>,
  namespace: string,
  name: string,
): ApiError | undefined {
  if (def.custom) return undefined;
  const found = dropUnknownGoFields(def.group, def.version, def.kind, applied, { keep: true });
  if (found.length === 0) return undefined;
  const meta = patchMetaFor({ ...def, custom: false });
  const errors = found.map((steps) => `${smdPath(steps, meta)}: field not declared in schema`);
  const what = errors.length === 1 ? errors[0] : `errors:\n${errors.map((e) => `  ${e}`).join("\n")}`;
  const status = failureStatus(
    500,
    "",
    `failed to create typed patch object (${namespace}/${name}; ${def.group}/${def.version}, Kind=${def.kind}): ${what}`,
  );
  delete status.reason;
  return new ApiError(status, { verb: "patch", name });
}

/** A path as structured-merge-diff prints it: `.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].q`. */
function smdPath(steps: UnknownFieldStep[], root: PatchMeta): string {
  let out = "";
  let meta: PatchMeta = root;
  for (const step of steps) {
    if ("key" in step) {
      out += `.${step.key}`;
      meta = childMeta(meta, step.key);
      continue;
    }
    const item = step.item as Record<string, unknown>;
    const keys = [...(meta.mergeKeys ?? [])].sort().filter((k) => item?.[k] !== undefined);
    out += keys.length > 0 ? `[${keys.map((k) => `${k}=${JSON.stringify(item[k])}`).join(",")}]` : `[${step.index}]`;
    meta = { ...meta, mergeKeys: undefined, strategy: undefined, set: undefined };
  }
  return out;
}
