/**
 * The watch wire protocol as a Response: HTTP 200, `application/json`, one `{"type","object"}` JSON document per
 * line, flushed per event; periodic BOOKMARKs when the client allowed them; closed after `timeoutSeconds`; closing
 * or cancelling unsubscribes from the source. Errors found before streaming are still sent as a 200 with one ERROR
 * event (what kube-apiserver does for a too-old resourceVersion).
 * @module
 */
import type { Clock } from "../runtime/clock.ts";
import type { Status } from "../runtime/client/errors.ts";
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
