/**
 * The thin I/O shell around the pure watch loop of watch.ts: it performs each {@link WatchEffect} (list, open a
 * watch over the client's raw-socket transport, sleep on the injected clock, arm the read-idle deadline) and feeds
 * the outcome back into {@link step}. Store writes go to a {@link WatchSink}. Runs until its signal aborts; never
 * throws for transient errors.
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { resourceId } from "./apimachinery/names.ts";
import type { KubeClient } from "./client.ts";
import type { Clock } from "./clock.ts";
import type { KubeObject, ResourceType, WatchEvent } from "./types.ts";
import { initialState, step, type StepEnv, type WatchEffect, type WatchInput, type WatchState } from "./watch.ts";

/** Grace beyond a watch's timeoutSeconds before the stream is presumed dead. */
const OVERDUE_GRACE_MS = 30_000;

/** Where the loop delivers state. Called synchronously, in order, from one writer. */
export interface WatchSink {
  /** A full, consistent list (initial sync or relist). */
  replace(items: KubeObject[], rv: string): void;
  /** One watch event. */
  apply(type: "ADDED" | "MODIFIED" | "DELETED", obj: KubeObject): void;
}

/** The watch metric hooks (a structural subset of runtime/metrics.ts `Metrics`). */
export interface WatchMetrics {
  /** kubeop_watch_restarts_total. */
  watchRestarts?: { inc(labels: { resource: string; reason: string }): void };
  /** kubeop_watch_relists_total. */
  watchRelists?: { inc(labels: { resource: string; cause: string }): void };
  /** kubeop_watch_decode_errors_total. */
  watchDecodeErrors?: { inc(labels: { resource: string }): void };
  /** kubeop_watch_age_seconds. */
  watchAge?: { set(labels: { resource: string }, value: number): void };
  /** kubeop_watch_last_event_seconds. */
  watchLastEvent?: { set(labels: { resource: string }, value: number): void };
}

/** A minimal structured logger (a @logtape Logger fits). */
export interface WatchLogger {
  /** Debug line. */
  debug(message: string, props?: Record<string, unknown>): void;
  /** Info line. */
  info(message: string, props?: Record<string, unknown>): void;
  /** Warning line. */
  warn(message: string, props?: Record<string, unknown>): void;
}

/** What the collection is. */
export interface WatchScope {
  /** Namespace (absent: all namespaces). */
  namespace?: string;
  /** Only objects matching this label selector. */
  labelSelector?: string;
  /** Only objects matching this field selector. */
  fieldSelector?: string;
  /** Cache PartialObjectMetadata only. */
  metadataOnly?: boolean;
}

/** Construction options. */
export interface WatchRunnerOptions extends WatchScope {
  /** The cluster client. */
  client: KubeClient;
  /** What to watch. */
  resource: ResourceType;
  /** Where lists and events go. */
  sink: WatchSink;
  /** Default: the client's clock. */
  clock?: Clock;
  /** Uniform [0,1) source (default Math.random); tests pass a seeded one. */
  random?: () => number;
  /** Metric hooks. */
  metrics?: WatchMetrics;
  /** Default: @logtape logger kubeop.watch. */
  logger?: WatchLogger;
  /** Try WatchList (sendInitialEvents) before list (default true). */
  watchList?: boolean;
  /** Page size of lists (default 500). */
  pageSize?: number;
}

/** Health of one watch loop, for /readyz and metrics. */
export interface WatchHealth {
  /** `plural[.group]`. */
  resource: string;
  /** Current loop state. */
  state: WatchState["kind"];
  /** A full list has been delivered. */
  synced: boolean;
  /** ms since the current stream opened (undefined when no stream is open). */
  watchAgeMs?: number;
  /** ms since the last event or bookmark on any stream (undefined before the first). */
  sinceLastEventMs?: number;
  /** The last resourceVersion seen (list, event or bookmark). */
  resourceVersion?: string;
  /** Failed lists/watches since the last successful list or stream open. */
  consecutiveFailures: number;
  /** The most recent failure, for operators. */
  lastError?: string;
}

/**
 * Runs one list+watch loop.
 *
 * @example
 * ```ts ignore
 * const runner = new WatchRunner({ client, resource: CoreTypes.Pod, sink: { replace() {}, apply() {} } });
 * const ctrl = new AbortController();
 * const done = runner.run(ctrl.signal);
 * ctrl.abort(); await done;
 * ```
 */
