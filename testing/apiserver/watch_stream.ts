/**
 * One open watch as kube-apiserver streams it: newline-delimited JSON `{"type","object"}` frames, one HTTP chunk
 * per event; selector transitions become ADDED/DELETED (a DELETED for an object that left the selector carries its
 * last matching state under the change's resourceVersion, as the cacher sends it); periodic BOOKMARKs when asked
 * (driven by the injected clock) and one 2 s before timeoutSeconds ends the watch, as kube's cacheWatcher schedules
 * it; the `k8s.io/initial-events-end` bookmark after sendInitialEvents; closes after timeoutSeconds.
 * @module
 */
import { setImmediate } from "node:timers";
import { concatBytes } from "../../runtime/http/bounded_body.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { WatchEventType } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { StoredEvent } from "./object_storage.ts";
import type { WatchSink } from "./watch_hub.ts";

/** How objects are turned into the frame's `object` (resource view, Table row, PartialObjectMetadata...). */
export interface WatchPresenter {
  /** Distinguishes cached encodings between presenters (same key → same bytes for the same event). */
  key: string;
  present(obj: KubeObject, type: WatchEventType): unknown;
  /** A BOOKMARK object carrying `resourceVersion` (and annotations). */
  bookmark(resourceVersion: string, annotations?: Record<string, string>): unknown;
}

/** Options of a {@link WatchStream}. */
export interface WatchStreamOptions {
  storageKey: string;
  namespace?: string;
  matches: (obj: KubeObject) => boolean;
  presenter: WatchPresenter;
  clock: Clock;
  allowBookmarks: boolean;
  bookmarkIntervalMs: number;
  timeoutMs?: number;
  /** A watch from a future resourceVersion: changes up to this one are skipped. */
  afterRv?: number;
  /** Latest committed RV (for bookmarks). */
  currentRv: () => number;
  description: string;
  onClose: () => void;
}

const encoder = new TextEncoder();
/** How long before timeoutSeconds kube-apiserver sends its last bookmark. */
const PRE_TIMEOUT_BOOKMARK_MS = 2000;
/** Per event, per presenter key, per frame type: the encoded frame (keys looked up, never concatenated per delivery). */
const encodeCache = new WeakMap<StoredEvent, Map<string, Map<WatchEventType, Uint8Array>>>();
/** The most recent entry of {@link encodeCache} (fan-out hands one event to every watch in a row). */
let lastEncoded: { ev?: StoredEvent; presenterKey?: string; type?: WatchEventType; bytes: Uint8Array } = {
  bytes: new Uint8Array(0),
};

/**
 * Batches frames per stream until the next macrotask: every frame a burst of writes produces for one watch goes out
 * as one HTTP chunk (one enqueue, one socket write) instead of one each, and watches that got the same frames share
 * one concatenated buffer. Under light load a batch is one frame and waits only for the current task to end; under
 * load the batches grow, which is what keeps write→delivery latency bounded at 1 000 watches. Real time (not the
 * server's injected clock): this is I/O flushing, not API-visible time.
 */
class FlushScheduler {
  readonly #due = new Set<WatchStream>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Flushes `stream` at the next macrotask. */
  schedule(stream: WatchStream): void {
    this.#due.add(stream);
    this.#timer ??= setTimeout(() => this.#flushAll(), 0);
  }

  /** How many batches have been handed to response bodies so far. */
  enqueued = 0;

  /** Flushes every due stream now instead of at the next macrotask. */
  flushNow(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#flushAll();
  }

