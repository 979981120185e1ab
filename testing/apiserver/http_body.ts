/**
 * Request bodies for the fake server: size-limited reads (413 past the limit, like kube-apiserver's 3 MiB) and
 * decoding by Content-Type (JSON, YAML, patch types). Bad input becomes a Kubernetes Status, never a crash; nesting
 * deeper than kube's 10 000 levels is a 400 (../../runtime/http/body_decode.ts).
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { parseJsonBody, parseYamlBody } from "../../runtime/http/body_decode.ts";
import { readBytesUpTo } from "../../runtime/http/bounded_body.ts";
import { goJsonSyntaxError } from "./go_json_syntax.ts";
import { customResourceDecodeError } from "./custom_resource_decoding.ts";
import { goTypeError } from "./go_json_types.ts";
import { decodeKubernetesProtobuf } from "./protobuf.ts";
import type { ResourceDef } from "./resource_def.ts";
import { badRequest, invalid, unsupportedMediaType } from "./status_errors.ts";

/** kube-apiserver's default request body limit. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** The media type without parameters, lower-cased ("" when absent). */
export function mediaType(header: string | null): string {
  return (header ?? "").split(";")[0].trim().toLowerCase();
}

/** Reads the whole body, refusing more than `limitBytes` with 413. */
export async function readBody(req: Request, limitBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array();
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limitBytes) {
    await req.body.cancel().catch(() => {});
    throw tooLarge(limitBytes);
  }
  const read = await readBytesUpTo(req.body, limitBytes);
  if (read === "too-large") throw tooLarge(limitBytes);
  return read;
}

function tooLarge(limit: number): ApiError {
  return new ApiError(
    failureStatus(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`),
    { verb: "request" },
  );
}

const JSON_TYPES = new Set([
  "",
  "application/json",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "*/*",
]);
const YAML_TYPES = new Set(["application/yaml", "application/apply-patch+yaml", "application/x-yaml", "text/yaml"]);

/** Decodes a JSON, YAML or Kubernetes protobuf body; 415 for other media types, 400 for syntax errors. */
export function decodeBody(bytes: Uint8Array, contentType: string, verb: string): unknown {
  if (contentType === "application/vnd.kubernetes.protobuf") return decodeKubernetesProtobuf(bytes);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (JSON_TYPES.has(contentType)) {
    try {
      return parseJsonBody(text);
    } catch (err) {
      throw badRequest(`error decoding request body as JSON: ${(err as Error).message}`, verb);
    }
  }
  if (YAML_TYPES.has(contentType)) {
    try {
      return parseYamlBody(text);
    } catch (err) {
      throw badRequest(`error decoding YAML: ${(err as Error).message.split("\n")[0]}`, verb);
    }
  }
  throw unsupportedMediaType([
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
  ]);
}

/** The body must be a JSON object for writes. */
export function requireObject(value: unknown, verb: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("Object 'Kind' is missing in the request body: expected a JSON object", verb);
  }
  return value as Record<string, unknown>;
}

/** Go's text of an anonymous `struct { APIVersion string ...; Kind string ... }`, kube's version/kind sniffer. */
const TYPE_META_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** kube's summarizeData: the first 30 bytes of a body, as text when it starts with `{`, else in hex. */
function summarize(bytes: Uint8Array): string {
  if (bytes.length === 0) return "<empty>";
  const head = bytes.subarray(0, 30);
  const text = bytes[0] === 0x7b
    ? new TextDecoder().decode(head)
    : [...head].map((b) => b.toString(16).padStart(2, "0")).join("");
  return bytes.length > 30 ? `${text} ...` : text;
}

/**
 * The object of a create or update body of `def`, decoded as kube-apiserver decodes it: a JSON body is first checked
 * whole (Go's syntax errors) and its apiVersion and kind read (a body that is not an object, or whose apiVersion or kind
 * is not a string, fails there): 400 `the object provided is unrecognized (must be of type <Kind>): couldn't get
 * version/kind; json parse error: <Go's error> (<the body's first 30 bytes>)`. `null` is an empty object. A built-in
 * kind is then type-checked against its Go struct (go_json_types.ts): 400 `<Kind> in version "<v>" cannot be handled
 * as a <Kind>: json: cannot unmarshal ...`. YAML and protobuf bodies are decoded as {@link decodeBody} does.
 */
export function decodeObjectBody(
  bytes: Uint8Array,
  contentType: string,
  def: ResourceDef,
  verb: string,
): Record<string, unknown> {
  const json = contentType === "application/json" || contentType === "" || contentType === "*/*";
  if (!json) return requireObject(decodeBody(bytes, contentType, verb), verb);
  const unrecognized = (why: string) =>
    badRequest(
      `the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; ` +
        `json parse error: ${why} (${summarize(bytes)})`,
      verb,
    );
  const syntax = goJsonSyntaxError(bytes);
  if (syntax) throw unrecognized(syntax);
  const value = decodeBody(bytes, contentType, verb);
  if (value === null && def.custom) throw kindMissing(def, bytes, verb);
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    const what = Array.isArray(value) ? "array" : typeof value === "boolean" ? "bool" : typeof value;
    throw unrecognized(`json: cannot unmarshal ${what} into Go value of type ${TYPE_META_STRUCT}`);
  }
  const body = value as Record<string, unknown>;
  for (const field of ["apiVersion", "kind"]) {
    const v = body[field];
    if (v === null || v === undefined || typeof v === "string") continue;
    const what = Array.isArray(v) ? "array" : typeof v === "boolean" ? "bool" : typeof v;
    throw unrecognized(`json: cannot unmarshal ${what} into Go struct field .${field} of type string`);
  }
  if (def.custom) {
    checkCustomTypeMeta(def, body, bytes, verb);
    const why = customResourceDecodeError(body);
    if (why) {
      throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${why}`, verb);
    }
  } else {
    // Decoded into the Go type the body names (kube converts to the URL's kind afterwards), else the URL's.
    const [group, version] = typeof body.apiVersion === "string" && body.apiVersion
      ? (body.apiVersion.includes("/") ? body.apiVersion.split("/", 2) : ["", body.apiVersion])
      : [def.group, def.version];
    const kind = typeof body.kind === "string" && body.kind ? body.kind : def.kind;
    const why = goTypeError(group, version, kind, body);
    if (why) throw badRequest(`${kind} in version "${version}" cannot be handled as a ${def.kind}: ${why}`, verb);
  }
  return body;
}