export class WatchRunner {
  readonly #opts: WatchRunnerOptions;
  readonly #clock: Clock;
  readonly #env: StepEnv;
  readonly #log: WatchLogger;
  readonly #resourceName: string;
  #state: WatchState;
  #next?: WatchEffect;
  #streamAbort?: AbortController;
  #idleMs?: number;
  #idleFired = false;
  #cancelIdle?: () => void;
  #cancelOverdue?: () => void;
  #lastEventAtMs?: number;
  #streamOpenedAtMs?: number;
  #consecutiveFailures = 0;
  #lastError?: string;

  /** Creates the loop; nothing runs before run(). */
  constructor(opts: WatchRunnerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? opts.client.clock;
    const random = opts.random ?? Math.random;
    this.#env = { now: () => this.#clock.now(), random };
    this.#log = opts.logger ?? getLogger(["kubeop", "watch"]);
    const rt = opts.resource;
    this.#resourceName = resourceId(rt);
    this.#state = initialState({ watchList: opts.watchList });
  }

  /** The current loop state (for tests and debugging). */
  get state(): WatchState {
    return this.#state;
  }

  /** Current health; also refreshes the age gauges. */
  health(): WatchHealth {
    const now = this.#clock.now();
    const h: WatchHealth = {
      resource: this.#resourceName,
      state: this.#state.kind,
      synced: this.#state.mem.synced,
      consecutiveFailures: this.#consecutiveFailures,
    };
    if (this.#streamOpenedAtMs !== undefined) h.watchAgeMs = now - this.#streamOpenedAtMs;
    if (this.#lastEventAtMs !== undefined) h.sinceLastEventMs = now - this.#lastEventAtMs;
    if (this.#lastError) h.lastError = this.#lastError;
    if (this.#state.mem.rv !== undefined) h.resourceVersion = this.#state.mem.rv;
    const labels = { resource: this.#resourceName };
    this.#opts.metrics?.watchAge?.set(labels, (h.watchAgeMs ?? 0) / 1000);
    this.#opts.metrics?.watchLastEvent?.set(labels, (h.sinceLastEventMs ?? 0) / 1000);
    return h;
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.#dispatch({ type: "start" });
    while (!signal.aborted) {
      const op = this.#next;
      this.#next = undefined;
      if (!op) {
        // Cannot happen (every step that ends I/O schedules the next); recover rather than spin or stop.
        this.#log.warn("watch loop for {resource} had no next step; relisting", { resource: this.#resourceName });
        this.#state = { ...initialState({ watchList: this.#opts.watchList }), mem: this.#state.mem };
        this.#dispatch({ type: "start" });
        continue;
      }
      if (op.type === "sleep") {
        try {
          await this.#clock.sleep(op.ms, signal);
        } catch {
          break;
        }
        this.#dispatch({ type: "backoffDone" });
      } else if (op.type === "list") {
        await this.#list(signal);
      } else if (op.type === "watch") {
        await this.#watch(op, signal);
      }
    }
    this.#streamAbort?.abort();
  }

  async #list(signal: AbortSignal): Promise<void> {
    const { client, resource } = this.#opts;
    let input: WatchInput;
    try {
      const list = await client.listAll(resource, {
        namespace: this.#opts.namespace,
        labelSelector: this.#opts.labelSelector,
        fieldSelector: this.#opts.fieldSelector,
        metadataOnly: this.#opts.metadataOnly,
        limit: this.#opts.pageSize ?? 500,
        signal,
      });
      this.#consecutiveFailures = 0;
      input = { type: "listed", items: list.items ?? [], rv: list.metadata?.resourceVersion ?? "" };
    } catch (error) {
      if (signal.aborted) return;
      this.#fail(error);
      input = { type: "listFailed", error };
    }
    this.#dispatch(input);
  }

  async #watch(op: Extract<WatchEffect, { type: "watch" }>, signal: AbortSignal): Promise<void> {
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    this.#streamAbort = ctrl;
    this.#idleFired = false;
    this.#idleMs = undefined;
    let result: WatchInput;
    try {
      await this.#opts.client.watchStream(this.#opts.resource, {
        namespace: this.#opts.namespace,
        labelSelector: this.#opts.labelSelector,
        fieldSelector: this.#opts.fieldSelector,
        metadataOnly: this.#opts.metadataOnly,
        resourceVersion: op.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: op.timeoutSeconds,
        sendInitialEvents: op.sendInitialEvents ? true : undefined,
        resourceVersionMatch: op.sendInitialEvents ? "NotOlderThan" : undefined,
        signal: ctrl.signal,
        onOpen: () => {
          // The server promised to end the stream after timeoutSeconds; one still open well past that is dead
          // (half-open without bookmarks to arm the idle deadline).
          this.#cancelOverdue = this.#clock.setTimer(op.timeoutSeconds * 1000 + OVERDUE_GRACE_MS, () => {
            this.#cancelOverdue = undefined;
            if (this.#streamAbort !== ctrl) return;
            this.#idleFired = true;
            ctrl.abort(new Error(`watch open past its ${op.timeoutSeconds} s timeout: presumed dead`));
          });
          this.#streamOpenedAtMs = this.#clock.now();
          this.#lastEventAtMs = this.#streamOpenedAtMs;
          this.#consecutiveFailures = 0;
          this.#dispatch({ type: "opened" });
        },
        onMalformed: (line, error) => {
          if (ctrl.signal.aborted) return;
          this.#skip("malformed-json", `${(error as Error).message}: ${line.slice(0, 120)}`);
        },
      }, (event: WatchEvent<KubeObject>) => {
        if (ctrl.signal.aborted) return; // frames already read when the loop decided to leave this stream
        this.#lastEventAtMs = this.#clock.now();
        this.#dispatch({ type: "event", event });
      });
      result = { type: "streamEnded" };
    } catch (error) {
      result = this.#idleFired ? { type: "idle" } : { type: "streamFailed", error };
      if (!this.#idleFired && !signal.aborted && this.#next === undefined) this.#fail(error);
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#cancelIdle?.();
      this.#cancelIdle = undefined;
      this.#cancelOverdue?.();
      this.#cancelOverdue = undefined;
      this.#streamAbort = undefined;
      this.#streamOpenedAtMs = undefined;
    }
    if (signal.aborted) return;
    // An in-stream frame (ERROR, 410) may already have chosen the next step and closed the stream.
    if (this.#next === undefined) this.#dispatch(result);
  }

  #fail(error: unknown): void {
    this.#consecutiveFailures++;
    this.#lastError = error instanceof Error ? error.message : String(error);
  }

  #skip(reason: string, detail: string): void {
    this.#opts.metrics?.watchDecodeErrors?.inc({ resource: this.#resourceName });
    this.#log.warn("skipped watch frame for {resource}: {reason}", { resource: this.#resourceName, reason, detail });
  }

