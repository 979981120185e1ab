/**
 * Request bodies for the fake server: size-limited reads (413 past the limit, like kube-apiserver's 3 MiB) and
 * decoding by Content-Type (JSON, YAML, patch types). Bad input becomes a Kubernetes Status, never a crash; nesting
 * deeper than kube's 10 000 levels is a 400 (../../runtime/http/body_decode.ts).
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { parseJsonBody, parseYamlBody } from "../../runtime/http/body_decode.ts";
import { readBytesUpTo } from "../../runtime/http/bounded_body.ts";
import { decodeKubernetesProtobuf } from "./protobuf.ts";
import { badRequest, unsupportedMediaType } from "./status_errors.ts";

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
  throw unsupportedMediaType(contentType, [
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
