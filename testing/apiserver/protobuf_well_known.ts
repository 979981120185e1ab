/**
 * The messages whose JSON form is not their fields: apimachinery's Time, MicroTime, Duration, Quantity,
 * IntOrString, RawExtension and FieldsV1, and apiextensions' JSON and JSONSchemaPropsOr{Bool,Array,StringArray}.
 * {@link wellKnownToJson} turns a decoded message (its fields by name) into the JSON form, as Go's MarshalJSON does;
 * {@link wellKnownFromJson} turns the JSON form into the fields Go's Marshal writes, as its UnmarshalJSON reads
 * them. protobuf.ts and protobuf_encode.ts both go through here.
 * @module
 */

import { formatGoDuration } from "../../runtime/apimachinery/durations.ts";
import { parseGoDuration } from "../../runtime/apimachinery/go_duration.ts";

const APIEXT = "apiext.apiextensions.v1.";

/** The short names of the messages this module converts. */
export const WELL_KNOWN_TYPES: ReadonlySet<string> = new Set([
  "meta.Time",
  "meta.MicroTime",
  "meta.Duration",
  "am.api.resource.Quantity",
  "am.util.intstr.IntOrString",
  "am.runtime.RawExtension",
  "meta.FieldsV1",
  `${APIEXT}JSON`,
  `${APIEXT}JSONSchemaPropsOrBool`,
  `${APIEXT}JSONSchemaPropsOrArray`,
  `${APIEXT}JSONSchemaPropsOrStringArray`,
]);

const ZERO_TIME_SECONDS = -62135596800; // Go's time.Time{} as Unix seconds

function timeString(seconds: number, nanos: number, micro: boolean): string | undefined {
  if ((seconds === 0 && nanos === 0) || seconds === ZERO_TIME_SECONDS) return undefined;
  const iso = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "");
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z` : `${iso}Z`;
}

/** Seconds and (microsecond-truncated) nanoseconds of an RFC 3339 time, or undefined when it does not parse. */
function parseTime(value: string): { seconds: number; nanos: number } | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(value);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return undefined;
  const nanos = Number((m[2] ?? "").padEnd(9, "0").slice(0, 6)) * 1000;
  return { seconds: Math.floor(ms / 1000), nanos };
}

const text = new TextDecoder();
const utf8 = new TextEncoder();

function fromBase64(raw: string): Uint8Array {
  return Uint8Array.from(atob(raw), (c) => c.charCodeAt(0));
}

function parseRawJson(raw: unknown): unknown {
  if (typeof raw !== "string") return undefined;
  try {
    return JSON.parse(text.decode(fromBase64(raw)));
  } catch {
    return undefined;
  }
}

/**
 * The JSON form of a decoded well-known message (`value` holds its fields by name; bytes as base64), or undefined
 * where Go's JSON omits it.
 *
 * @example
 * ```ts
 * import { wellKnownToJson } from "./protobuf_well_known.ts";
 * wellKnownToJson("meta.Time", { seconds: 1700000000, nanos: 0 }); // "2023-11-14T22:13:20Z"
 * ```
 */
export function wellKnownToJson(type: string, value: Record<string, unknown>): unknown {
  switch (type) {
    case "meta.Time":
      return timeString(Number(value.seconds ?? 0), Number(value.nanos ?? 0), false);
    case "meta.MicroTime":
      return timeString(Number(value.seconds ?? 0), Number(value.nanos ?? 0), true);
    case "meta.Duration":
      return formatGoDuration(Number(value.duration ?? 0));
    case "am.api.resource.Quantity":
      return value.string ?? "0";
    case "am.util.intstr.IntOrString":
      return Number(value.type ?? 0) === 1 ? (value.strVal ?? "") : (value.intVal ?? 0);
    case "am.runtime.RawExtension":
    case `${APIEXT}JSON`:
    case "meta.FieldsV1":
      return parseRawJson(value.raw ?? value.Raw); // FieldsV1's proto field is spelled "Raw"
    case `${APIEXT}JSONSchemaPropsOrBool`:
      return value.schema ?? value.allows === true;
    case `${APIEXT}JSONSchemaPropsOrArray`:
      return Array.isArray(value.jSONSchemas) && value.jSONSchemas.length ? value.jSONSchemas : value.schema ?? null;
    case `${APIEXT}JSONSchemaPropsOrStringArray`:
      return Array.isArray(value.property) && value.property.length ? value.property : value.schema ?? null;
  }
  return value;
}

/**
 * The fields (by name, bytes as Uint8Array) Go's Marshal writes for the JSON form `json` of a well-known message,
 * or undefined for an empty message (a zero Time, an absent RawExtension).
 *
 * @example
 * ```ts
 * import { wellKnownFromJson } from "./protobuf_well_known.ts";
 * wellKnownFromJson("am.util.intstr.IntOrString", "http"); // { type: 1, intVal: 0, strVal: "http" }
 * ```
 */
export function wellKnownFromJson(type: string, json: unknown): Record<string, unknown> | undefined {
  const absent = json === undefined || json === null;
  switch (type) {
    case "meta.Time":
    case "meta.MicroTime": {
      // Go's Time.Marshal writes nothing for the zero time; Time keeps whole seconds (ProtoTime drops nanos).
      const t = typeof json === "string" ? parseTime(json) : undefined;
      if (!t || t.seconds === ZERO_TIME_SECONDS) return undefined;
      return { seconds: t.seconds, nanos: type === "meta.Time" ? 0 : t.nanos };
    }
    case "meta.Duration":
      // Nanoseconds (parseGoDuration gives milliseconds).
      return { duration: typeof json === "string" ? Math.round(parseGoDuration(json) * 1e6) : 0 };
    case "am.api.resource.Quantity":
      // Quantity's custom Marshal writes its canonical string; the zero Quantity is "0".
      return { string: absent ? "0" : String(json) };
    case "am.util.intstr.IntOrString":
      return typeof json === "string"
        ? { type: 1, intVal: 0, strVal: json }
        : { type: 0, intVal: Number(json ?? 0), strVal: "" };
    case "am.runtime.RawExtension":
    case `${APIEXT}JSON`:
      if (json instanceof Uint8Array) return { raw: json }; // already encoded (a watch event's object)
      return absent ? undefined : { raw: utf8.encode(JSON.stringify(json)) };
    case "meta.FieldsV1":
      return absent ? undefined : { Raw: utf8.encode(JSON.stringify(json)) };
    case `${APIEXT}JSONSchemaPropsOrBool`:
      return typeof json === "object" && json !== null ? { allows: true, schema: json } : { allows: json !== false };
    case `${APIEXT}JSONSchemaPropsOrArray`:
      return Array.isArray(json) ? { jSONSchemas: json } : absent ? undefined : { schema: json };
    case `${APIEXT}JSONSchemaPropsOrStringArray`:
      return Array.isArray(json) ? { property: json } : absent ? undefined : { schema: json };
  }
  return json as Record<string, unknown>;
}
