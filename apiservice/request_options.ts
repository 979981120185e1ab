/**
 * Query options of the farm's llama requests with k8s.io/apiserver's semantics: `dryRun` (only `All`, else 422 like
 * ValidateCreateOptions and friends) and list paging (`limit`/`continue`: kube's continue token — base64 JSON with
 * the list's resourceVersion and the key to start after — pages served from that resourceVersion's snapshot;
 * `resourceVersion=0` ignores `limit` as the watch cache does).
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import { badRequest } from "./http.ts";

/** The options kinds whose dryRun is checked (the `kind` of kube's 422). */
export type OptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions" | "DeleteOptions";

/**
 * Whether a write is a dry run: every `dryRun` value must be `All` (422 Invalid on `<kind>.meta.k8s.io` otherwise).
 *
 * @example
 * ```ts
 * import { dryRunOf } from "./request_options.ts";
 * dryRunOf(["All"], "CreateOptions"); // true
 * dryRunOf([], "CreateOptions"); // false
 * ```
 */
export function dryRunOf(values: readonly string[], kind: OptionsKind): boolean {
  const bad = values.filter((v) => v !== "All");
  if (bad.length > 0) {
    const message = `Unsupported value: ${JSON.stringify(values)}: supported values: "All"`;
    throw new ApiError(
      failureStatus(422, "Invalid", `${kind}.meta.k8s.io "" is invalid: dryRun: ${message}`, {
        group: "meta.k8s.io",
        kind,
        causes: [{ reason: "FieldValueNotSupported", message, field: "dryRun" }],
      }),
      { verb: kind.replace("Options", "").toLowerCase(), resource: "llamas.farm.example.com" },
    );
  }
  return values.length > 0;
}

/** A decoded continue token. */
export interface ContinueToken {
  /** The resourceVersion of the list's first page: every page is read at it. */
  rv: number;
  /** The key (`namespace/name`) of the last item already returned. */
  after: string;
}

/** Encodes a continue token (kube's shape: `{"v":"meta.k8s.io/v1","rv":…,"start":…}`, base64url). */
export function encodeContinue(token: ContinueToken): string {
  const json = JSON.stringify({ v: "meta.k8s.io/v1", rv: token.rv, start: `${token.after}\u0000` });
  return btoa(json).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes a continue token; 400 BadRequest `continue key is not valid` as kube answers a malformed one. */
export function decodeContinue(text: string): ContinueToken {
  try {
    const padded = text.replace(/-/g, "+").replace(/_/g, "/");
    const parsed = JSON.parse(atob(padded + "=".repeat((4 - padded.length % 4) % 4)));
    if (parsed.v !== "meta.k8s.io/v1") {
      throw new Error("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    }
    if (!Number.isSafeInteger(parsed.rv) || parsed.rv <= 0 || typeof parsed.start !== "string") {
      throw new Error("continue key is not valid: incorrect encoded start resourceVersion");
    }
    return { rv: parsed.rv, after: parsed.start.endsWith("\u0000") ? parsed.start.slice(0, -1) : parsed.start };
  } catch (err) {
    const message = (err as Error).message;
    badRequest(message.startsWith("continue key") ? message : `continue key is not valid: ${message}`);
  }
}

/** A page of a list: its items, and the continue token / remaining count when more follow. */
export interface Page<T> {
  /** Items of this page. */
  items: T[];
  /** Token of the next page, when there is one. */
  continue?: string;
  /** Items after this page (set only when the list has no selector, as kube does). */
  remainingItemCount?: number;
}

/** The page of `sorted` (by `keyOf`, ascending) after `after`, at most `limit` long (0 = all). */
export function pageOf<T>(
  sorted: T[],
  keyOf: (item: T) => string,
  opts: { limit: number; after?: string; rv: number; countRemaining: boolean },
): Page<T> {
  const start = opts.after === undefined ? sorted : sorted.filter((i) => keyOf(i) > opts.after!);
  if (opts.limit <= 0 || start.length <= opts.limit) return { items: start };
  const items = start.slice(0, opts.limit);
  return {
    items,
    continue: encodeContinue({ rv: opts.rv, after: keyOf(items[items.length - 1]) }),
    ...(opts.countRemaining ? { remainingItemCount: start.length - opts.limit } : {}),
  };
}

/** `limit` from the query: a non-negative integer (a negative or malformed one is ignored, as kube does). */
export function limitOf(q: URLSearchParams): number {
  const n = Number(q.get("limit") ?? "0");
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
