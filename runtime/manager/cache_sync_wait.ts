/**
 * The Manager's wait for its caches' first sync. By default it never gives up: each `timeoutMs` without a sync is
 * logged (naming the resources) and the wait goes on, as kube-controller-manager waits for its caches — a replica
 * started while the API server is down, or before a CRD it watches exists, serves as soon as it can instead of exiting
 * into a restart loop. With `exitOnTimeout` the first timeout is the error, as in controller-runtime.
 * @module
 */
import { CacheSyncTimeoutError } from "../cache/informers.ts";
import type { Logger } from "../observe/log.ts";
import type { ManagerInformers } from "./manager_options.ts";

/**
 * Resolves once `caches` synced; rejects when `signal` aborts, or with the {@link CacheSyncTimeoutError} of the first
 * timeout when `exitOnTimeout`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CacheSyncTimeoutError } from "../cache/informers.ts";
 * import { waitForCacheSync } from "./cache_sync_wait.ts";
 * let calls = 0;
 * const caches = {
 *   waitForSync: (ms: number) => ++calls < 3 ? Promise.reject(new CacheSyncTimeoutError(["pods"], ms)) : Promise.resolve(),
 * };
 * const logged: string[] = [];
 * const log = { error: (m: string) => logged.push(m) };
 * await waitForCacheSync(caches, { timeoutMs: 10, exitOnTimeout: false, log, signal: new AbortController().signal });
 * assert.equal(logged.length, 2); // two timeouts logged, then synced
 * ```
 */
export async function waitForCacheSync(
  caches: Pick<ManagerInformers, "waitForSync">,
  opts: { timeoutMs: number; exitOnTimeout: boolean; log: Pick<Logger, "error">; signal: AbortSignal },
): Promise<void> {
  for (;;) {
    try {
      return await caches.waitForSync(opts.timeoutMs, opts.signal);
    } catch (err) {
      if (!(err instanceof CacheSyncTimeoutError) || opts.exitOnTimeout) throw err;
      opts.log.error(
        `${err.message}; still waiting (readyz fails until they sync; --exit-on-cache-sync-timeout stops instead)`,
      );
    }
  }
}
