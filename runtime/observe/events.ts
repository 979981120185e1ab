/**
 * An events.k8s.io/v1 Event recorder (client-go's tools/events): `event()` is synchronous, never blocks a reconcile
 * and never throws — events go into a bounded buffer that one background loop sends; when it is full they are dropped
 * and counted. Repeats of the same event within a window become a series (`{count, lastObservedTime}`) patched onto
 * the first Event instead of new objects.
 *
 * Notes are free text supplied by callers: never put Secret data in them. The recorder truncates notes to 1 KiB and
 * strips `Bearer …` credentials, but cannot know what else is sensitive.
 * @module
 */

import type { Clock } from "../clock.ts";
import { kubeopLogger, type Logger, redact } from "./log.ts";
import type { Metrics } from "./metrics.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../types.ts";

/** The client calls the recorder makes (KubeClient satisfies it). */
export interface EventSink {
  /** POST a new Event. */
  create(rt: ResourceType, obj: KubeObject, opts?: { namespace?: string }): Promise<unknown>;
  /** Merge-patch an Event's series. */
  patch(
    rt: ResourceType,
    name: string,
    body: unknown,
    opts: { namespace?: string; type: "merge" },
  ): Promise<unknown>;
}

/** What happened, as a caller describes it. */
export interface EventInput {
  /** "Normal" for expected transitions, "Warning" for anything a human should look at. */
  type: "Normal" | "Warning";
  /** Machine-readable, UpperCamelCase, ≤ 128 characters (e.g. "Created"). */
  reason: string;
  /** What the controller did or failed to do, ≤ 128 characters (e.g. "CreateSecret"). */
  action: string;
  /** Human-readable detail, truncated to 1 KiB. Never Secret data. */
  note?: string;
}

/** Records Events about objects. */
export interface EventRecorder {
  /** Queues an Event about `regarding`; returns immediately, never throws. */
  event(regarding: KubeObject, input: EventInput): void;
}

/** Options for {@link KubeEventRecorder}. */
export interface EventRecorderOptions {
  /** Where Events are written (a KubeClient). */
  sink: EventSink;
  /** eventTime, series times and the aggregation window. */
  clock: Clock;
  /** `reportingController`, e.g. "kubeop.dev/machine". */
  reportingController: string;
  /** `reportingInstance`, e.g. the pod name. */
  reportingInstance: string;
  /** Counts dropped Events (kubeop_events_dropped_total). */
  metrics?: Metrics;
  /** Where drops are logged (debug). */
  log?: Logger;
  /** Events waiting to be sent before new ones are dropped. Default 1000. */
  bufferSize?: number;
  /** Repeats within this window join the first Event's series. Default 600 000 ms (10 min). */
  seriesWindowMs?: number;
}

/** Longest note a server accepts (bytes). */
export const NOTE_LIMIT_BYTES = 1024;
const FIELD_LIMIT = 128;
const EVENT_TYPE: ResourceType = CoreTypes.Event;

/** `2026-01-01T00:00:00.123000Z`: metav1.MicroTime with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** `text` cut to at most `limit` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, limit: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= limit) return text;
  let end = limit;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // back off continuation bytes
  return new TextDecoder().decode(bytes.subarray(0, end));
}

interface Series {
  name: string;
  namespace: string;
  count: number;
  firstMs: number;
  lastMs: number;
  /** A patch for this series is already in the buffer: bump the count in place instead of queueing another. */
  patchQueued: boolean;
}

type Job = { kind: "create"; event: KubeObject; series: Series } | { kind: "patch"; series: Series };

/**
 * Sends events.k8s.io/v1 Events through a {@link EventSink}, aggregating repeats into series.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeEventRecorder } from "./events.ts";
 * import { VirtualClock } from "../clock.ts";
 * const sent: unknown[] = [];
 * const sink = { create: async (_rt: unknown, obj: unknown) => sent.push(obj), patch: async () => {} };
 * const recorder = new KubeEventRecorder({
 *   sink, clock: new VirtualClock(0), reportingController: "example.com/ctl", reportingInstance: "pod-0",
 * });
 * const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", uid: "u" } };
 * recorder.event(pod, { type: "Normal", reason: "Started", action: "Start", note: "started" });
 * await recorder.flush();
 * assert.ok(sent.length === 1);
 * ```
 */
export class KubeEventRecorder implements EventRecorder {
  readonly #opts: EventRecorderOptions;
  readonly #log: Logger;
  readonly #bufferSize: number;
  readonly #windowMs: number;
  #buffer: Job[] = [];
  #series = new Map<string, Series>();
  #seq = 0;
  #pumping: Promise<void> | undefined;
  #closed = false;

