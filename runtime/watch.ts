/**
 * The list+watch loop as data: a discriminated union of {@link WatchState}s and one pure
 * {@link step}(state, input, env) → {state, effects}. The I/O shell (watch_runner.ts) performs the effects (list,
 * open a watch, sleep, write the store) and feeds back what happened. No state is terminal, so the loop cannot
 * stop by itself: every failure leads to Backoff, and every Backoff leads back to Listing or Watching.
 *
 * Behaviour (client-go reflector): list (paginated) then watch from the list's RV with bookmarks and a random
 * `timeoutSeconds` in [300, 600]; BOOKMARK moves the RV only; 410 (HTTP or in-stream) → relist; other errors and
 * stream ends → re-watch from the last RV after backoff 800 ms ×2 with jitter, cap 30 s, reset after 2 min of
 * health; WatchList (`sendInitialEvents`) preferred, falling back to list when refused; a read-idle deadline once
 * bookmarks have been seen (2.5× the observed gap, 90 s floor) catches half-open connections.
 * @module
 */

import { ApiError } from "./errors.ts";
import type { KubeObject, WatchEvent } from "./types.ts";

/** Why a full list is (re)done. */
export type RelistCause = "initial" | "expired" | "watchlist-fallback" | "list-error";

/** Data every state carries. */
export interface WatchMemory {
  /** Last resourceVersion seen (list, event or bookmark). */
  rv?: string;
  /** Consecutive failures (drives the backoff; reset after a healthy stream of ≥ 2 min). */
  failures: number;
  /** Whether WatchList is tried: off by configuration, or after the server refused it. */
  watchList: "try" | "off";
  /** True once the first full state was delivered. */
  synced: boolean;
}

/** The loop's states. */
export type WatchState =
  | { kind: "Listing"; mem: WatchMemory; cause: RelistCause }
  | { kind: "InitialEvents"; mem: WatchMemory; cause: RelistCause; items: Map<string, KubeObject>; openedAtMs?: number }
  | {
    kind: "Watching";
    mem: WatchMemory;
    rv?: string;
    openedAtMs?: number;
    lastBookmarkAtMs?: number;
    maxBookmarkGapMs?: number;
  }
  | { kind: "Backoff"; mem: WatchMemory; untilMs: number; cause: string; detail?: string; then: "list" | "watch" };

/** What the shell reports. */
export type WatchInput =
  | { type: "start" }
  | { type: "listed"; items: KubeObject[]; rv: string }
  | { type: "listFailed"; error: unknown }
  | { type: "opened" }
  | { type: "event"; event: WatchEvent<unknown> }
  | { type: "streamEnded" }
  | { type: "streamFailed"; error: unknown }
  | { type: "idle" }
  | { type: "backoffDone" };

/** What the shell must do. At most one of list/watch/sleep per step (the next I/O). */
export type WatchEffect =
  | { type: "list"; cause: RelistCause }
  | {
    type: "watch";
    resourceVersion?: string;
    timeoutSeconds: number;
    sendInitialEvents: boolean;
  }
  | { type: "sleep"; ms: number }
  | { type: "closeStream" }
  | { type: "replace"; items: KubeObject[]; rv: string }
  | { type: "apply"; eventType: "ADDED" | "MODIFIED" | "DELETED"; object: KubeObject }
  | { type: "armIdle"; ms: number }
  | { type: "refreshCredentials" }
  | { type: "skip"; reason: string; detail: string }
  | { type: "restart"; reason: string; detail?: string }
  | { type: "relist"; cause: RelistCause };

/** Result of one step. */
export interface StepResult {
  /** The next state. */
  state: WatchState;
  /** What the shell must do, in order. */
  effects: WatchEffect[];
}

/** The environment a step may read: time and randomness, injected so steps are deterministic in tests. */
export interface StepEnv {
  /** Epoch ms. */
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
}

