/**
 * The type check of kube-apiserver's JSON decoder for built-in kinds: a body is decoded into the kind's Go struct, and
 * a value of the wrong JSON type fails with encoding/json's `json: cannot unmarshal <what> into Go struct field
 * <Struct>.<path> of type <type>` (the first one in document order; a quantity that is not one fails with
 * resource.Quantity's own message). The Go types come from kube-apiserver v1.37's OpenAPI, recorded by
 * testdata/capture_go_types.ts, with the Go names OpenAPI loses (`v1.SecretType`, `v1.ResourceList`, a list item's
 * `v1.Capability`) recorded beside them from the Go structs themselves.
 * @module
 */
import recorded from "./testdata/openapi/go_types.json" with { type: "json" };

const TABLE = recorded as {
  kinds: Record<string, string>;
  structs: Record<string, string>;
  names: Record<string, string>;
};
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_ERROR = `quantities must match the regular expression '${QUANTITY.source}'`;

/** Parsed struct tables, by OpenAPI definition name. */
const structs = new Map<string, Map<string, string>>();
/** Parsed Go names of the structs' fields (field → the Go type at each level), by OpenAPI definition name. */
const goNames = new Map<string, Map<string, string[]>>();

/** The OpenAPI definition name of a built-in `group/version/kind`'s Go type, or undefined when it is not recorded. */
export function goTypeOf(group: string, version: string, kind: string): string | undefined {
  return TABLE.kinds[`${group}/${version}/${kind}`];
}

/**
 * The fields of the recorded struct `name` (JSON name → compact type: `string`, `[]#<struct>`, `map[string]string`,
 * `any` for raw JSON, ...); empty for an empty struct.
 */
export function goFieldsOf(name: string): Map<string, string> {
  let fields = structs.get(name);
  if (!fields) {
    fields = new Map(
      (TABLE.structs[name] ?? "").split(" ").filter((p) => p).map((p) => {
        const at = p.indexOf(":");
        return [p.slice(0, at), p.slice(at + 1)] as [string, string];
      }),
    );
    structs.set(name, fields);
  }
  return fields;
}

/**
 * The Go type names of struct `name`'s fields that OpenAPI loses: field → Go's name of its type at each level (the
 * field's type, then its items' or values' type: `["[]v1.Capability", "v1.Capability"]`); absent for a field whose
 * types are all unnamed or named as their definitions (`[]string`, `v1.Container`).
 */
function goNamesOf(name: string): Map<string, string[]> {
  let fields = goNames.get(name);
  if (!fields) {
    fields = new Map(
      (TABLE.names[name] ?? "").split(" ").filter((p) => p).map((p) => {
        const at = p.indexOf(":");
        return [p.slice(0, at), p.slice(at + 1).split(",")] as [string, string[]];
      }),
    );
    goNames.set(name, fields);
  }
  return fields;
}

/** How Go names the unnamed `type` in the message (`v1.Container`, `[]string`, `map[string]string`). */
function goName(type: string): string {
  if (type.startsWith("[]")) return type === "[]byte" ? "[]uint8" : `[]${goName(type.slice(2))}`;
  if (type.startsWith("map[string]")) return `map[string]${goName(type.slice(11))}`;
  if (type.startsWith("#")) return type.slice(1).split(".").slice(-2).join(".");
  if (type === "quantity") return "resource.Quantity";
  if (type === "intstr") return "intstr.IntOrString";
  return type;
}

/** encoding/json's name of a JSON value's kind in UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  if (typeof value === "boolean") return "bool";
  return typeof value; // string, number
}

class QuantityError extends Error {}

/**
 * The decode error of `body` as a `group/version/kind` built-in, or undefined when every typed field holds its JSON
 * type (or the kind is not recorded).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goTypeError } from "./go_json_types.ts";
 * assert.equal(
 *   goTypeError("", "v1", "ConfigMap", { metadata: { labels: { a: 1 } } }),
 *   "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
 * );
 * assert.equal(goTypeError("", "v1", "ConfigMap", { data: { a: "1" } }), undefined);
 * ```
 */
export function goTypeError(group: string, version: string, kind: string, body: unknown): string | undefined {
  const root = goTypeOf(group, version, kind);
  return root ? goStructTypeError(root, body) : undefined;
}

