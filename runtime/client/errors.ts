/**
 * The error family: {@link ApiError} carries the Kubernetes Status of a failed call and which call it was;
 * predicates decide behaviour so nobody compares status numbers in controllers. {@link TerminalError} tells a
 * controller not to retry.
 * @module
 */

/** metav1.StatusCause. */
export interface StatusCause {
  /** Machine-readable reason, e.g. FieldValueRequired. */
  reason?: string;
  /** Human-readable description. */
  message?: string;
  /** The field the cause applies to, e.g. spec.replicas. */
  field?: string;
}

/** metav1.Status as sent by the API server. */
export interface Status {
  /** Always Status. */
  kind: "Status";
  /** Always v1. */
  apiVersion: "v1";
  /** List metadata of the Status (usually empty). */
  metadata: Record<string, unknown>;
  /** Failure for errors. */
  status: "Success" | "Failure";
  /** Human-readable description. */
  message?: string;
  /** Machine-readable reason, e.g. NotFound, Conflict. */
  reason?: string;
  /** HTTP status code. */
  code: number;
  /** Which object, and why in detail. */
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
}

/** Which call failed. */
export interface CallInfo {
  /** get, list, watch, create, update, patch or delete. */
  verb: string;
  /** `plural` or `plural.group`. */
  resource?: string;
  /** Namespace of the object. */
  namespace?: string;
  /** Name of the object. */
  name?: string;
  /** Request path, for calls that do not map to a resource. */
  path?: string;
}

/** Builds a Failure Status. */
export function failureStatus(
  code: number,
  reason: string,
  message: string,
  details?: Status["details"],
): Status {
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  if (details) status.details = details;
  return status;
}

/** A failed API call: the server's Status plus the call it answered. */
export class ApiError extends Error {
  /** The server's Status (built from the response when the body was not a Status). */
  readonly status: Status;
  /** The call that failed. */
  readonly call: CallInfo;
  /** Seconds from a Retry-After header, when one was sent. */
  readonly retryAfterSeconds?: number;

  /** Builds the error and its message `<verb> <resource> <namespace>/<name>: <code> <reason>: <message>`. */
  constructor(status: Status, call: CallInfo, retryAfterSeconds?: number) {
    const what = [call.verb, call.resource, call.namespace ? `${call.namespace}/${call.name ?? ""}` : call.name]
      .filter(Boolean).join(" ");
    super(`${what || call.path}: ${status.code} ${status.reason ?? ""}: ${status.message ?? ""}`.trim());
    this.name = "ApiError";
    this.status = status;
    this.call = call;
    this.retryAfterSeconds = retryAfterSeconds ?? status.details?.retryAfterSeconds;
  }

  /** HTTP status code. */
  get code(): number {
    return this.status.code;
  }

  /** Status reason, e.g. `NotFound`. */
  get reason(): string {
    return this.status.reason ?? "";
  }
}

/** A Status object as sent by the server (e.g. the object of a watch ERROR frame), not thrown. */
function isStatusObject(obj: unknown): obj is Pick<Status, "code" | "reason"> {
  return typeof obj === "object" && obj !== null && (obj as { kind?: unknown }).kind === "Status" &&
    typeof (obj as { code?: unknown }).code === "number";
}

/** The HTTP code of a thrown {@link ApiError} or of a {@link Status} object; undefined for anything else. */
function codeOf(err: unknown): number | undefined {
  if (err instanceof ApiError) return err.code;
  return isStatusObject(err) ? err.code : undefined;
}

function reasonOf(err: unknown): string | undefined {
  if (err instanceof ApiError) return err.reason;
  return isStatusObject(err) ? err.reason ?? "" : undefined;
}

// The predicates below accept a thrown ApiError or a Status object met in a watch stream.

/** 404. */
export const isNotFound = (err: unknown): boolean => codeOf(err) === 404;
/** 409 AlreadyExists (create of an existing name). */
export const isAlreadyExists = (err: unknown): boolean => codeOf(err) === 409 && reasonOf(err) === "AlreadyExists";
/** 409 Conflict (stale resourceVersion, or an apply conflict). */
export const isConflict = (err: unknown): boolean => codeOf(err) === 409 && reasonOf(err) !== "AlreadyExists";
/** 410 Gone / Expired: the resourceVersion was compacted. */
export const isGone = (err: unknown): boolean => codeOf(err) === 410;
/** 422 Invalid. */
export const isInvalid = (err: unknown): boolean => codeOf(err) === 422;
/** 403 Forbidden. */
export const isForbidden = (err: unknown): boolean => codeOf(err) === 403;
/** 401 Unauthorized: the credentials were refused (refresh them). */
export const isUnauthorized = (err: unknown): boolean => codeOf(err) === 401;
/** 429 TooManyRequests: throttled by API Priority and Fairness or a rate limit. */
export const isTooManyRequests = (err: unknown): boolean => codeOf(err) === 429;
/** Any 4xx: the server refused the request as made. */
export const isClientError = (err: unknown): boolean => {
  const code = codeOf(err);
  return code !== undefined && code >= 400 && code < 500;
};
/** Any 5xx: the server (or something between) failed. */
export const isServerError = (err: unknown): boolean => {
  const code = codeOf(err);
  return code !== undefined && code >= 500;
};
/** Worth retrying as-is: 429, 5xx, or a network error (not an ApiError at all, nor a refused write). */
export function isRetriable(err: unknown): boolean {
  if (err instanceof ApiError) return isTooManyRequests(err) || isServerError(err);
  return !(err instanceof TerminalError) && !(err instanceof NotLeaderError);
}

/** This replica may not write: it is not (or no longer provably) the leader. See runtime/leader/write_fence.ts. */
export const isNotLeader = (err: unknown): boolean => err instanceof NotLeaderError;

function describeCall(call: CallInfo): string {
  const what = [call.verb, call.resource, call.namespace ? `${call.namespace}/${call.name ?? ""}` : call.name]
    .filter(Boolean).join(" ");
  return what || call.path || "write";
}

/**
 * A write refused before it left the process because this replica cannot prove it still leads: it is not leading,
 * or its last successful Lease renew was sent a renew deadline ago or more. Not retriable on this replica — the
 * next leader redoes the work.
 */
export class NotLeaderError extends Error {
  /** The refused call. */
  readonly call: CallInfo;
  /** The Lease (`namespace/name`). */
  readonly lease: string;
  /** This replica's holder identity. */
  readonly identity: string;
  /** Milliseconds since the last successful renew was sent (monotonic); undefined when it never led. */
  readonly sinceRenewMs: number | undefined;

  /** Names the call, the Lease and how stale the last renew is. */
  constructor(
    opts: { call: CallInfo; lease: string; identity: string; sinceRenewMs?: number; renewDeadlineMs: number },
  ) {
    const why = opts.sinceRenewMs === undefined
      ? "it never led"
      : `its last successful renew was sent ${Math.round(opts.sinceRenewMs)} ms ago (renew deadline ` +
        `${opts.renewDeadlineMs} ms)`;
    super(`${describeCall(opts.call)}: refused, ${opts.identity} is not the leader of lease ${opts.lease}: ${why}`);
    this.name = "NotLeaderError";
    this.call = opts.call;
    this.lease = opts.lease;
    this.identity = opts.identity;
    this.sinceRenewMs = opts.sinceRenewMs;
  }
}

/** Returned (thrown) from a reconcile to stop retrying until the object changes (controller-runtime's TerminalError). */
export class TerminalError extends Error {
  /** A reconcile error that retrying cannot fix; `options.cause` keeps the underlying error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TerminalError";
  }
}
