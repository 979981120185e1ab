/**
 * Answering AdmissionReview v1 (controller-runtime's `admission.Webhook`): a validating handler says allowed or
 * denied (with warnings); a mutating handler returns the changed object and the answer carries the RFC 6902 patch
 * from the original to it (../apimachinery/json_patch_diff.ts). The protocol is kube-apiserver's: a handler that
 * throws is answered with HTTP 200, `allowed: false` and `status.code` 500 (controller-runtime's `Errored`), so the
 * apiserver reports the handler's error rather than applying the webhook's failurePolicy (which is only for an
 * unreachable, slow, non-200 or malformed webhook); a malformed review is answered 400.
 * @module
 */
import { diffJsonPatch } from "../apimachinery/json_patch_diff.ts";
import { isPlainObject } from "../apimachinery/equality.ts";
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from "./review_types.ts";
import { copyJson } from "../apimachinery/json_copy.ts";

/** What the server sends back: an HTTP status and a JSON body (a review, or a plain message for a 4xx). */
export interface ReviewAnswer {
  /** HTTP status: 200 for every answered review, 400 for a malformed one. */
  status: number;
  /** JSON-serialisable body (a review) or a text message. */
  body: unknown;
}

/** What an admission handler sees: the request, typed, with its object already decoded. */
export interface AdmissionInput<T> {
  /** The raw request (uid, kind, resource, userInfo, options…). */
  readonly request: AdmissionRequest;
  /** CREATE, UPDATE, DELETE or CONNECT. */
  readonly operation: AdmissionRequest["operation"];
  /** The object being admitted (absent on DELETE). A mutating handler gets its own copy to change. */
  readonly object: T | undefined;
  /** The existing object on UPDATE and DELETE. */
  readonly oldObject: T | undefined;
  /**
   * True when kube-apiserver will not persist the request (`kubectl apply --dry-run=server`): a handler with side
   * effects (writes elsewhere) must skip them.
   */
  readonly dryRun: boolean;
  /** Aborts when the request's deadline passes or the server stops. */
  readonly signal: AbortSignal;
  /** Adds a warning kube-apiserver returns to the client (`Warning:` lines in kubectl). */
  warn(message: string): void;
}

/**
 * A refusal (controller-runtime's `Denied`, or a handler's APIStatus error): throw it from a handler, or return
 * {@link denied}. Any other exception is answered as an error (code 500).
 */
export class AdmissionDenied extends Error {
  /** HTTP-like status code in the answer (default 403 Forbidden). */
  readonly code: number;
  /** Machine-readable reason (default `Forbidden`). */
  readonly reason: string;

  /** A refusal with `message` (shown to the client) and, optionally, its code and reason. */
  constructor(message: string, opts: { code?: number; reason?: string } = {}) {
    super(message);
    this.name = "AdmissionDenied";
    this.code = opts.code ?? 403;
    this.reason = opts.reason ?? "Forbidden";
  }
}

/** A validating handler's decision: allowed, or denied with a message. */
export type ValidationVerdict = { allowed: true } | { allowed: false; message: string; code?: number; reason?: string };

/** Allows the request. */
export function allowed(): ValidationVerdict {
  return { allowed: true };
}

/** Denies the request with `message` (code 403 unless given). */
export function denied(message: string, opts: { code?: number; reason?: string } = {}): ValidationVerdict {
  return { allowed: false, message, ...opts };
}

/**
 * A validating handler: returns a verdict (or nothing, meaning allowed) or throws {@link AdmissionDenied}.
 *
 * @example
 * ```ts
 * import { denied, type ValidatingHandler } from "./admission.ts";
 * const replicasAtMostTen: ValidatingHandler<{ spec: { replicas: number } }> = ({ object }) =>
 *   object && object.spec.replicas > 10 ? denied("spec.replicas: must be at most 10") : undefined;
 * ```
 */
export type ValidatingHandler<T> = (
  input: AdmissionInput<T>,
) => ValidationVerdict | void | Promise<ValidationVerdict | void>;

/**
 * A mutating handler: changes `input.object` in place or returns the changed object (or {@link AdmissionDenied} to
 * refuse). Returning nothing and changing nothing means "no patch".
 *
 * @example
 * ```ts
 * import type { MutatingHandler } from "./admission.ts";
 * const defaultReplicas: MutatingHandler<{ spec: { replicas?: number } }> = ({ object }) => {
 *   if (object && object.spec.replicas === undefined) object.spec.replicas = 1;
 *   return object;
 * };
 * ```
 */
export type MutatingHandler<T> = (input: AdmissionInput<T>) => T | void | Promise<T | void>;

