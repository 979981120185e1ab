/**
 * The list+watch loop as data: a discriminated union of {@link WatchState}s and one pure
 * {@link step}(state, input, env) → {state, effects}. The state holds everything the loop decides with: the
 * resourceVersion to resume from, the failure count, which I/O is under way or comes next, and the stream's
 * deadlines (read-idle, overdue). Time-outs are named timers the step arms and cancels (`setTimer`/`cancelTimer`
 * effects) and whose firing comes back as a `timer` input. The I/O shell (watch_runner.ts) performs the effects (list,
 * open or close the stream, arm timers, write the store) and feeds back what happened. No state is terminal, so the
 * loop cannot stop by itself: every failure leads to Backoff, and every Backoff leads back to Listing or Watching.
 *
 * Behaviour (client-go reflector, except the window): list (paginated) then watch from the list's RV with bookmarks and
 * a random `timeoutSeconds` in [15, 22] (client-go: [300, 600]); a stream the server ends at its timeout (its window)
 * is resumed at once from the last RV; one still open 5 s past it (counted from the request) is presumed dead and
 * closed — the dead-connection deadline, ≤ 27 s (docs/http_timeouts.md); BOOKMARK moves the RV only; 410 (HTTP or
 * in-stream) → relist; other errors and early stream ends → re-watch from the last RV after backoff 800 ms ×2 with
 * jitter, cap 30 s, reset whenever the server answers (a list succeeds or a stream opens); WatchList
 * (`sendInitialEvents`) preferred, falling back to list when refused; a read-idle deadline once bookmarks have been
 * seen (2.5× the observed gap, 90 s floor).
 * @module
 */

import {
  ApiError,
  isClientError,
  isGone,
  isNotFound,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
} from "../client/errors.ts";
import { type KubeObject, objectKey, type WatchEvent } from "../types.ts";
import {
  INITIAL_EVENTS_END,
  type RelistCause,
  type StepEnv,
  type StepResult,
  type StreamState,
  type TimerName,
  WATCH_DEFAULTS,
  type WatchEffect,
  type WatchInput,
  type WatchMemory,
  type WatchState,
} from "./watch_state.ts";
import { invalidFrame, isUnservableRv } from "./watch_frames.ts";

