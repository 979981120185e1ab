/**
 * Encodes JSON objects of built-in kinds as Kubernetes protobuf — what kube-apiserver answers a client whose
 * `Accept` prefers `application/vnd.kubernetes.protobuf` — byte for byte as Go's gogo-generated Marshal does, from
 * the same field tables the decoder reads (protobuf_fields.ts): fields in ascending number order; non-pointer
 * scalars and nested messages always (zero or empty), pointers only when set; repeated fields unpacked; map entries
 * sorted by key (Go's byte order), key and value always; the well-known types (Time, MicroTime, Quantity,
 * IntOrString, RawExtension, FieldsV1, ...) from their JSON forms (protobuf_well_known.ts).
 *
 * {@link encodeKubernetesProtobuf} writes the `k8s\0` magic and a runtime.Unknown envelope (typeMeta, raw,
 * contentEncoding "", contentType ""); {@link encodeWatchEventFrame} writes one frame of a protobuf watch
 * (`application/vnd.kubernetes.protobuf;stream=watch`): a 4-byte big-endian length, then a meta/v1 WatchEvent
 * without the envelope whose `object.raw` is the object in envelope form (apiserver's watchEncoder: the stream's
 * RawSerializer around the embedded encoder's bytes).
 * @module
 */

import type { Unstructured as KubeObject } from "./unstructured.ts";
import {
  type FieldDesc,
  hasMessage,
  messageFields,
  PROTOBUF_MAGIC,
  registeredMessage,
  SCALAR_TYPES,
} from "./protobuf_fields.ts";
import { WELL_KNOWN_TYPES, wellKnownFromJson } from "./protobuf_well_known.ts";
import { ProtobufWriter as Writer } from "./protobuf_writer.ts";

const utf8 = new TextEncoder();

function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  try {
    return Uint8Array.from(atob(String(value)), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array(); // not base64: Go's JSON decoder would have refused it
  }
}

/** Integers as Go holds them: JSON numbers (or numeric strings, as int64s sometimes travel) truncated. */
function integer(value: unknown): number | bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function writeScalar(w: Writer, number: number, type: string, value: unknown): void {
  switch (type) {
    case "string":
      w.delimited(number, utf8.encode(value === undefined || value === null ? "" : String(value)));
      return;
    case "bytes":
      w.delimited(number, bytesOf(value));
      return;
    case "bool":
      w.tag(number, 0);
      w.varint(value === true ? 1 : 0);
      return;
    case "double":
    case "float":
      w.fixed(number, Number(value ?? 0), type === "double");
      return;
    default: // int32, int64, uint32, uint64
      w.tag(number, 0);
      w.varint(integer(value));
  }
}

/** Sorts map keys as Go's sortkeys.Strings does: by UTF-8 bytes (UTF-16 order differs above U+FFFF). */
function goStringOrder(a: string, b: string): number {
  if (a === b) return 0;
  const ab = utf8.encode(a);
  const bb = utf8.encode(b);
  const n = Math.min(ab.length, bb.length);
  for (let i = 0; i < n; i++) if (ab[i] !== bb[i]) return ab[i] - bb[i];
  return ab.length - bb.length;
}

