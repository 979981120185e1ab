/**
 * What the watch loop (watch.ts) must know about a single frame or Status before acting on it: whether it is well
 * formed, and whether a Status says the resourceVersion can no longer be served.
 * @module
 */

import { isGone } from "../client/errors.ts";
import type { WatchEvent } from "../types.ts";

/**
 * Does this Status say the RV cannot be served — too old (410 Expired/Gone) or, after an etcd restore or a fresh
 * server, too large (504 with cause ResourceVersionTooLarge)? Either way only a relist helps.
 */
export function isUnservableRv(obj: unknown): boolean {
  // deno-lint-ignore no-explicit-any
  const s = obj as any;
  if (isGone(s) || s?.reason === "Expired" || s?.reason === "Gone") return true;
  // deno-lint-ignore no-explicit-any
  if (s?.details?.causes?.some((c: any) => c?.reason === "ResourceVersionTooLarge")) return true;
  return typeof s?.message === "string" && /too large resource version/i.test(s.message);
}

const EVENT_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

/** Validates a frame; returns a skip reason or undefined. */
export function invalidFrame(event: WatchEvent<unknown>): { reason: string; detail: string } | undefined {
  // deno-lint-ignore no-explicit-any
  const ev = event as any;
  if (ev === null || typeof ev !== "object") return { reason: "not-an-object", detail: String(ev).slice(0, 200) };
  if (!EVENT_TYPES.has(ev.type)) return { reason: "unknown-type", detail: String(ev.type).slice(0, 100) };
  if (ev.type === "ERROR") return undefined;
  const obj = ev.object;
  if (obj === null || typeof obj !== "object" || obj.metadata === null || typeof obj.metadata !== "object") {
    return { reason: "no-metadata", detail: `${ev.type} frame without object.metadata` };
  }
  if (ev.type !== "BOOKMARK" && typeof obj.metadata.name !== "string") {
    return { reason: "no-name", detail: `${ev.type} frame without metadata.name` };
  }
  return undefined;
}
