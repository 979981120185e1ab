/**
 * The vocabulary of the list+watch loop (./watch.ts): its states and the memory they carry, the inputs the I/O shell
 * reports, the effects a step asks for, and the tunables (client-go's defaults).
 * @module
 */

import type { KubeObject, WatchEvent } from "../types.ts";

/** Why a full list is (re)done. */
export type RelistCause = "initial" | "expired" | "watchlist-fallback" | "list-error";

/** The loop's named timers: at most one of each is armed at a time (setting one replaces it). */
export type TimerName = "backoff" | "idle" | "overdue";

/** Data every state carries. */
export interface WatchMemory {
  /** Last resourceVersion seen (list, event or bookmark): the one value a re-watch resumes from. */
  rv?: string;
  /**
   * Backoffs since the server last answered (drives the backoff delay). Reset by a successful list or an opened
   * stream, so an outage after a recovery starts again from the initial delay, not from the cap of an earlier one.
   */
  failures: number;
  /** Failed lists/watches since the last successful list or stream open (for health). */
  consecutiveFailures: number;
  /** The most recent list/watch failure, for operators. */
  lastError?: string;
  /** Whether WatchList is tried: off by configuration, or after the server refused it. */
  watchList: "try" | "off";
  /** True once the first full state was delivered. */
  synced: boolean;
  /** When the last frame (event or bookmark) or stream open was seen, on any stream. */
  lastEventAtMs?: number;
  /** Since when no stream has been open (set on start and when a stream ends, cleared when one opens). */
  disconnectedSinceMs?: number;
}

/** The open (or opening) stream of InitialEvents and Watching: its deadlines live here. */
export interface StreamState {
  /** The `timeoutSeconds` the watch was requested with: past it (plus a grace, from the request) it is overdue. */
  timeoutSeconds: number;
  /** When the server answered 200 (undefined while opening). */
  openedAtMs?: number;
  /** The read-idle deadline once bookmarks were seen: no frame for this long means half-open. */
  idleMs?: number;
  /** When the last bookmark arrived (with {@link StreamState.maxBookmarkGapMs}, sizes `idleMs`). */
  lastBookmarkAtMs?: number;
  /** The largest gap between bookmarks so far. */
  maxBookmarkGapMs?: number;
}

/** The loop's states. Each one says which I/O is under way or comes next. */
export type WatchState =
  /** A list is in flight. */
  | { kind: "Listing"; mem: WatchMemory; cause: RelistCause }
  /** A WatchList stream (`sendInitialEvents`) is in flight, collecting the initial state. */
  | { kind: "InitialEvents"; mem: WatchMemory; cause: RelistCause; items: Map<string, KubeObject>; stream: StreamState }
  /** A watch stream from `mem.rv` is in flight. */
  | { kind: "Watching"; mem: WatchMemory; stream: StreamState }
  /** Waiting for the backoff timer; then list or watch. */
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
  | { type: "timer"; timer: TimerName };

/** What the shell must do, in order. At most one list or watch per step (the next I/O). */
export type WatchEffect =
  | { type: "list"; cause: RelistCause }
  | {
    type: "watch";
    resourceVersion?: string;
    timeoutSeconds: number;
    sendInitialEvents: boolean;
  }
  /** Abort the current stream; its end is not reported back. */
  | { type: "closeStream" }
  /** Arm `timer` to fire in `ms` (replacing it if armed); its firing comes back as a `timer` input. */
  | { type: "setTimer"; timer: TimerName; ms: number }
  /** Disarm `timer` (no-op when not armed). */
  | { type: "cancelTimer"; timer: TimerName }
  | { type: "replace"; items: KubeObject[]; rv: string }
  | { type: "apply"; eventType: "ADDED" | "MODIFIED" | "DELETED"; object: KubeObject }
  | { type: "refreshCredentials" }
  /** A list failed: `code` is the HTTP status, or `<error>` for a transport failure (client-go's label). */
  | { type: "listError"; code: string; detail: string }
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

/**
 * Tunables: backoff and read-idle from client-go; the watch window is kubeop's (docs/http_timeouts.md, "Dead
 * connections"): every watch asks the server to end it after 15–22 s, and one not ended 5 s past that is presumed dead,
 * so a dead connection is noticed within 27 s of the request — the only liveness signal an HTTP/1.1 stream can carry
 * (kube-apiserver's bookmarks come once a minute; client-go's HTTP/2 PING takes ≈ 45 s).
 */
export const WATCH_DEFAULTS = {
  initialBackoffMs: 800,
  maxBackoffMs: 30_000,
  minTimeoutSeconds: 15,
  maxTimeoutSeconds: 22,
  idleFloorMs: 90_000,
  idleGapFactor: 2.5,
  /** Grace beyond a watch's timeoutSeconds (counted from the request) before the stream is presumed dead. */
  overdueGraceMs: 5_000,
  /** A stream the server ends this close to its timeoutSeconds (or later) completed its window: re-watch at once. */
  windowSlackMs: 1_000,
} as const;

/** The annotation that marks the end of WatchList's initial events. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";
