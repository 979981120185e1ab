/**
 * Reading an HTTP error response the way the typed client does: the Kubernetes Status in the body (or a synthesized
 * one when the body is not a Status) and the `Retry-After` header in seconds.
 * @module
 */

import { failureStatus, type Status } from "../client/errors.ts";

/** Seconds to wait from a `Retry-After` header (delta-seconds or HTTP date), or undefined when absent or invalid. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const n = Number(value);
  if (Number.isFinite(n) && n >= 0) return n;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** The response's Status, or a synthesized one when the body is not a Status (e.g. a proxy's HTML). */
export function toStatus(code: number, body: Uint8Array): Status {
  const text = new TextDecoder().decode(body);
  try {
    const doc = JSON.parse(text);
    if (doc && doc.kind === "Status") return { ...doc, code: doc.code ?? code } as Status;
  } catch { /* not JSON */ }
  const message = text.trim().slice(0, 500) || `HTTP ${code}`;
  return failureStatus(code, REASONS[code] ?? (code >= 500 ? "InternalError" : "Unknown"), message);
}
