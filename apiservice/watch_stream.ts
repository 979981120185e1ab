/**
 * The watch wire protocol as a Response: HTTP 200, `application/json`, one `{"type","object"}` JSON document per
 * line, flushed per event; periodic BOOKMARKs when the client allowed them; closed after `timeoutSeconds`; closing
 * or cancelling unsubscribes from the source. Errors found before streaming are still sent as a 200 with one ERROR
 * event (what kube-apiserver does for a too-old resourceVersion).
 * @module
 */
import type { Clock } from "../runtime/clock.ts";
import { ApiError, type Status } from "../runtime/client/errors.ts";
import type { KubeObject, WatchEvent } from "../runtime/types.ts";

/** What a watch stream needs. */
export interface WatchStreamOptions {
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
  /** Events sent first (replayed history or synthetic ADDED). */
  initial: WatchEvent<KubeObject>[];
  /** Attaches to live changes; returns the detach function. */
  subscribe(push: (event: WatchEvent<KubeObject>) => void): () => void;
  /** The object of a BOOKMARK at this moment; bookmarks are off when undefined. */
  bookmark?: () => KubeObject;
  /** Interval of BOOKMARK events on watches that allow them, ms. */
  bookmarkIntervalMs: number;
  /** Close the stream after this long (from `timeoutSeconds`); undefined = until the client goes away. */
  timeoutMs?: number;
  /** Turns each event's object into what goes on the wire (e.g. a one-row Table). */
  encode?: (object: KubeObject, index: number) => unknown;
  /** Called once when the stream ends for any reason. */
  onClose?: () => void;
}

const encoder = new TextEncoder();