/** The state before `start`: listing, trying WatchList unless disabled. */
export function initialState(opts: { watchList?: boolean } = {}): WatchState {
  return {
    kind: "Listing",
    mem: { failures: 0, consecutiveFailures: 0, watchList: opts.watchList === false ? "off" : "try", synced: false },
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

/** Leaving a stream: its deadlines go with it (and, when the loop rather than the server ends it, the stream). */
function leaveStream(close: boolean): WatchEffect[] {
  const cancel: WatchEffect[] = [{ type: "cancelTimer", timer: "idle" }, { type: "cancelTimer", timer: "overdue" }];
  return close ? [{ type: "closeStream" }, ...cancel] : cancel;
}

/** The dead-connection deadline of a watch requested now with `seconds`: armed with the request (dial included). */
function overdueTimer(seconds: number): WatchEffect {
  return { type: "setTimer", timer: "overdue", ms: seconds * 1000 + WATCH_DEFAULTS.overdueGraceMs };
}

function startListing(mem: WatchMemory, cause: RelistCause, env: StepEnv, before: WatchEffect[] = []): StepResult {
  if (mem.watchList === "try") {
    const seconds = timeoutSeconds(env);
    return {
      state: { kind: "InitialEvents", mem, cause, items: new Map(), stream: { timeoutSeconds: seconds } },
      effects: [...before, { type: "watch", timeoutSeconds: seconds, sendInitialEvents: true }, overdueTimer(seconds)],
    };
  }
  return { state: { kind: "Listing", mem, cause }, effects: [...before, { type: "list", cause }] };
}

function startWatch(mem: WatchMemory, env: StepEnv, before: WatchEffect[] = []): StepResult {
  const seconds = timeoutSeconds(env);
  return {
    state: { kind: "Watching", mem, stream: { timeoutSeconds: seconds } },
    effects: [
      ...before,
      { type: "watch", resourceVersion: mem.rv, timeoutSeconds: seconds, sendInitialEvents: false },
      overdueTimer(seconds),
    ],
  };
}

/** What {@link backoff} needs: the failure and what comes after the wait. */
interface BackoffRequest {
  mem: WatchMemory;
  /** The restart reason (metric label). */
  cause: string;
  /** For logs. */
  detail?: string;
  /** What the backoff timer leads to. */
  then: "list" | "watch";
  /** Effects before the restart (closing the stream, refreshing credentials). */
  before?: WatchEffect[];
}

function backoff(req: BackoffRequest, env: StepEnv): StepResult {
  const { mem, cause, detail, then, before = [] } = req;
  const now = env.now();
  const failures = mem.failures + 1;
  const ms = backoffMs(failures, env.random());
  return {
    state: { kind: "Backoff", mem: { ...mem, failures }, untilMs: now + ms, cause, detail, then },
    effects: [...before, { type: "restart", reason: cause, detail }, { type: "setTimer", timer: "backoff", ms }],
  };
}

/** A list or watch failed (not a stream the loop closed itself): counted for health. */
function failed(mem: WatchMemory, error: unknown): WatchMemory {
  return { ...mem, consecutiveFailures: mem.consecutiveFailures + 1, lastError: describe(error) };
}

function errorCode(error: unknown): number | undefined {
  return error instanceof ApiError ? error.code : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
 * assert.ok(r.state.kind === "Watching" && r.state.mem.rv === "5");
 * ```
 */
export function step(state: WatchState, input: WatchInput, env: StepEnv): StepResult {
  const result = advance(state, input, env);
  const next = result.state;
  const open = (next.kind === "Watching" || next.kind === "InitialEvents") && next.stream.openedAtMs !== undefined;
  if (!open && next.mem.disconnectedSinceMs === undefined) {
    // No open stream (lost, or not yet opened): the shell owns the state, so the memory is completed in place.
    next.mem.disconnectedSinceMs = env.now();
  }
  return result;
}

function advance(state: WatchState, input: WatchInput, env: StepEnv): StepResult {
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
      const next: WatchMemory = { ...mem, rv: input.rv, synced: true, consecutiveFailures: 0, failures: 0 };
      return startWatch(next, env, [{ type: "replace", items: input.items, rv: input.rv }]);
    }

    case "listFailed": {
      if (state.kind !== "Listing") return { state, effects: [] };
      const code = errorCode(input.error);
      const before: WatchEffect[] = [{
        type: "listError",
        code: code === undefined ? "<error>" : String(code),
        detail: describe(input.error),
      }];
      if (isUnauthorized(input.error)) before.push({ type: "refreshCredentials" });
      return backoff({
        mem: failed(mem, input.error),
        cause: "list-error",
        then: "list",
        before,
        detail: describe(input.error),
      }, env);
    }

    case "opened": {
      if (state.kind !== "Watching" && state.kind !== "InitialEvents") return { state, effects: [] };
      const now = env.now();
      const stream: StreamState = { ...state.stream, openedAtMs: now };
      const next: WatchMemory = {
        ...mem,
        consecutiveFailures: 0,
        failures: 0,
        lastEventAtMs: now,
        disconnectedSinceMs: undefined,
      };
      return { state: { ...state, mem: next, stream }, effects: [] };
    }

    case "event":
      return onEvent(state, input.event, env);

    case "streamEnded": {
      if (state.kind === "InitialEvents") {
        // Ended before the end-of-initial-events bookmark: finish this cycle with a plain list.
        return {
          state: { kind: "Listing", mem, cause: "watchlist-fallback" },
          effects: [
            ...leaveStream(false),
            { type: "relist", cause: "watchlist-fallback" },
            { type: "list", cause: "watchlist-fallback" },
          ],
        };
      }
      if (state.kind !== "Watching") return { state, effects: [] };
      const opened = state.stream.openedAtMs;
      const windowMs = state.stream.timeoutSeconds * 1000 - WATCH_DEFAULTS.windowSlackMs;
      if (opened !== undefined && env.now() - opened >= windowMs) {
        // The server ended the window it was asked for: routine, resumed at once (client-go does the same).
        return startWatch(mem, env, [...leaveStream(false), { type: "restart", reason: "window-end" }]);
      }
      return backoff({
        mem,
        cause: "stream-ended",
        then: "watch",
        before: leaveStream(false),
      }, env);
    }

    case "streamFailed":
      return onStreamFailed(state, input.error, env);

    case "timer":
      return onTimer(state, input.timer, env);
  }
}

function onStreamFailed(state: WatchState, error: unknown, env: StepEnv): StepResult {
  if (state.kind !== "Watching" && state.kind !== "InitialEvents") return { state, effects: [] };
  const mem = failed(state.mem, error);
  const code = errorCode(error);
  const left = leaveStream(false);
  if (state.kind === "InitialEvents") {
    // 404 is not a refusal of WatchList: the resource itself is not served (a deleted CRD); the list says so.
    const refused = isClientError(error) && !isUnauthorized(error) && !isTooManyRequests(error) && !isGone(error) &&
      !isNotFound(error);
    const nextMem: WatchMemory = refused ? { ...mem, watchList: "off" } : mem;
    if (isUnauthorized(error)) {
      return backoff({
        mem: nextMem,
        cause: "unauthorized",
        then: "list",
        before: [...left, { type: "refreshCredentials" }],
      }, env);
    }
    if (!refused && state.stream.openedAtMs === undefined && isServerError(error)) {
      return backoff(
        { mem: nextMem, cause: "watchlist-error", then: "list", before: left, detail: describe(error) },
        env,
      );
    }
    return {
      state: { kind: "Listing", mem: nextMem, cause: "watchlist-fallback" },
      effects: [...left, { type: "relist", cause: "watchlist-fallback" }, {
        type: "list",
        cause: "watchlist-fallback",
      }],
    };
  }
  if (isGone(error) || (error instanceof ApiError && isUnservableRv(error.status))) {
    return startListing(mem, "expired", env, [...left, { type: "relist", cause: "expired" }]);
  }
  const before: WatchEffect[] = isUnauthorized(error) ? [...left, { type: "refreshCredentials" }] : left;
  return backoff({
    mem,
    cause: code !== undefined ? `http-${code}` : "stream-error",
    // A 404 means the resource is no longer served (its CRD deleted): relist, as client-go does, so the failure
    // is reported as a list failure and the cache is replaced once the resource returns.
    then: isNotFound(error) ? "list" : "watch",
    before,
    detail: describe(error),
  }, env);
}

function onTimer(state: WatchState, timer: TimerName, env: StepEnv): StepResult {
  switch (timer) {
    case "backoff": {
      if (state.kind !== "Backoff") return { state, effects: [] };
      const mem = state.mem;
      if (state.then === "list" || mem.rv === undefined) {
        return startListing(mem, mem.synced ? "list-error" : "initial", env);
      }
      return startWatch(mem, env);
    }
    case "idle": {
      if (state.kind !== "Watching" || state.stream.idleMs === undefined) return { state, effects: [] };
      const quiet = env.now() - (state.mem.lastEventAtMs ?? 0);
      if (quiet < state.stream.idleMs) {
        return { state, effects: [{ type: "setTimer", timer: "idle", ms: state.stream.idleMs - quiet }] };
      }
      return backoff({
        mem: state.mem,
        cause: "idle-deadline",
        detail: `no data for ${quiet} ms: presumed half-open`,
        then: "watch",
        before: leaveStream(true),
      }, env);
    }
    case "overdue": {
      if (state.kind !== "Watching" && state.kind !== "InitialEvents") return { state, effects: [] };
      // The server promised to end the stream after timeoutSeconds; one not ended (or not even answered) 5 s past
      // that is dead: black-holed, or held by a proxy that forwards nothing.
      const grace = WATCH_DEFAULTS.overdueGraceMs / 1000;
      return backoff({
        mem: state.mem,
        cause: "idle-deadline",
        detail:
          `watch not ended ${grace} s past its ${state.stream.timeoutSeconds} s timeout: connection presumed dead`,
        then: state.kind === "Watching" ? "watch" : "list",
        before: leaveStream(true),
      }, env);
    }
  }
}

function onEvent(state: WatchState, event: WatchEvent<unknown>, env: StepEnv): StepResult {
  if (state.kind !== "Watching" && state.kind !== "InitialEvents") return { state, effects: [] };
  const mem = state.mem;
  const now = env.now();
  // The memory is updated in place for speed (one allocation per event would dominate ingestion); the shell owns
  // the state exclusively, so nobody observes the mutation.
  mem.lastEventAtMs = now;
  const bad = invalidFrame(event);
  if (bad) return { state, effects: [{ type: "skip", ...bad }] };

  if (event.type === "ERROR") {
    const before = leaveStream(true);
    if (isUnservableRv(event.object)) {
      const relist: WatchEffect = { type: "relist", cause: "expired" };
      if (state.kind === "InitialEvents") {
        return {
          state: { kind: "Listing", mem, cause: "expired" },
          effects: [...before, relist, { type: "list", cause: "expired" }],
        };
      }
      return startListing(mem, "expired", env, [...before, relist]);
    }
    // deno-lint-ignore no-explicit-any
    const status = event.object as any;
    const detail = `${status?.code ?? ""} ${status?.reason ?? ""} ${status?.message ?? ""}`.trim();
    if (isUnauthorized(status)) before.push({ type: "refreshCredentials" });
    return backoff({
      mem,
      cause: "in-stream-error",
      detail,
      then: state.kind === "Watching" ? "watch" : "list",
      before,
    }, env);
  }

  const obj = event.object as KubeObject;
  const rv = obj.metadata.resourceVersion;

  if (state.kind === "InitialEvents") {
    if (event.type === "BOOKMARK") {
      if (obj.metadata.annotations?.[INITIAL_EVENTS_END] === "true" && rv) {
        const items = [...state.items.values()];
        const next: WatchMemory = { ...mem, rv, synced: true };
        return {
          state: { kind: "Watching", mem: next, stream: state.stream },
          effects: [{ type: "replace", items, rv }],
        };
      }
      return { state, effects: [] };
    }
    const key = objectKey(obj);
    if (event.type === "DELETED") state.items.delete(key);
    else state.items.set(key, obj);
    return { state, effects: [] };
  }

  // Watching
  if (event.type === "BOOKMARK") {
    const since = state.stream.lastBookmarkAtMs ?? state.stream.openedAtMs;
    const gap = since !== undefined ? now - since : undefined;
    const maxGap = Math.max(state.stream.maxBookmarkGapMs ?? 0, gap ?? 0);
    const idleMs = idleDeadlineMs(maxGap);
    const next: WatchState = {
      kind: "Watching",
      mem: { ...mem, rv: rv ?? mem.rv },
      stream: { ...state.stream, lastBookmarkAtMs: now, maxBookmarkGapMs: maxGap, idleMs },
    };
    // The bookmark is itself a frame, so the deadline counts from now.
    return { state: next, effects: [{ type: "setTimer", timer: "idle", ms: idleMs }] };
  }
  // ADDED / MODIFIED / DELETED
  if (rv) mem.rv = rv;
  return { state, effects: [{ type: "apply", eventType: event.type, object: obj }] };
}
