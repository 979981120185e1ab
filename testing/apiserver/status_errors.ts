/**
 * kube-apiserver's error constructors (apimachinery pkg/api/errors) for the fake server: each returns an
 * {@link ApiError} whose Status has the code, reason, message and details a real server sends.
 * @module
 */
import { ApiError, failureStatus, type StatusCause } from "../../runtime/client/errors.ts";
import { qualifiedResource } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";

type Def = Pick<ResourceDef, "group" | "plural" | "kind">;

function err(code: number, reason: string, message: string, verb: string, def?: Def, name?: string, extra = {}) {
  const details = def
    ? { name: name || undefined, group: def.group || undefined, kind: def.plural, ...extra }
    : Object.keys(extra).length
    ? extra
    : undefined;
  return new ApiError(failureStatus(code, reason, message, details), {
    verb,
    resource: def ? qualifiedResource(def) : undefined,
    name,
  });
}

/** 404 NotFound: `pods "x" not found`. */
export const notFound = (def: Def, name: string, verb = "get"): ApiError =>
  err(404, "NotFound", `${qualifiedResource(def)} "${name}" not found`, verb, def, name);

/** 409 AlreadyExists. */
export const alreadyExists = (def: Def, name: string): ApiError =>
  err(409, "AlreadyExists", `${qualifiedResource(def)} "${name}" already exists`, "create", def, name);

/** 409 Conflict on a stale resourceVersion (or failed precondition). */
export const conflict = (def: Def, name: string, verb: string, why?: string): ApiError =>
  err(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(def)} "${name}": ${
      why ?? "the object has been modified; please apply your changes to the latest version and try again"
    }`,
    verb,
    def,
    name,
  );

/** 422 Invalid with field causes: `Foo.example.com "x" is invalid: spec.a: Required value`. */
export function invalid(def: Def, name: string, causes: StatusCause[], verb = "create"): ApiError {
  const gk = def.group ? `${def.kind}.${def.group}` : def.kind;
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : `${c.message}`));
  const list = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  return new ApiError(
    failureStatus(422, "Invalid", `${gk} "${name}" is invalid: ${list}`, {
      name: name || undefined, // Go's StatusDetails.Name is omitempty
      group: def.group || undefined,
      kind: def.kind || undefined, // omitempty too
      causes,
    }),
    { verb, resource: qualifiedResource(def), name },
  );
}

/** 400 BadRequest. */
export const badRequest = (message: string, verb = "request"): ApiError => err(400, "BadRequest", message, verb);

/** 403 Forbidden: `pods "x" is forbidden: <why>` (with `causes` in its details when given). */
export const forbidden = (def: Def, name: string, why: string, verb: string, causes?: StatusCause[]): ApiError =>
  err(
    403,
    "Forbidden",
    `${qualifiedResource(def)} "${name}" is forbidden: ${why}`,
    verb,
    def,
    name,
    causes ? { causes } : {},
  );

/** 405 MethodNotAllowed, as kube-apiserver words it (empty details). */
export const methodNotAllowed = (def: Def, verb: string): ApiError =>
  new ApiError(
    failureStatus(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}),
    { verb, resource: qualifiedResource(def) },
  );

/** 410 Expired: the resourceVersion was compacted. */
export const expired = (message: string, verb = "watch"): ApiError => err(410, "Expired", message, verb);

/** 504 Timeout with cause ResourceVersionTooLarge (a resourceVersion ahead of the server); NewTimeoutError's prefix. */
export const tooLargeResourceVersion = (requested: number, current: number, verb = "watch"): ApiError =>
  new ApiError(
    failureStatus(504, "Timeout", `Timeout: Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    }),
    { verb },
  );

/** 406 NotAcceptable: no representation the client accepts (`types` are the ones the endpoint offers). */
export const notAcceptable = (types: readonly string[]): ApiError =>
  new ApiError(
    failureStatus(406, "NotAcceptable", `406: Not Acceptable\n\nAvailable representations: ${types.join(", ")}`, {}),
    { verb: "get" },
  );

/** 406 as `/apis` and `/apis/<group>` word it (discovery's own negotiation). */
export const notAcceptableDiscovery = (types: readonly string[]): ApiError =>
  new ApiError(
    failureStatus(406, "NotAcceptable", `only the following media types are accepted: ${types.join(", ")}`),
    { verb: "get" },
  );

/** 404 for a path kube-apiserver's resource handlers do not serve (unknown resource, subresource, version). */
export const noSuchResource = (verb = "get"): ApiError =>
  new ApiError(failureStatus(404, "NotFound", "the server could not find the requested resource", {}), { verb });

/** 405 for a method a path does not serve (HEAD, PUT on a collection, POST on discovery). */
export const methodNotAllowedPath = (verb = "request"): ApiError =>
  new ApiError(
    failureStatus(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}),
    { verb },
  );

/** 415 UnsupportedMediaType. */
export const unsupportedMediaType = (accepted: string[]): ApiError =>
  err(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    "request",
  );

/** 500 without a reason, as kube-apiserver answers storage errors it does not classify (`resourceVersion should not be set on objects to be created`). */
export function internalError(message: string, verb: string): ApiError {
  const status = failureStatus(500, "", message);
  delete (status as { reason?: string }).reason;
  return new ApiError(status, { verb });
}

/** 422 for bad request options: `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ...`. */
export function invalidOptions(kind: string, causes: StatusCause[], verb: string): ApiError {
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : `${c.message}`));
  const list = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  return new ApiError(
    failureStatus(422, "Invalid", `${kind}.meta.k8s.io "" is invalid: ${list}`, { group: "meta.k8s.io", kind, causes }),
    { verb },
  );
}

/**
 * 409 for a failed delete precondition: kube names the kind, not the resource (`Operation cannot be fulfilled on
 * ConfigMap "x": the UID in the precondition (...) does not match the UID in record (...)...`).
 */
export function preconditionFailed(def: Def, name: string, why: string): ApiError {
  const gk = def.group ? `${def.kind}.${def.group}` : def.kind;
  return new ApiError(
    failureStatus(409, "Conflict", `Operation cannot be fulfilled on ${gk} "${name}": ${why}`, {
      name,
      group: def.group || undefined,
      kind: def.kind,
    }),
    { verb: "delete", resource: qualifiedResource(def), name },
  );
}
