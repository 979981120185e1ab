/**
 * The thin I/O shell around the pure watch loop of watch.ts: it performs each {@link WatchEffect} (list, open or
 * close the one watch stream over the client's raw-socket transport, arm or cancel a named timer on the injected
 * clock) and feeds the outcome back into {@link step}. Its whole mutable state is the loop state, one timer table
 * and one stream handle; every decision is the step's. Store writes go to a {@link WatchSink}. Runs until its signal
 * aborts; never throws for transient errors.
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { resourceId } from "../apimachinery/names.ts";
import { formatShardSelector, matchesShardSelector, type ShardSelector } from "../apimachinery/shard_selector.ts";
import type { KubeClient } from "../client/client.ts";
import type { Clock } from "../clock.ts";
import type { KubeObject, ResourceType, WatchEvent } from "../types.ts";
import { initialState, step } from "./watch.ts";
import type { StepEnv, TimerName, WatchEffect, WatchInput, WatchState } from "./watch_state.ts";

/** Where the loop delivers state. Called synchronously, in order, from one writer. */
export interface WatchSink {
  /** A full, consistent list (initial sync or relist). */
  replace(items: KubeObject[], rv: string): void;
  /** One watch event. */
  apply(type: "ADDED" | "MODIFIED" | "DELETED", obj: KubeObject): void;
}

import type { WriteLagReport } from "./write_lag.ts";

/** The watch metric hooks (a structural subset of runtime/observe/metrics.ts `Metrics`). */
export interface WatchMetrics {
  /** kubeop_watch_restarts_total. */
  watchRestarts?: { inc(labels: { resource: string; reason: string }): void };
  /** kubeop_watch_relists_total. */
  watchRelists?: { inc(labels: { resource: string; cause: string }): void };
  /** kubeop_watch_list_failures_total. */
  watchListFailures?: { inc(labels: { resource: string; code: string }): void };
  /** kubeop_watch_decode_errors_total. */
  watchDecodeErrors?: { inc(labels: { resource: string }): void };
  /** kubeop_watch_age_seconds. */
  watchAge?: { set(labels: { resource: string }, value: number): void };
  /** kubeop_watch_last_event_seconds. */
  watchLastEvent?: { set(labels: { resource: string }, value: number): void };
  /** kubeop_watch_bytes_total: response bytes of the loop's lists and watch streams. */
  watchBytes?: { inc(labels: { resource: string }, value: number): void };
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
  /**
   * KEP-5958: ask the server to leave `metadata.managedFields` out of lists and watch events (the informer sets it when
   * its transform drops them anyway; a server without the feature ignores it).
   */
  dropManagedFields?: boolean;
  /**
   * Watch only this slice (KEP-5866): lists and watches carry `shardSelector`, and WatchList is not used (only a
   * list response echoes `metadata.shardInfo`). A list without the echo (gate off, older server) means the server
   * sent everything: the loop then filters lists and events itself.
   */
  shardSelector?: ShardSelector;
  /** Called after each list of a sliced loop: whether the server filtered (echoed `shardInfo`). */
  onShardMode?: (serverSide: boolean) => void;
  /** Called with the size of each run of response bytes of the loop's lists and streams (besides the metric). */
  onBytes?: (bytes: number) => void;
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
  /** ms without an open stream (undefined while one is open): an outage, a deleted CRD, a long relist. */
  disconnectedMs?: number;
  /** The most recent failure, for operators. */
  lastError?: string;
  /** How far the cache is behind its controllers' own writes (informers only; absent before any write). */
  ownWriteLag?: WriteLagReport;
}

/** The one open stream: the loop listens to it while it is the runner's current handle. */
interface StreamHandle {
  readonly abort: AbortController;
}