  #dispatch(input: WatchInput): void {
    const { state, effects } = step(this.#state, input, this.#env);
    this.#state = state;
    for (const e of effects) this.#perform(e);
  }

  #perform(e: WatchEffect): void {
    switch (e.type) {
      case "list":
      case "watch":
      case "sleep":
        this.#next = e;
        return;
      case "apply":
        this.#opts.sink.apply(e.eventType, e.object);
        return;
      case "replace":
        this.#opts.sink.replace(e.items, e.rv);
        return;
      case "closeStream":
        this.#streamAbort?.abort(new Error("watch stream closed by the loop"));
        return;
      case "armIdle":
        this.#idleMs = e.ms;
        if (!this.#cancelIdle) this.#armIdle(e.ms);
        return;
      case "refreshCredentials":
        this.#opts.client.credentials.invalidate();
        return;
      case "skip":
        this.#skip(e.reason, e.detail);
        return;
      case "restart":
        this.#opts.metrics?.watchRestarts?.inc({ resource: this.#resourceName, reason: e.reason });
        this.#log.info("watch for {resource} restarting: {reason}", {
          resource: this.#resourceName,
          reason: e.reason,
          detail: e.detail,
        });
        return;
      case "relist":
        this.#opts.metrics?.watchRelists?.inc({ resource: this.#resourceName, cause: e.cause });
        this.#log.info("relisting {resource}: {cause}", { resource: this.#resourceName, cause: e.cause });
        return;
    }
  }

  #armIdle(ms: number): void {
    this.#cancelIdle = this.#clock.setTimer(ms, () => {
      this.#cancelIdle = undefined;
      const stream = this.#streamAbort;
      if (!stream || this.#idleMs === undefined) return;
      const quiet = this.#clock.now() - (this.#lastEventAtMs ?? 0);
      if (quiet >= this.#idleMs) {
        this.#idleFired = true;
        stream.abort(new Error(`no data for ${quiet} ms: presumed half-open`));
      } else {
        this.#armIdle(this.#idleMs - quiet);
      }
    });
  }
}