  /** A recorder with an empty buffer; sending starts with the first Event. */
  constructor(opts: EventRecorderOptions) {
    this.#opts = opts;
    this.#log = opts.log ?? kubeopLogger("events");
    this.#bufferSize = opts.bufferSize ?? 1000;
    this.#windowMs = opts.seriesWindowMs ?? 600_000;
  }

  event(regarding: KubeObject, input: EventInput): void {
    try {
      this.#record(regarding, input);
    } catch (err) {
      this.#drop("error", err);
    }
  }

  /** Resolves once every buffered Event has been sent (or failed). */
  async flush(): Promise<void> {
    while (this.#pumping) await this.#pumping;
  }

  /** Stops accepting Events; resolves after the buffer is sent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #record(regarding: KubeObject, input: EventInput): void {
    if (this.#closed) return;
    const now = this.#opts.clock.now();
    const note = truncateUtf8(redact(input.note ?? "") as string, NOTE_LIMIT_BYTES);
    const reason = input.reason.slice(0, FIELD_LIMIT);
    const action = input.action.slice(0, FIELD_LIMIT);
    const meta = regarding.metadata ?? {};
    const key = [meta.uid ?? "", regarding.kind, meta.namespace ?? "", meta.name, reason, action, input.type, note]
      .join("\u0000");
    this.#expireSeries(now);
    const series = this.#series.get(key);
    if (series && now - series.firstMs <= this.#windowMs) {
      series.count++;
      series.lastMs = now;
      if (!series.patchQueued && this.#enqueue({ kind: "patch", series })) series.patchQueued = true;
      return;
    }
    const namespace = meta.namespace || "default";
    const suffix = (BigInt(now) * 1_000_000n + BigInt(this.#seq++ % 1_000_000)).toString(16);
    const base = (meta.name ?? "unknown").slice(0, 253 - suffix.length - 1);
    const fresh: Series = {
      name: `${base}.${suffix}`,
      namespace,
      count: 1,
      firstMs: now,
      lastMs: now,
      patchQueued: false,
    };
    const event: KubeObject = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: fresh.name, namespace },
      eventTime: microTime(now),
      reportingController: this.#opts.reportingController.slice(0, FIELD_LIMIT),
      reportingInstance: this.#opts.reportingInstance.slice(0, FIELD_LIMIT),
      action,
      reason,
      type: input.type,
      note,
      regarding: {
        apiVersion: regarding.apiVersion,
        kind: regarding.kind,
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
    };
    if (this.#enqueue({ kind: "create", event, series: fresh })) this.#series.set(key, fresh);
  }

  #expireSeries(now: number): void {
    if (this.#series.size < 4096) return;
    for (const [key, s] of this.#series) if (now - s.firstMs > this.#windowMs) this.#series.delete(key);
  }

  #enqueue(job: Job): boolean {
    if (this.#buffer.length >= this.#bufferSize) {
      this.#drop("buffer_full");
      return false;
    }
    this.#buffer.push(job);
    this.#kick();
    return true;
  }

  #kick(): void {
    this.#pumping ??= this.#pump().finally(() => {
      this.#pumping = undefined;
      if (this.#buffer.length > 0) this.#kick(); // a job queued between the loop's end and this callback
    });
  }

  async #pump(): Promise<void> {
    await Promise.resolve(); // never run the client inside the caller's turn
    for (let job = this.#buffer.shift(); job; job = this.#buffer.shift()) {
      try {
        if (job.kind === "create") {
          await this.#opts.sink.create(EVENT_TYPE, job.event, { namespace: job.series.namespace });
        } else {
          const s = job.series;
          s.patchQueued = false;
          await this.#opts.sink.patch(
            EVENT_TYPE,
            s.name,
            { series: { count: s.count, lastObservedTime: microTime(s.lastMs) } },
            { namespace: s.namespace, type: "merge" },
          );
        }
      } catch (err) {
        // The next repeat starts a new Event rather than patching one the server may not have.
        for (const [key, s] of this.#series) if (s === job.series) this.#series.delete(key);
        this.#drop("error", err);
      }
    }
  }

  #drop(reason: "buffer_full" | "error", err?: unknown): void {
    this.#opts.metrics?.eventsDropped.inc({ reason });
    try {
      this.#log.debug("event dropped ({reason}): {error}", { reason, error: String(err ?? "") });
    } catch { /* logging must not throw either */ }
  }
}
