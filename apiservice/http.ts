/**
 * Web-standard Request/Response helpers of the farm router: JSON and Status responses, content negotiation
 * (`as=Table`, aggregated discovery, protobuf-only Accept), and body decoding that turns a malformed body into a
 * 400 BadRequest (nesting deeper than kube's 10 000 levels included) and an unknown media type into a 415.
 * @module
 */
import { ApiError, failureStatus, type Status } from "../runtime/client/errors.ts";
import { parseJsonBody, parseYamlBody } from "../runtime/http/body_decode.ts";

/** A JSON response. */
export function jsonResponse(body: unknown, code = 200, contentType = "application/json"): Response {
  return new Response(JSON.stringify(body), { status: code, headers: { "content-type": contentType } });
}

/** A Kubernetes Status response with the Status's code. */
export function statusResponse(status: Status, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { "content-type": "application/json", ...extraHeaders };
  const retry = status.details?.retryAfterSeconds;
  if (retry) headers["retry-after"] = String(retry);
  return new Response(JSON.stringify(status), { status: status.code, headers });
}

/** Converts anything thrown by a handler to a Status response (unknown errors → 500 InternalError). */
export function errorResponse(err: unknown): Response {
  if (err instanceof ApiError) return statusResponse(err.status);
  const message = err instanceof Error ? err.message : String(err);
  return statusResponse(failureStatus(500, "InternalError", `Internal error occurred: ${message}`));
}

/** Throws a 400 BadRequest ApiError. */
export function badRequest(message: string): never {
  throw new ApiError(failureStatus(400, "BadRequest", message), { verb: "decode" });
}

/** True when the Accept header asks for a meta.k8s.io Table. */
export function wantsTable(accept: string | null): boolean {
  return (accept ?? "").split(",").some((part) => {
    const params = part.split(";").map((p) => p.trim());
    return params.includes("as=Table") && params.some((p) => p === "g=meta.k8s.io");
  });
}

/** True when a JSON answer is acceptable (json, `*` wildcards or no Accept at all). */
export function acceptsJson(accept: string | null): boolean {
  if (!accept?.trim()) return true;
  return accept.split(",").some((part) => {
    const type = part.split(";")[0].trim().toLowerCase();
    return type === "application/json" || type === "*/*" || type === "application/*" ||
      type === "application/yaml";
  });
}

const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"];

/** The media type of a request body (lower case, no parameters; missing = application/json like kube-apiserver). */
export function mediaType(req: Request): string {
  return (req.headers.get("content-type") ?? "application/json").split(";")[0].trim().toLowerCase();
}

/** 415 for a patch type this server does not take. */
export function unsupportedPatch(type: string): never {
  throw new ApiError(
    failureStatus(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(", ")}` +
        ` (got ${type})`,
    ),
    { verb: "patch" },
  );
}

/** Reads and parses a JSON (or YAML, for apply patches and application/yaml) request body; malformed → 400. */
export async function readBody(req: Request, maxBytes = 3 * 1024 * 1024): Promise<unknown> {
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.length > maxBytes) {
    throw new ApiError(failureStatus(413, "RequestEntityTooLarge", `request body exceeds ${maxBytes} bytes`), {
      verb: "decode",
    });
  }
  const text = new TextDecoder().decode(bytes);
  if (!text.trim()) badRequest("the request body is empty");
  const type = mediaType(req);
  try {
    if (type.endsWith("yaml")) return parseYamlBody(text);
    return parseJsonBody(text);
  } catch (err) {
    badRequest(`the request body is not valid ${type.endsWith("yaml") ? "YAML" : "JSON"}: ${(err as Error).message}`);
  }
}

/** Reads a body that must be a JSON object. */
export async function readObjectBody(req: Request): Promise<Record<string, unknown>> {
  const body = await readBody(req);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    badRequest("the request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}