  /** `stream` flushed on its own (closing): forget it. */
  forget(stream: WatchStream): void {
    this.#due.delete(stream);
    if (this.#due.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #flushAll(): void {
    this.#timer = undefined;
    const due = [...this.#due];
    this.#due.clear();
    let lastParts: Uint8Array[] = [];
    let lastBytes: Uint8Array | undefined;
    for (const stream of due) {
      const parts = stream.takePending();
      if (parts.length === 0) continue;
      let bytes: Uint8Array;
      if (parts.length === 1) bytes = parts[0];
      else if (lastBytes && sameParts(parts, lastParts)) bytes = lastBytes;
      else bytes = lastBytes = concatBytes(lastParts = parts);
      stream.enqueue(bytes);
      this.enqueued++;
    }
  }
}

function sameParts(a: Uint8Array[], b: Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const flusher = new FlushScheduler();

/**
 * How many watch frame batches have been handed to response bodies (a mark for {@link watchFramesSent}).
 *
 * @example
 * ```ts
 * import { watchFramesMark } from "./watch_stream.ts";
 * const mark = watchFramesMark(); // before a write
 * ```
 */
export function watchFramesMark(): number {
  return flusher.enqueued;
}

/**
 * Resolves once the watch frames written so far are on their way to the clients: flushes the batches due at the next
 * macrotask now and, when any batch went to a response body since `mark`, yields one event-loop
 * turn (setImmediate) — the turn Deno's body pump takes to write an enqueued chunk to its connection. A write's answer
 * waits for this, so a client reads the watch event a write caused before the write's answer (kube-apiserver's watch
 * cache sends that event within about a millisecond of the commit, and kube-controller-manager's stale-read guard,
 * `read version: N is not as new as written version: M`, retries each sync that reads its cache in between).
 *
 * @example
 * ```ts
 * import { watchFramesMark, watchFramesSent } from "./watch_stream.ts";
 * const mark = watchFramesMark();
 * // ... commit a write ...
 * await watchFramesSent(mark);
 * ```
 */
export async function watchFramesSent(mark: number): Promise<void> {
  flusher.flushNow();
  if (flusher.enqueued === mark) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** An open watch response body. */
export class WatchStream implements WatchSink {
  readonly storageKey: string;
  readonly namespace?: string;
  readonly description: string;
  readonly body: ReadableStream<Uint8Array>;
  #opts: WatchStreamOptions;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #stalled = false;
  /** Frames written since the last flush (see {@link FlushScheduler}). */
  #pending: Uint8Array[] = [];
  #cancelBookmark?: () => void;
  #cancelTimeout?: () => void;
  #cancelPreTimeout?: () => void;

  constructor(opts: WatchStreamOptions) {
    this.#opts = opts;
    this.storageKey = opts.storageKey;
    this.namespace = opts.namespace;
    this.description = opts.description;
    this.body = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.#controller = c;
      },
      cancel: () => this.#finish(false),
    });
    if (opts.timeoutMs !== undefined && opts.timeoutMs > 0) {
      this.#cancelTimeout = opts.clock.setTimer(opts.timeoutMs, () => this.#finish(true));
      // cacheWatcher.nextBookmarkTime: a bookmark 2 s before the deadline, when that is still ahead.
      if (opts.allowBookmarks && opts.timeoutMs > PRE_TIMEOUT_BOOKMARK_MS) {
        this.#cancelPreTimeout = opts.clock.setTimer(opts.timeoutMs - PRE_TIMEOUT_BOOKMARK_MS, () => {
          if (!this.#closed && !this.#stalled && this.#bookmarkDue()) this.sendBookmark();
        });
      }
    }
    this.#armBookmark();
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends synthetic frames (initial state / replay) before live delivery. */
  sendObject(type: WatchEventType, obj: KubeObject): void {
    this.#write(this.#encode(type, obj));
  }

  /** Sends a replayed or live stored change through the selector. */
  deliver(ev: StoredEvent): void {
    if (this.#closed || this.#stalled) return;
    if (this.#opts.afterRv !== undefined && ev.rv <= this.#opts.afterRv) return;
    const now = this.#opts.matches(ev.object);
    let type: WatchEventType = ev.type;
    if (ev.type === "MODIFIED") {
      const before = ev.prev ? this.#opts.matches(ev.prev) : false;
      if (!now && !before) return;
      if (now && !before) type = "ADDED";
      if (!now && before) type = "DELETED";
    } else if (ev.type === "DELETED") {
      if (!(ev.prev ? this.#opts.matches(ev.prev) : now)) return;
    } else if (!now) return;
    const presenterKey = this.#opts.presenter.key;
    // One event goes to every watch in turn: the last encoding is remembered before the cache is consulted.
    if (ev === lastEncoded.ev && presenterKey === lastEncoded.presenterKey && type === lastEncoded.type) {
      this.#write(lastEncoded.bytes);
      return;
    }
    let byPresenter = encodeCache.get(ev);
    if (!byPresenter) encodeCache.set(ev, byPresenter = new Map());
    let byType = byPresenter.get(presenterKey);
    if (!byType) byPresenter.set(presenterKey, byType = new Map());
    let bytes = byType.get(type);
    if (!bytes) byType.set(type, bytes = this.#encode(type, type === "DELETED" ? lastMatching(ev) : ev.object));
    lastEncoded = { ev, presenterKey, type, bytes };
    this.#write(bytes);
  }

  /** Sends a BOOKMARK at the current resourceVersion (with optional annotations). */
  sendBookmark(annotations?: Record<string, string>): void {
    const frame = {
      type: "BOOKMARK",
      object: this.#opts.presenter.bookmark(String(this.#opts.currentRv()), annotations),
    };
    this.#write(encoder.encode(JSON.stringify(frame) + "\n"));
  }

  /** Sends an ERROR frame with a Status, then closes. */
  sendErrorAndClose(status: unknown): void {
    this.#write(encoder.encode(JSON.stringify({ type: "ERROR", object: status }) + "\n"));
    this.#finish(true);
  }

  drop(): void {
    this.#finish(true);
  }

  stall(): void {
    this.#stalled = true;
    this.#cancelBookmark?.();
  }

  #encode(type: WatchEventType, obj: KubeObject): Uint8Array {
    return encoder.encode(JSON.stringify({ type, object: this.#opts.presenter.present(obj, type) }) + "\n");
  }

  #write(bytes: Uint8Array): void {
    if (this.#closed) return;
    this.#pending.push(bytes);
    if (this.#pending.length === 1) flusher.schedule(this);
  }

  /** The frames written since the last flush (for the flush scheduler). */
  takePending(): Uint8Array[] {
    const parts = this.#pending;
    this.#pending = [];
    return parts;
  }

  /** Hands `bytes` to the response body (for the flush scheduler). */
  enqueue(bytes: Uint8Array): void {
    if (this.#closed) return;
    try {
      this.#controller.enqueue(bytes);
    } catch {
      this.#finish(false);
    }
  }

  #armBookmark(): void {
    if (!this.#opts.allowBookmarks || this.#opts.bookmarkIntervalMs <= 0) return;
    this.#cancelBookmark = this.#opts.clock.setTimer(this.#opts.bookmarkIntervalMs, () => {
      if (this.#closed || this.#stalled) return;
      if (this.#bookmarkDue()) this.sendBookmark();
      this.#armBookmark();
    });
  }

  /** A watch from a future resourceVersion gets no bookmark until the store has passed it. */
  #bookmarkDue(): boolean {
    return this.#opts.afterRv === undefined || this.#opts.currentRv() > this.#opts.afterRv;
  }

  #finish(closeBody: boolean): void {
    if (this.#closed) return;
    if (closeBody && this.#pending.length > 0) {
      // Frames written before the end go out first (an ERROR frame before the close, say).
      const parts = this.takePending();
      this.enqueue(parts.length === 1 ? parts[0] : concatBytes(parts));
      if (this.#closed) return;
    }
    this.#pending = [];
    flusher.forget(this);
    this.#closed = true;
    this.#cancelBookmark?.();
    this.#cancelTimeout?.();
    this.#cancelPreTimeout?.();
    if (closeBody) {
      try {
        this.#controller.close();
      } catch { /* already closed or errored */ }
    }
    this.#opts.onClose();
  }
}

/**
 * The object a DELETED frame carries: the deleted object, or for a change that left the selector the previous
 * (last matching) state under the change's resourceVersion (cacheWatcher.convertToWatchEvent).
 */
function lastMatching(ev: StoredEvent): KubeObject {
  if (ev.type !== "MODIFIED" || !ev.prev) return ev.object;
  return { ...ev.prev, metadata: { ...ev.prev.metadata, resourceVersion: String(ev.rv) } };
}