/**
 * Runs one list+watch loop.
 *
 * @example
 * ```ts
 * import { eventually, startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import type { KubeObject } from "../types.ts";
 * import { CoreTypes } from "../types.ts";
 * import { WatchRunner } from "./watch_runner.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const seen = new Map<string, KubeObject>();
 * const runner = new WatchRunner({
 *   client,
 *   resource: CoreTypes.ConfigMap,
 *   namespace: "default",
 *   sink: { // an informer's store is the usual sink
 *     replace: (items) => {
 *       seen.clear();
 *       for (const o of items) seen.set(o.metadata.name!, o);
 *     },
 *     apply: (type, o) => type === "DELETED" ? seen.delete(o.metadata.name!) : seen.set(o.metadata.name!, o),
 *   },
 * });
 * const ctrl = new AbortController();
 * const done = runner.run(ctrl.signal);
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "watched", namespace: "default" } });
 * await eventually("the event reaches the sink", () => seen.has("watched"));
 * ctrl.abort();
 * await done;
 * client.close();
 * await cluster.stop();
 * ```
 */
export class WatchRunner {
  readonly #opts: WatchRunnerOptions;
  readonly #clock: Clock;
  readonly #env: StepEnv;
  readonly #log: WatchLogger;
  readonly #resourceName: string;
  #state: WatchState;
  /** Armed timers by name; each entry's value cancels it. */
  readonly #timers = new Map<TimerName, () => void>();
  /** The stream the loop listens to; a stream no longer here is closed and its outcome ignored. */
  #stream?: StreamHandle;
  /** I/O started and not yet settled (awaited on shutdown so nothing writes after run() resolved). */
  readonly #inFlight = new Set<Promise<void>>();
  #signal: AbortSignal = new AbortController().signal;
  /** The `shardSelector` parameter of a sliced loop. */
  readonly #shardParam?: string;
  /** A sliced loop whose server ignored the selector filters here (set by each list). */
  #clientFilter = false;
  readonly #onBytes?: (bytes: number) => void;

  /** Creates the loop; nothing runs before run(). */
  constructor(opts: WatchRunnerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? opts.client.clock;
    const random = opts.random ?? Math.random;
    this.#env = { now: () => this.#clock.now(), random };
    this.#log = opts.logger ?? getLogger(["kubeop", "watch"]);
    const rt = opts.resource;
    this.#resourceName = resourceId(rt);
    this.#shardParam = opts.shardSelector ? formatShardSelector(opts.shardSelector) : undefined;
    this.#state = initialState({ watchList: this.#watchList() });
    const bytes = opts.metrics?.watchBytes;
    const hook = opts.onBytes;
    const labels = { resource: this.#resourceName };
    if (bytes || hook) {
      this.#onBytes = (n) => {
        bytes?.inc(labels, n);
        hook?.(n);
      };
    }
  }

