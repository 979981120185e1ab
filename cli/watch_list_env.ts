/**
 * client-go's feature-gate environment variable for WatchList, read by `kubeop run`.
 * @module
 */

/** The variable client-go reads (`KUBE_FEATURE_<gate>`); kubeop honours the same one. */
export const WATCH_LIST_ENV = "KUBE_FEATURE_WatchListClient";

/**
 * Whether the caches start with WatchList, from `KUBE_FEATURE_WatchListClient` ("true"/"false", any case):
 * undefined when unset (the runtime's default, on). Throws a TypeError naming the variable for any other value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { watchListFromEnv } from "./watch_list_env.ts";
 * assert.equal(watchListFromEnv((name) => name === "KUBE_FEATURE_WatchListClient" ? "false" : undefined), false);
 * assert.equal(watchListFromEnv(() => undefined), undefined);
 * ```
 */
export function watchListFromEnv(getEnv: (name: string) => string | undefined): boolean | undefined {
  const raw = getEnv(WATCH_LIST_ENV)?.trim();
  if (raw === undefined || raw === "") return undefined;
  const value = raw.toLowerCase();
  if (value === "true") return true;
  if (value === "false") return false;
  throw new TypeError(`${WATCH_LIST_ENV} must be "true" or "false", got ${JSON.stringify(raw)}`);
}

/** `Deno.env.get`, or undefined when the permission set does not include the variable (a narrowly compiled binary). */
export function readEnvIfAllowed(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) return undefined;
    throw err;
  }
}