/** One ERROR event followed by end of stream. */
export function watchErrorResponse(status: Status): Response {
  return new Response(JSON.stringify({ type: "ERROR", object: status }) + "\n", {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

/**
 * Builds a streaming watch response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RealClock } from "../runtime/clock.ts";
 * import { watchResponse } from "./watch_stream.ts";
 * const res = watchResponse({ clock: new RealClock(), initial: [{ type: "ADDED", object: { metadata: { name: "a" } } }],
 *   subscribe: () => () => {}, bookmarkIntervalMs: 60_000, timeoutMs: 0 });
 * assert.ok((await res.text()).includes('"ADDED"'));
 * ```
 */
export function watchResponse(opts: WatchStreamOptions): Response {
  let cleanup = () => {};
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let index = 0;
      const send = (event: WatchEvent<KubeObject>) => {
        if (closed) return;
        const object = event.type === "ERROR" || event.type === "BOOKMARK" || !opts.encode
          ? event.object
          : opts.encode(event.object, index++);
        controller.enqueue(encoder.encode(JSON.stringify({ type: event.type, object }) + "\n"));
      };
      const timers: Array<() => void> = [];
      let unsubscribe = () => {};
      cleanup = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        for (const cancel of timers) cancel();
        opts.onClose?.();
      };
      const finish = () => {
        const wasOpen = !closed;
        cleanup();
        if (wasOpen) {
          try {
            controller.close();
          } catch { /* already closed by the consumer */ }
        }
      };
      for (const event of opts.initial) send(event);
      unsubscribe = opts.subscribe(send);
      if (opts.bookmark && opts.bookmarkIntervalMs > 0) {
        const arm = () => {
          timers[0] = opts.clock.setTimer(opts.bookmarkIntervalMs, () => {
            send({ type: "BOOKMARK", object: opts.bookmark!() });
            arm();
          });
        };
        arm();
      }
      if (opts.timeoutMs !== undefined) timers.push(opts.clock.setTimer(opts.timeoutMs, finish));
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

/** One farm resource's watch request, in the terms {@link serveResourceWatch} assembles the response from. */
export interface ResourceWatchOptions<C> {
  /** Time source. */
  clock: Clock;
  /** The resource's kind (BOOKMARK objects carry it). */
  kind: string;
  /** The group/version (BOOKMARK objects carry it). */
  apiVersion: string;
  /**
   * Subscribes to the resource's changes (from the history, as of the request's resourceVersion); the changes it
   * replays come back in `replay`. Throws an ApiError when that resourceVersion cannot be served (e.g. 410).
   */
  subscribe(listener: (change: C) => void): { replay: C[]; unsubscribe(): void };
  /** The event a change is for this watch (its selectors and namespace), or undefined when out of scope. */
  eventOf(change: C): WatchEvent<KubeObject> | undefined;
  /** Whether the watch starts from the current state (ADDED for each object) rather than from the replay. */
  fromState: boolean;
  /** The current state's objects in scope, when {@link ResourceWatchOptions.fromState}. */
  stateObjects(): KubeObject[];
  /** The resourceVersion a BOOKMARK names now. */
  resourceVersion(): string;
  /** `sendInitialEvents=true`: end the initial events with an annotated BOOKMARK (when bookmarks are allowed). */
  sendInitialEvents: boolean;
  /** `allowWatchBookmarks=true`. */
  bookmarks: boolean;
  /** Interval of periodic BOOKMARKs, ms. */
  bookmarkIntervalMs: number;
  /** `timeoutSeconds` (0 or NaN: none). */
  timeoutSeconds: number;
  /** Encodes each event's object (Table watches). */
  encode?: (object: KubeObject, index: number) => unknown;
}

/**
 * A farm resource's watch, assembled once for every resource: subscribes first and holds live changes until the
 * stream starts (so nothing between the initial state and the first live event is lost), sends the initial events
 * (the state as ADDED, or the history's replay), the initial-events-end BOOKMARK, then live events, periodic
 * BOOKMARKs and the timeout. A resourceVersion the history cannot serve answers one ERROR event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RealClock } from "../runtime/clock.ts";
 * import { serveResourceWatch } from "./watch_stream.ts";
 * const res = serveResourceWatch<{ name: string }>({
 *   clock: new RealClock(), kind: "Llama", apiVersion: "farm.example.com/v1alpha",
 *   subscribe: () => ({ replay: [], unsubscribe() {} }),
 *   eventOf: (c) => ({ type: "ADDED", object: { metadata: { name: c.name } } }),
 *   fromState: true, stateObjects: () => [{ metadata: { name: "a" } }], resourceVersion: () => "7",
 *   sendInitialEvents: true, bookmarks: true, bookmarkIntervalMs: 60_000, timeoutSeconds: 0,
 * });
 * const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
 * let text = "";
 * while (text.split("\n").length < 3) text += (await reader.read()).value;
 * await reader.cancel(); // a watch without timeoutSeconds streams until the client goes away
 * assert.deepEqual(text.trim().split("\n").map((l) => JSON.parse(l).type), ["ADDED", "BOOKMARK"]);
 * ```
 */
export function serveResourceWatch<C>(opts: ResourceWatchOptions<C>): Response {
  const held: WatchEvent<KubeObject>[] = [];
  let push: ((event: WatchEvent<KubeObject>) => void) | undefined;
  let sub: { replay: C[]; unsubscribe(): void };
  try {
    sub = opts.subscribe((change) => {
      const event = opts.eventOf(change);
      if (!event) return;
      if (push) push(event);
      else held.push(event);
    });
  } catch (err) {
    if (err instanceof ApiError) return watchErrorResponse(err.status);
    throw err;
  }
  const initial: WatchEvent<KubeObject>[] = opts.fromState
    ? opts.stateObjects().map((object) => ({ type: "ADDED" as const, object }))
    : sub.replay.map((c) => opts.eventOf(c)).filter((e) => e !== undefined);
  const bookmarkObject = (initialEventsEnd: boolean): KubeObject => ({
    apiVersion: opts.apiVersion,
    kind: opts.kind,
    metadata: {
      resourceVersion: opts.resourceVersion(),
      ...(initialEventsEnd ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}),
    },
  });
  if (opts.sendInitialEvents && opts.bookmarks) initial.push({ type: "BOOKMARK", object: bookmarkObject(true) });
  return watchResponse({
    clock: opts.clock,
    initial,
    subscribe: (send) => {
      for (const event of held.splice(0)) send(event);
      push = send;
      return sub.unsubscribe;
    },
    onClose: sub.unsubscribe,
    bookmark: opts.bookmarks ? () => bookmarkObject(false) : undefined,
    bookmarkIntervalMs: opts.bookmarkIntervalMs,
    timeoutMs: opts.timeoutSeconds > 0 ? opts.timeoutSeconds * 1000 : undefined,
    encode: opts.encode,
  });
}