const JSON_PATCH_TYPES = new Set([
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
]);

/** A PATCH body: a JSON, merge or strategic merge patch that is not JSON (or empty) is kube's 400 `invalid JSON patch`. */
export function decodePatchBody(bytes: Uint8Array, contentType: string): unknown {
  const syntax = JSON_PATCH_TYPES.has(contentType) ? goJsonSyntaxError(bytes) : undefined;
  // Too deep is refused by the decoder below, in its words (kube's limit is deeper than the fake's).
  if (syntax && !syntax.endsWith("exceeded max depth")) throw badRequest("invalid JSON patch", "patch");
  return decodeBody(bytes, contentType, "patch");
}

/** The unstructured decoder's 400 for a custom resource body without a kind. */
function kindMissing(def: ResourceDef, bytes: Uint8Array, verb: string) {
  const text = new TextDecoder().decode(bytes);
  return badRequest(
    `the object provided is unrecognized (must be of type ${def.kind}): Object 'Kind' is missing in '${text}' ` +
      `(${summarize(bytes)})`,
    verb,
  );
}

/**
 * A custom resource body's apiVersion and kind, as apiextensions-apiserver checks them: no kind is 400 `Object 'Kind'
 * is missing`, another (or no) apiVersion than the URL's 400 `the API version in the data (...) does not match the
 * expected API version (...)`, another kind 422 `kind: Invalid value: "<kind>": must be <Kind>`.
 */
function checkCustomTypeMeta(def: ResourceDef, body: Record<string, unknown>, bytes: Uint8Array, verb: string): void {
  if (!body.kind) throw kindMissing(def, bytes, verb);
  const expected = `${def.group}/${def.version}`;
  const apiVersion = String(body.apiVersion ?? "");
  if (apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${expected})`,
      verb,
    );
  }
  if (body.kind !== def.kind) {
    const kind = String(body.kind);
    const name = String((body.metadata as { name?: unknown } | undefined)?.name ?? "");
    throw invalid({ group: def.group, plural: def.plural, kind }, name, [{
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(kind)}: must be ${def.kind}`,
      field: "kind",
    }], verb);
  }
}