/** The encoded fields of message `type` for `json` (its JSON form; absent: Go's zero value). */
function encodeMessageBytes(type: string, json: unknown): Uint8Array<ArrayBuffer> {
  const w = new Writer();
  const sliceOf = messageFields(type).sliceOf;
  const value = WELL_KNOWN_TYPES.has(type) ? wellKnownFromJson(type, json) : sliceOf ? { [sliceOf.name]: json } : json;
  if (value !== undefined) {
    writeFields(w, type, (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>);
  }
  return w.finish();
}

function writeFields(w: Writer, message: string, obj: Record<string, unknown>): void {
  for (const field of messageFields(message).ordered) {
    // An inline struct's fields sit in the parent's JSON object itself.
    const value = field.inline ? obj : obj[field.name];
    writeField(w, field, value);
  }
}

function writeField(w: Writer, field: FieldDesc, value: unknown): void {
  const { number, type } = field;
  const scalar = SCALAR_TYPES.has(type);
  const absent = value === undefined || value === null;
  // Values of the wrong JSON type (which Go's JSON decoder would have refused) count as absent.
  if (field.map) {
    if (absent || typeof value !== "object" || Array.isArray(value)) return;
    const entries = value as Record<string, unknown>;
    for (const key of Object.keys(entries).sort(goStringOrder)) {
      const v = entries[key];
      const entry = new Writer();
      entry.delimited(1, utf8.encode(key));
      if (!scalar) entry.delimited(2, encodeMessageBytes(type, v));
      else if (type !== "bytes" || (v !== undefined && v !== null)) writeScalar(entry, 2, type, v); // nil []byte: no value
      w.delimited(number, entry.finish());
    }
    return;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) return;
    for (const item of value as unknown[]) {
      if (scalar) writeScalar(w, number, type, item);
      else w.delimited(number, encodeMessageBytes(type, item));
    }
    return;
  }
  // Pointers and byte slices are written when set; everything else always, at its zero value when absent.
  if (absent && (field.pointer || type === "bytes")) return;
  if (scalar) writeScalar(w, number, type, value);
  else w.delimited(number, encodeMessageBytes(type, value));
}

/** Whether {@link encodeKubernetesProtobuf} can encode this object: a kind kube's registry lists for its group-version. */
export function isProtobufEncodable(obj: { apiVersion?: unknown; kind?: unknown }): boolean {
  const message = registeredMessage(String(obj.apiVersion ?? ""), String(obj.kind ?? ""));
  return message !== undefined && hasMessage(message);
}

/**
 * The protobuf encoding of a built-in object (or List, or Status) in its JSON form: `k8s\0` + runtime.Unknown.
 * Throws for a kind kube's registry does not list ({@link isProtobufEncodable}).
 *
 * @example
 * ```ts
 * import { encodeKubernetesProtobuf } from "./protobuf_encode.ts";
 * import { decodeKubernetesProtobuf } from "./protobuf.ts";
 * const bytes = encodeKubernetesProtobuf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "b" } });
 * decodeKubernetesProtobuf(bytes).data; // { a: "b" }
 * ```
 */
export function encodeKubernetesProtobuf(obj: KubeObject | Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const apiVersion = String(obj.apiVersion ?? "");
  const kind = String(obj.kind ?? "");
  const message = registeredMessage(apiVersion, kind);
  if (message === undefined || !hasMessage(message)) {
    throw new Error(`no protobuf message for kind "${kind}" of version "${apiVersion}"`);
  }
  const raw = encodeMessageBytes(message, obj);
  const w = new Writer();
  w.bytes(Uint8Array.from(PROTOBUF_MAGIC));
  writeFields(w, "am.runtime.Unknown", { apiVersion, kind, raw, contentEncoding: "", contentType: "" });
  return w.finish();
}

/**
 * One frame of a protobuf watch stream for a `{type, object}` event: a 4-byte big-endian length, then the
 * meta/v1 WatchEvent (no envelope) whose object holds the object's {@link encodeKubernetesProtobuf} bytes.
 *
 * @example
 * ```ts
 * import { encodeWatchEventFrame } from "./protobuf_encode.ts";
 * const frame = encodeWatchEventFrame("ADDED", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
 * new DataView(frame.buffer).getUint32(0) === frame.length - 4; // true
 * ```
 */
export function encodeWatchEventFrame(
  type: string,
  object: KubeObject | Record<string, unknown>,
): Uint8Array<ArrayBuffer> {
  const event = encodeMessageBytes("meta.WatchEvent", { type, object: encodeKubernetesProtobuf(object) });
  const frame = new Uint8Array(4 + event.length);
  new DataView(frame.buffer).setUint32(0, event.length);
  frame.set(event, 4);
  return frame;
}
