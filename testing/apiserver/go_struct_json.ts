/**
 * A built-in object's JSON as Go's encoding/json writes the typed object it decodes to: struct fields in the order
 * the Go struct declares them (an inline struct's fields in its place), map keys sorted. The order comes from kube's
 * type registry (protobuf_types.json lists each message's fields as the struct declares them). Values of raw types
 * (FieldsV1, RawExtension, JSON), scalars and fields the registry does not know are written as they are.
 * @module
 */
import { type FieldDesc, hasMessage, messageFields, SCALAR_TYPES } from "./protobuf_fields.ts";

/** Where a value sits: the type of a struct field (a message or scalar; a map's values; a list's items). */
export type GoSlot = Pick<FieldDesc, "type" | "map" | "repeated">;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether `message` is a struct whose JSON is its own field list (not raw bytes, not a registry unknown). */
function isStruct(message: string): boolean {
  if (SCALAR_TYPES.has(message) || !hasMessage(message)) return false;
  const { declared } = messageFields(message);
  return !(declared.length === 1 && declared[0].type === "bytes");
}

/** A struct's JSON fields in declaration order, inline structs' fields in their place. */
function jsonFields(message: string): FieldDesc[] {
  return messageFields(message).declared.flatMap((f) => f.inline && isStruct(f.type) ? jsonFields(f.type) : [f]);
}

/** The field of struct `message` whose JSON name is `name` (through inline structs), or undefined. */
export function goFieldNamed(message: string | undefined, name: string): FieldDesc | undefined {
  if (message === undefined || !isStruct(message)) return undefined;
  return jsonFields(message).find((f) => f.name === name);
}

/** The slot of one item of `slot` (a list's item, a map's value), or undefined. */
export function goItemSlot(slot: GoSlot | undefined): GoSlot | undefined {
  return slot && (slot.map || slot.repeated) ? { type: slot.type, map: false, repeated: false } : undefined;
}

/**
 * `value`, sitting in `slot`, as Go marshals it (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goJson } from "./go_struct_json.ts";
 * const ref = { name: "a", apiVersion: "v1", kind: "ConfigMap" };
 * const slot = { type: "api.core.v1.ObjectReference", map: false, repeated: false };
 * assert.equal(goJson(ref, slot), '{"kind":"ConfigMap","name":"a","apiVersion":"v1"}');
 * ```
 */
export function goJson(value: unknown, slot: GoSlot | undefined): string {
  if (slot === undefined || value === null || value === undefined) return JSON.stringify(value);
  const item = goItemSlot(slot);
  if (slot.repeated && Array.isArray(value)) return `[${value.map((v) => goJson(v, item)).join(",")}]`;
  if (slot.map && isPlainObject(value)) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${goJson(value[k], item)}`).join(",")}}`;
  }
  if (!isPlainObject(value) || !isStruct(slot.type)) return JSON.stringify(value);
  const fields = jsonFields(slot.type);
  const known = new Set(fields.map((f) => f.name));
  const parts = fields.filter((f) => value[f.name] !== undefined)
    .map((f) => `${JSON.stringify(f.name)}:${goJson(value[f.name], f)}`);
  for (const [k, v] of Object.entries(value)) {
    if (!known.has(k) && v !== undefined) parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
  }
  return `{${parts.join(",")}}`;
}