/** Parses a review body; a string result is why it is malformed. */
export function parseAdmissionReview(body: unknown): AdmissionReview | string {
  if (!isPlainObject(body)) return "the body is not a JSON object";
  if (body.apiVersion !== "admission.k8s.io/v1" || body.kind !== "AdmissionReview") {
    return `expected apiVersion admission.k8s.io/v1 and kind AdmissionReview, got ${JSON.stringify(body.apiVersion)} ${
      JSON.stringify(body.kind)
    }`;
  }
  const req = body.request;
  if (!isPlainObject(req)) return "the review has no request";
  if (typeof req.uid !== "string" || req.uid === "") return "request.uid is missing";
  if (!["CREATE", "UPDATE", "DELETE", "CONNECT"].includes(req.operation as string)) {
    return `request.operation ${JSON.stringify(req.operation)} is not CREATE, UPDATE, DELETE or CONNECT`;
  }
  for (const field of ["object", "oldObject"] as const) {
    if (req[field] !== undefined && req[field] !== null && !isPlainObject(req[field])) {
      return `request.${field} is not a JSON object`;
    }
  }
  return body as unknown as AdmissionReview;
}

function review(response: AdmissionResponse): ReviewAnswer {
  return { status: 200, body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response } };
}

/** An answer refusing the request because the handler failed (controller-runtime's `Errored`: code 500). */
export function erroredResponse(uid: string, error: unknown, warnings: string[] = []): AdmissionResponse {
  const message = error instanceof Error ? error.message : String(error);
  return {
    uid,
    allowed: false,
    status: { code: 500, message, reason: "InternalError", status: "Failure" },
    ...(warnings.length ? { warnings } : {}),
  };
}

function deniedResponse(uid: string, d: { message: string; code?: number; reason?: string }, warnings: string[]) {
  return {
    uid,
    allowed: false,
    status: { code: d.code ?? 403, message: d.message, reason: d.reason ?? "Forbidden", status: "Failure" },
    ...(warnings.length ? { warnings } : {}),
  };
}

function inputOf<T>(req: AdmissionRequest, signal: AbortSignal, warnings: string[]): AdmissionInput<T> {
  return {
    request: req,
    operation: req.operation,
    object: (req.object ? copyJson(req.object) : undefined) as T | undefined,
    oldObject: (req.oldObject ? copyJson(req.oldObject) : undefined) as T | undefined,
    dryRun: req.dryRun === true,
    signal,
    warn: (message) => void warnings.push(message),
  };
}

function allowedResponse(uid: string, warnings: string[]): AdmissionResponse {
  return { uid, allowed: true, ...(warnings.length ? { warnings } : {}) };
}

/**
 * Parses an AdmissionReview (400 when malformed) and answers it with `respond`, turning a thrown
 * {@link AdmissionDenied} into a denial and anything else into an errored answer. `warnings` collects the handler's.
 */
async function answerAdmission<T>(
  body: unknown,
  signal: AbortSignal,
  respond: (input: AdmissionInput<T>, warnings: string[]) => Promise<AdmissionResponse>,
): Promise<ReviewAnswer> {
  const parsed = parseAdmissionReview(body);
  if (typeof parsed === "string") return { status: 400, body: parsed };
  const req = parsed.request!;
  const warnings: string[] = [];
  try {
    return review(await respond(inputOf<T>(req, signal, warnings), warnings));
  } catch (error) {
    if (error instanceof AdmissionDenied) return review(deniedResponse(req.uid, error, warnings));
    return review(erroredResponse(req.uid, error, warnings));
  }
}

/**
 * Answers a validating AdmissionReview with `handler`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerValidation, denied } from "./admission.ts";
 * const answer = await answerValidation({
 *   apiVersion: "admission.k8s.io/v1",
 *   kind: "AdmissionReview",
 *   request: {
 *     uid: "u1", operation: "CREATE", userInfo: {}, object: { spec: { replicas: 11 } },
 *     kind: { group: "", version: "v1", kind: "X" }, resource: { group: "", version: "v1", resource: "xs" },
 *   },
 * }, () => denied("too many"), new AbortController().signal);
 * assert.equal((answer.body as { response: { allowed: boolean } }).response.allowed, false);
 * ```
 */
export async function answerValidation<T>(
  body: unknown,
  handler: ValidatingHandler<T>,
  signal: AbortSignal,
): Promise<ReviewAnswer> {
  return await answerAdmission<T>(body, signal, async (input, warnings) => {
    const verdict = await handler(input);
    if (verdict && verdict.allowed === false) return deniedResponse(input.request.uid, verdict, warnings);
    return allowedResponse(input.request.uid, warnings);
  });
}

/** Answers a mutating AdmissionReview with `handler`: the patch from the request's object to the handler's result. */
export async function answerMutation<T>(
  body: unknown,
  handler: MutatingHandler<T>,
  signal: AbortSignal,
): Promise<ReviewAnswer> {
  return await answerAdmission<T>(body, signal, async (input, warnings) => {
    const req = input.request;
    const after = (await handler(input)) ?? input.object;
    const ops = req.object && after !== undefined ? diffJsonPatch(req.object, after) : [];
    const response = allowedResponse(req.uid, warnings);
    if (ops.length) {
      response.patch = base64(new TextEncoder().encode(JSON.stringify(ops)));
      response.patchType = "JSONPatch";
    }
    return response;
  });
}

/** Base64 of `bytes`, in chunks (spreading a large array into String.fromCharCode overflows the stack). */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