/** Tunables (defaults from client-go). */
export const WATCH_DEFAULTS = {
  initialBackoffMs: 800,
  maxBackoffMs: 30_000,
  backoffResetAfterMs: 120_000,
  minTimeoutSeconds: 300,
  maxTimeoutSeconds: 600,
  idleFloorMs: 90_000,
  idleGapFactor: 2.5,
} as const;

/** The annotation that marks the end of WatchList's initial events. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** The state before `start`: listing, trying WatchList unless disabled. */
export function initialState(opts: { watchList?: boolean } = {}): WatchState {
  return {
    kind: "Listing",
    mem: { failures: 0, watchList: opts.watchList === false ? "off" : "try", synced: false },
    cause: "initial",
  };
}

/** Backoff for the n-th consecutive failure: 800 ms ·2^(n-1), jittered up to ×2, capped at 30 s. */
export function backoffMs(failures: number, random: number): number {
  const base = Math.min(WATCH_DEFAULTS.maxBackoffMs, WATCH_DEFAULTS.initialBackoffMs * 2 ** Math.max(0, failures - 1));
  return Math.min(WATCH_DEFAULTS.maxBackoffMs, Math.round(base * (1 + random)));
}

/** The read-idle deadline for a stream whose largest bookmark gap so far is `gapMs`. */
export function idleDeadlineMs(gapMs: number): number {
  return Math.max(WATCH_DEFAULTS.idleFloorMs, Math.ceil(gapMs * WATCH_DEFAULTS.idleGapFactor));
}

function timeoutSeconds(env: StepEnv): number {
  const { minTimeoutSeconds: lo, maxTimeoutSeconds: hi } = WATCH_DEFAULTS;
  return lo + Math.floor(env.random() * (hi - lo + 1));
}

function startListing(mem: WatchMemory, cause: RelistCause, env: StepEnv, extra: WatchEffect[] = []): StepResult {
  if (mem.watchList === "try") {
    return {
      state: { kind: "InitialEvents", mem, cause, items: new Map() },
      effects: [...extra, { type: "watch", timeoutSeconds: timeoutSeconds(env), sendInitialEvents: true }],
    };
  }
  return { state: { kind: "Listing", mem, cause }, effects: [...extra, { type: "list", cause }] };
}

function startWatch(mem: WatchMemory, env: StepEnv): StepResult {
  return {
    state: { kind: "Watching", mem, rv: mem.rv },
    effects: [{
      type: "watch",
      resourceVersion: mem.rv,
      timeoutSeconds: timeoutSeconds(env),
      sendInitialEvents: false,
    }],
  };
}

function backoff(
  mem: WatchMemory,
  cause: string,
  then: "list" | "watch",
  env: StepEnv,
  healthySinceMs?: number,
  extra: WatchEffect[] = [],
  detail?: string,
): StepResult {
  const now = env.now();
  let failures = mem.failures;
  if (healthySinceMs !== undefined && now - healthySinceMs >= WATCH_DEFAULTS.backoffResetAfterMs) failures = 0;
  failures++;
  const ms = backoffMs(failures, env.random());
  return {
    state: { kind: "Backoff", mem: { ...mem, failures }, untilMs: now + ms, cause, detail, then },
    effects: [...extra, { type: "restart", reason: cause, detail }, { type: "sleep", ms }],
  };
}