/**
 * The decode error of `body` decoded alone into the recorded Go struct `name` (an OpenAPI definition name), worded as
 * encoding/json words it (`json: cannot unmarshal string into Go struct field ObjectMeta.labels of type
 * map[string]string`), or undefined when every typed field holds its JSON type.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goStructTypeError } from "./go_json_types.ts";
 * assert.equal(
 *   goStructTypeError("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", { labels: "x" }),
 *   "json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string",
 * );
 * ```
 */
export function goStructTypeError(name: string, body: unknown): string | undefined {
  const root = name;
  if (!body || typeof body !== "object" || Array.isArray(body)) return undefined;
  let first: string | undefined;
  /**
   * Checks `value` against `type` at the struct field `field` (`Struct.path`); `names` are Go's names of `type` and
   * of its items' types, when they are named (`v1.SecretType`).
   */
  const check = (value: unknown, type: string, field: string, names: string[] = []) => {
    // null decodes to the zero value; undefined (an absent field in JSON) is not there at all.
    if (value === null || value === undefined || type === "any") return;
    const mismatch = (what = jsonKind(value)) => {
      first ??= `json: cannot unmarshal ${what} into Go struct field ${field} of type ${names[0] ?? goName(type)}`;
    };
    switch (type) {
      case "string":
        if (typeof value !== "string") mismatch();
        return;
      case "bool":
        if (typeof value !== "boolean") mismatch();
        return;
      case "float64":
        if (typeof value !== "number") mismatch();
        return;
      case "[]byte":
        if (typeof value !== "string") mismatch();
        return;
      case "int32":
      case "int64":
        return checkInt(value, type, mismatch);
      case "intstr":
        if (typeof value !== "string") {
          checkInt(value, "int32", (what) => {
            first ??= `json: cannot unmarshal ${what ?? jsonKind(value)} into Go struct field ${field} of type int32`;
          });
        }
        return;
      case "quantity":
        if (typeof value === "number") return;
        if (typeof value !== "string" || !QUANTITY.test(value)) throw new QuantityError(QUANTITY_ERROR);
        return;
    }
    if (type.startsWith("[]")) {
      if (!Array.isArray(value)) return mismatch();
      for (const item of value) check(item, type.slice(2), field, names.slice(1));
      return;
    }
    if (type.startsWith("map[string]")) {
      if (typeof value !== "object" || Array.isArray(value)) return mismatch();
      for (const v of Object.values(value as Record<string, unknown>)) check(v, type.slice(11), field, names.slice(1));
      return;
    }
    if (typeof value !== "object" || Array.isArray(value)) return mismatch();
    walkStruct(value as Record<string, unknown>, type.slice(1), field.slice(field.indexOf(".") + 1));
  };
  /** The fields of a struct `name` at JSON path `path` ("" at the root). */
  const walkStruct = (obj: Record<string, unknown>, name: string, path: string) => {
    const fields = goFieldsOf(name);
    const names = goNamesOf(name);
    const short = name.split(".").pop()!;
    for (const [key, value] of Object.entries(obj)) {
      const type = fields.get(key);
      if (type) check(value, type, `${short}.${path ? `${path}.` : ""}${key}`, names.get(key));
    }
  };
  try {
    walkStruct(body as Record<string, unknown>, root, "");
  } catch (err) {
    if (err instanceof QuantityError) return err.message;
    throw err;
  }
  return first;
}

/**
 * The top-level `spec` and `status` of a built-in kind that are Go structs (values, never pointers in kube's API
 * types): encoding/json writes them even when empty, so kube answers `"status": {}` for an object no one gave one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { alwaysEncodedStructs } from "./go_json_types.ts";
 * assert.deepEqual(alwaysEncodedStructs("", "v1", "ResourceQuota"), ["spec", "status"]);
 * assert.deepEqual(alwaysEncodedStructs("", "v1", "ConfigMap"), []);
 * ```
 */
export function alwaysEncodedStructs(group: string, version: string, kind: string): string[] {
  const root = TABLE.kinds[`${group}/${version}/${kind}`];
  if (!root) return [];
  const fields = goFieldsOf(root);
  return ["spec", "status"].filter((f) => fields.get(f)?.startsWith("#"));
}

/** An int32/int64 field: a whole number in range, else encoding/json's error (`number 1.5`, `string`). */
function checkInt(value: unknown, type: string, mismatch: (what?: string) => void): void {
  if (typeof value !== "number") return mismatch();
  const bound = type === "int32" ? 2 ** 31 : 2 ** 63;
  if (!Number.isInteger(value) || value < -bound || value >= bound) mismatch(`number ${value}`);
}