  /** WatchList unless disabled; never for a sliced loop (its initial-events bookmark carries no shardInfo echo). */
  #watchList(): boolean {
    return this.#opts.watchList !== false && !this.#opts.shardSelector;
  }

  /** The current loop state (for tests and debugging). */
  get state(): WatchState {
    return this.#state;
  }

  /** Current health; also refreshes the age gauges. */
  health(): WatchHealth {
    const now = this.#clock.now();
    const s = this.#state;
    const h: WatchHealth = {
      resource: this.#resourceName,
      state: s.kind,
      synced: s.mem.synced,
      consecutiveFailures: s.mem.consecutiveFailures,
    };
    const openedAtMs = s.kind === "Watching" || s.kind === "InitialEvents" ? s.stream.openedAtMs : undefined;
    if (openedAtMs !== undefined) h.watchAgeMs = now - openedAtMs;
    if (s.mem.lastEventAtMs !== undefined) h.sinceLastEventMs = now - s.mem.lastEventAtMs;
    if (s.mem.lastError) h.lastError = s.mem.lastError;
    if (s.mem.disconnectedSinceMs !== undefined) h.disconnectedMs = now - s.mem.disconnectedSinceMs;
    if (s.mem.rv !== undefined) h.resourceVersion = s.mem.rv;
    const labels = { resource: this.#resourceName };
    this.#opts.metrics?.watchAge?.set(labels, (h.watchAgeMs ?? 0) / 1000);
    this.#opts.metrics?.watchLastEvent?.set(labels, (h.sinceLastEventMs ?? 0) / 1000);
    return h;
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    this.#signal = signal;
    const stopped = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    this.#dispatch({ type: "start" });
    await stopped;
    for (const cancel of this.#timers.values()) cancel();
    this.#timers.clear();
    this.#closeStream(signal.reason);
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  #dispatch(input: WatchInput): void {
    if (this.#signal.aborted) return;
    const { state, effects } = step(this.#state, input, this.#env);
    this.#state = state;
    for (const e of effects) this.#perform(e);
    if (!this.#stream && this.#inFlight.size === 0 && this.#timers.size === 0 && !this.#signal.aborted) {
      // Cannot happen (every step that ends I/O schedules the next); recover rather than stall.
      this.#log.warn("watch loop for {resource} had no next step; relisting", { resource: this.#resourceName });
      this.#state = { ...initialState({ watchList: this.#watchList() }), mem: this.#state.mem };
      this.#dispatch({ type: "start" });
    }
  }

  #perform(e: WatchEffect): void {
    switch (e.type) {
      case "list":
        this.#startIo(this.#list());
        return;
      case "watch":
        this.#startIo(this.#watch(e));
        return;
      case "closeStream":
        this.#closeStream(new Error("watch stream closed by the loop"));
        return;
      case "setTimer":
        this.#setTimer(e.timer, e.ms);
        return;
      case "cancelTimer":
        this.#timers.get(e.timer)?.();
        this.#timers.delete(e.timer);
        return;
      case "apply":
        // uid and namespace never change: an object outside the slice stays outside, whatever the event.
        if (this.#clientFilter && !matchesShardSelector(this.#opts.shardSelector!, e.object)) return;
        this.#opts.sink.apply(e.eventType, e.object);
        return;
      case "replace": {
        const sel = this.#opts.shardSelector;
        const items = this.#clientFilter ? e.items.filter((o) => matchesShardSelector(sel!, o)) : e.items;
        this.#opts.sink.replace(items, e.rv);
        return;
      }
      case "refreshCredentials":
        this.#opts.client.credentials.invalidate();
        return;
      case "skip":
        this.#skip(e.reason, e.detail);
        return;
      case "restart": {
        this.#opts.metrics?.watchRestarts?.inc({ resource: this.#resourceName, reason: e.reason });
        // The stream's connection is presumed dead, and the client's other connections went through the same path:
        // the parked ones are closed and requests silent for a while fail now, rather than wait out 25 s each.
        if (e.reason === "idle-deadline") this.#opts.client.connectionsPresumedDead();
        // A window the server ended is routine (every 15–22 s: debug), so is an early end; anything else is a failure.
        const level = e.reason === "window-end" ? "debug" : e.reason === "stream-ended" ? "info" : "warn";
        this.#log[level]("watch for {resource} restarting: {reason}", {
          resource: this.#resourceName,
          reason: e.reason,
          detail: e.detail,
        });
        return;
      }
      case "listError":
        this.#opts.metrics?.watchListFailures?.inc({ resource: this.#resourceName, code: e.code });
        this.#log.warn(
          e.code === "404"
            ? "listing {resource} failed with 404: the server does not serve it (CRD deleted or API not installed?): {detail}"
            : "listing {resource} failed with {code}: {detail}",
          { resource: this.#resourceName, code: e.code, detail: e.detail },
        );
        return;
      case "relist":
        this.#opts.metrics?.watchRelists?.inc({ resource: this.#resourceName, cause: e.cause });
        this.#log.info("relisting {resource}: {cause}", { resource: this.#resourceName, cause: e.cause });
        return;
    }
  }

  #setTimer(timer: TimerName, ms: number): void {
    this.#timers.get(timer)?.();
    const cancel = this.#clock.setTimer(ms, () => {
      if (this.#timers.get(timer) !== cancel) return;
      this.#timers.delete(timer);
      this.#dispatch({ type: "timer", timer });
    });
    this.#timers.set(timer, cancel);
  }

  /** Runs one list or stream; its outcome (if still wanted) is fed back once it no longer counts as in flight. */
  #startIo(io: Promise<WatchInput | undefined>): void {
    const settled: Promise<void> = io.then((input) => {
      this.#inFlight.delete(settled);
      if (input) this.#dispatch(input);
    });
    this.#inFlight.add(settled);
  }

  #closeStream(reason: unknown): void {
    const stream = this.#stream;
    this.#stream = undefined;
    stream?.abort.abort(reason);
  }

  async #list(): Promise<WatchInput> {
    const { client, resource } = this.#opts;
    const signal = this.#signal;
    let input: WatchInput;
    try {
      const list = await client.listAll(resource, {
        namespace: this.#opts.namespace,
        labelSelector: this.#opts.labelSelector,
        fieldSelector: this.#opts.fieldSelector,
        metadataOnly: this.#opts.metadataOnly,
        dropManagedFields: this.#opts.dropManagedFields,
        limit: this.#opts.pageSize ?? 500,
        shardSelector: this.#shardParam,
        onBytes: this.#onBytes,
        signal,
      });
      if (this.#shardParam !== undefined && !signal.aborted) {
        let serverSide = Boolean(list.metadata?.shardInfo?.selector);
        if (!serverSide && this.#opts.metadataOnly) {
          // kube-apiserver v1.37 drops shardInfo from PartialObjectMetadataList: ask one full item to see the echo.
          const probe = await client.list(resource, {
            namespace: this.#opts.namespace,
            labelSelector: this.#opts.labelSelector,
            fieldSelector: this.#opts.fieldSelector,
            limit: 1,
            dropManagedFields: this.#opts.dropManagedFields,
            shardSelector: this.#shardParam,
            onBytes: this.#onBytes,
            signal,
          });
          serverSide = Boolean(probe.metadata?.shardInfo?.selector);
        }
        if (!signal.aborted) {
          this.#clientFilter = !serverSide;
          this.#opts.onShardMode?.(serverSide);
        }
      }
      input = { type: "listed", items: list.items ?? [], rv: list.metadata?.resourceVersion ?? "" };
      this.#log.debug("listed {resource} at resourceVersion {rv}: {count} objects", {
        resource: this.#resourceName,
        rv: input.rv,
        count: input.items.length,
      });
    } catch (error) {
      input = { type: "listFailed", error };
    }
    return input;
  }

  async #watch(op: Extract<WatchEffect, { type: "watch" }>): Promise<WatchInput | undefined> {
    this.#closeStream(new Error("replaced by a new watch"));
    const handle: StreamHandle = { abort: new AbortController() };
    this.#stream = handle;
    const signal = this.#signal;
    const onAbort = () => handle.abort.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const current = () => this.#stream === handle;
    this.#log.debug("watching {resource} from resourceVersion {rv}", {
      resource: this.#resourceName,
      rv: op.sendInitialEvents ? "(initial events)" : op.resourceVersion ?? "(latest)",
    });
    let result: WatchInput;
    try {
      await this.#opts.client.watchStream(this.#opts.resource, {
        namespace: this.#opts.namespace,
        labelSelector: this.#opts.labelSelector,
        fieldSelector: this.#opts.fieldSelector,
        metadataOnly: this.#opts.metadataOnly,
        dropManagedFields: this.#opts.dropManagedFields,
        shardSelector: this.#shardParam,
        onBytes: this.#onBytes,
        resourceVersion: op.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: op.timeoutSeconds,
        sendInitialEvents: op.sendInitialEvents ? true : undefined,
        resourceVersionMatch: op.sendInitialEvents ? "NotOlderThan" : undefined,
        signal: handle.abort.signal,
        onOpen: () => {
          if (current()) this.#dispatch({ type: "opened" });
        },
        onMalformed: (line, error) => {
          if (current()) this.#skip("malformed-json", `${(error as Error).message}: ${line.slice(0, 120)}`);
        },
      }, (event: WatchEvent<KubeObject>) => {
        // Frames already read when the loop decided to leave this stream are dropped.
        if (current()) this.#dispatch({ type: "event", event });
      });
      result = { type: "streamEnded" };
    } catch (error) {
      result = { type: "streamFailed", error };
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    if (!current()) return undefined; // closed by the loop (or shutdown): it already chose the next step
    this.#stream = undefined;
    return result;
  }

  #skip(reason: string, detail: string): void {
    this.#opts.metrics?.watchDecodeErrors?.inc({ resource: this.#resourceName });
    this.#log.warn("skipped watch frame for {resource}: {reason}", { resource: this.#resourceName, reason, detail });
  }
}