function errorCode(error: unknown): number | undefined {
  return error instanceof ApiError ? error.code : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Does this Status say the RV cannot be served — too old (410 Expired/Gone) or, after an etcd restore or a fresh
 * server, too large (504 with cause ResourceVersionTooLarge)? Either way only a relist helps.
 */
function isUnservableRv(obj: unknown): boolean {
  // deno-lint-ignore no-explicit-any
  const s = obj as any;
  if (s?.code === 410 || s?.reason === "Expired" || s?.reason === "Gone") return true;
  // deno-lint-ignore no-explicit-any
  if (s?.details?.causes?.some((c: any) => c?.reason === "ResourceVersionTooLarge")) return true;
  return typeof s?.message === "string" && /too large resource version/i.test(s.message);
}

const EVENT_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

function objectKeyOf(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : `${name}`;
}

/** Validates a frame; returns a skip reason or undefined. */
function invalidFrame(event: WatchEvent<unknown>): { reason: string; detail: string } | undefined {
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

/**
 * Advances the loop by one input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { initialState, step } from "./watch.ts";
 * const env = { now: () => 0, random: () => 0 };
 * let r = step(initialState({ watchList: false }), { type: "start" }, env);
 * assert.ok(r.effects[0].type === "list");
 * r = step(r.state, { type: "listed", items: [], rv: "5" }, env);
 * assert.ok(r.state.kind === "Watching" && r.state.rv === "5");
 * ```
 */
export function step(state: WatchState, input: WatchInput, env: StepEnv): StepResult {
  const mem = state.mem;
  switch (input.type) {
    case "start":
      return startListing(
        mem,
        state.kind === "Listing" || state.kind === "InitialEvents" ? state.cause : "initial",
        env,
      );

    case "listed": {
      if (state.kind !== "Listing") return { state, effects: [] };
      const next = { ...mem, rv: input.rv, synced: true };
      const watch = startWatch(next, env);
      return { state: watch.state, effects: [{ type: "replace", items: input.items, rv: input.rv }, ...watch.effects] };
    }

    case "listFailed": {
      if (state.kind !== "Listing") return { state, effects: [] };
      const extra: WatchEffect[] = errorCode(input.error) === 401 ? [{ type: "refreshCredentials" }] : [];
      return backoff(mem, "list-error", "list", env, undefined, extra, describe(input.error));
    }

    case "opened": {
      if (state.kind === "Watching" || state.kind === "InitialEvents") {
        return { state: { ...state, openedAtMs: env.now() }, effects: [] };
      }
      return { state, effects: [] };
    }

    case "event":
      return onEvent(state, input.event, env);

    case "streamEnded": {
      if (state.kind === "InitialEvents") {
        // Ended before the end-of-initial-events bookmark: finish this cycle with a plain list.
        return {
          state: { kind: "Listing", mem, cause: "watchlist-fallback" },
          effects: [{ type: "relist", cause: "watchlist-fallback" }, { type: "list", cause: "watchlist-fallback" }],
        };
      }
      if (state.kind !== "Watching") return { state, effects: [] };
      return backoff(mem, "stream-ended", "watch", env, state.openedAtMs);
    }

    case "streamFailed": {
      const code = errorCode(input.error);
      if (state.kind === "InitialEvents") {
        const refused = code !== undefined && code >= 400 && code < 500 && code !== 401 && code !== 429 &&
          code !== 410;
        const nextMem: WatchMemory = refused ? { ...mem, watchList: "off" } : mem;
        const extra: WatchEffect[] = [{ type: "relist", cause: "watchlist-fallback" }];
        if (code === 401) {
          return backoff(nextMem, "unauthorized", "list", env, undefined, [{ type: "refreshCredentials" }]);
        }
        if (!refused && state.openedAtMs === undefined && code !== undefined && code >= 500) {
          return backoff(nextMem, "watchlist-error", "list", env, undefined, [], describe(input.error));
        }
        return {
          state: { kind: "Listing", mem: nextMem, cause: "watchlist-fallback" },
          effects: [...extra, { type: "list", cause: "watchlist-fallback" }],
        };
      }
      if (state.kind !== "Watching") return { state, effects: [] };
      if (code === 410 || (input.error instanceof ApiError && isUnservableRv(input.error.status))) {
        return startListing(mem, "expired", env, [{ type: "relist", cause: "expired" }]);
      }
      const extra: WatchEffect[] = code === 401 ? [{ type: "refreshCredentials" }] : [];
      const reason = code !== undefined ? `http-${code}` : "stream-error";
      return backoff(mem, reason, "watch", env, state.openedAtMs, extra, describe(input.error));
    }

    case "idle": {
      if (state.kind !== "Watching" && state.kind !== "InitialEvents") return { state, effects: [] };
      const healthy = state.kind === "Watching" ? state.openedAtMs : undefined;
      return backoff(mem, "idle-deadline", state.kind === "Watching" ? "watch" : "list", env, healthy, [{
        type: "closeStream",
      }]);
    }

    case "backoffDone": {
      if (state.kind !== "Backoff") return { state, effects: [] };
      if (state.then === "list" || mem.rv === undefined) {
        return startListing(mem, mem.synced ? "list-error" : "initial", env);
      }
      return startWatch(mem, env);
    }
  }
}

function onEvent(state: WatchState, event: WatchEvent<unknown>, env: StepEnv): StepResult {
  if (state.kind !== "Watching" && state.kind !== "InitialEvents") return { state, effects: [] };
  const bad = invalidFrame(event);
  if (bad) return { state, effects: [{ type: "skip", ...bad }] };
  const mem = state.mem;

  if (event.type === "ERROR") {
    const effects: WatchEffect[] = [{ type: "closeStream" }];
    if (isUnservableRv(event.object)) {
      if (state.kind === "InitialEvents") {
        return {
          state: { kind: "Listing", mem, cause: "expired" },
          effects: [...effects, { type: "relist", cause: "expired" }, { type: "list", cause: "expired" }],
        };
      }
      return startListing(mem, "expired", env, [...effects, { type: "relist", cause: "expired" }]);
    }
    // deno-lint-ignore no-explicit-any
    const status = event.object as any;
    const reason = "in-stream-error";
    const detail = `${status?.code ?? ""} ${status?.reason ?? ""} ${status?.message ?? ""}`.trim();
    if (status?.code === 401) effects.push({ type: "refreshCredentials" });
    const healthy = state.kind === "Watching" ? state.openedAtMs : undefined;
    return backoff(mem, reason, state.kind === "Watching" ? "watch" : "list", env, healthy, effects, detail);
  }

  const obj = event.object as KubeObject;
  const rv = obj.metadata.resourceVersion;

  if (state.kind === "InitialEvents") {
    if (event.type === "BOOKMARK") {
      if (obj.metadata.annotations?.[INITIAL_EVENTS_END] === "true" && rv) {
        const items = [...state.items.values()];
        const next: WatchMemory = { ...mem, rv, synced: true };
        return {
          state: { kind: "Watching", mem: next, rv, openedAtMs: state.openedAtMs },
          effects: [{ type: "replace", items, rv }],
        };
      }
      return { state, effects: [] };
    }
    const key = objectKeyOf(obj);
    if (event.type === "DELETED") state.items.delete(key);
    else state.items.set(key, obj);
    return { state, effects: [] };
  }

  // Watching
  if (event.type === "BOOKMARK") {
    const now = env.now();
    const since = state.lastBookmarkAtMs ?? state.openedAtMs;
    const gap = since !== undefined ? now - since : undefined;
    const maxGap = Math.max(state.maxBookmarkGapMs ?? 0, gap ?? 0);
    const nextRv = rv ?? state.rv;
    const next: WatchState = {
      ...state,
      mem: { ...mem, rv: nextRv },
      rv: nextRv,
      lastBookmarkAtMs: now,
      maxBookmarkGapMs: maxGap,
    };
    return { state: next, effects: [{ type: "armIdle", ms: idleDeadlineMs(maxGap) }] };
  }
  // ADDED / MODIFIED / DELETED: the state object is updated in place for speed (one allocation per event would
  // dominate ingestion); the shell owns the state exclusively, so nobody observes the mutation.
  if (rv) {
    state.rv = rv;
    mem.rv = rv;
  }
  return { state, effects: [{ type: "apply", eventType: event.type, object: obj }] };
}
