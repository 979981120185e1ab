/**
 * The Manager owns the lifecycle of one operator process (controller-runtime's manager): it starts the shared
 * caches on every replica (warm standby), serves /healthz, /readyz and /metrics, waits for the caches to sync, then
 * — when leader election is on — waits for the Lease before starting the controllers. On shutdown it stops intake,
 * drains in-flight reconciles (bounded), releases the Lease, stops the servers and the caches, in that order.
 * Losing the Lease stops the controllers at once and rejects with {@link LeadershipLostError}.
 * @module
 */

import type { KubeClient } from "./client.ts";
import { type Clock, RealClock } from "./clock.ts";
import type { ControllerDeps, InformerOptions, InformerSource } from "./controller.ts";
import { type EventRecorder, KubeEventRecorder } from "./events.ts";
import { InformerRegistry } from "./informers.ts";
import { defaultIdentity, LeaderElector, LeadershipLostError } from "./leader.ts";
import { kubeLeaseLock, type LeaseLock } from "./lease_lock.ts";
import { ensureDefaultLogging, kubeopLogger, type Logger } from "./log.ts";
import { Metrics } from "./metrics.ts";
import { namespacedInformers } from "./namespaced_informers.ts";
import { type CheckResult, type EndpointsServer, type ProbeReport, serveEndpoints } from "./probes.ts";
import type { ResourceType } from "./types.ts";
import type { WatchHealth } from "./watch_runner.ts";

export { LeadershipLostError };

/** What the manager runs (runtime/controller.ts `Controller` satisfies it). */
export interface ManagedController {
  /** Unique per manager; names logs and metrics. */
  readonly name: string;
  /** Receives the runtime services before {@link ManagedController.start}. */
  bind(deps: ControllerDeps): unknown;
  /** Runs until `signal` aborts, then drains in-flight reconciles and resolves. */
  start(signal: AbortSignal): Promise<void>;
  /**
   * The informers the controller will use. When present, the manager requests them before leadership so a standby
   * replica's caches are warm when it takes over.
   */
  watchedResources?(): { rt: ResourceType; opts?: InformerOptions }[];
}

/** The shared caches (runtime/informers.ts `InformerRegistry` satisfies it). */
export interface ManagerInformers extends InformerSource {
  /** Runs every informer until `signal` aborts. */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves once all informers listed; rejects (naming them) after `timeoutMs`. */
  waitForSync(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** True when every informer has synced. */
  hasSynced(): boolean;
  /** Per-watch health, for /readyz. */
  health?(): WatchHealth[];
}

/** Leader election settings (DESIGN §3). */
export interface ManagerLeaderElection {
  /** Lease name (`--leader-election-id`). */
  id: string;
  /** Lease namespace (`--leader-election-namespace`). */
  namespace: string;
  /** Default 15. */
  leaseSeconds?: number;
  /** Default 10. */
  renewDeadlineSeconds?: number;
  /** Default 2. */
  retryPeriodSeconds?: number;
  /** Default `hostname_uuid`. */
  identity?: string;
  /** Replaces the Lease lock on the API server (tests). */
  lock?: LeaseLock;
  /** Random source for retry jitter (tests). */
  random?: () => number;
}

/** Construction options of {@link Manager}. */
export interface ManagerOptions {
  /** The cluster client (controllers write through it; caches list/watch through it). */
  client: KubeClient;
  /** Time source (default the wall clock). */
  clock?: Clock;
  /** Parent logger (default `kubeop.manager`). */
  logger?: Logger;
  /** Registry served on /metrics (default a new one). */
  metrics?: Metrics;
  /** Restrict namespaced caches to these namespaces (default: all). */
  namespaces?: string[];
  /** When set, only the Lease holder runs controllers. */
  leaderElection?: ManagerLeaderElection;
  /** `/metrics` address; "0" (the default) disables it. The CLI default is ":8080". */
  metricsBindAddress?: string;
  /** `/healthz` `/readyz` address; "0" (the default) disables it. The CLI default is ":8081". */
  healthProbeBindAddress?: string;
  /** Longest wait for in-flight reconciles on shutdown. Default 25 000 ms (inside a pod's 30 s grace period). */
  gracefulShutdownMs?: number;
  /** Longest wait for the caches' first sync. Default 120 000 ms. */
  cacheSyncTimeoutMs?: number;
  /** Workers of every controller that does not set its own (`--max-concurrent-reconciles`). */
  maxConcurrentReconciles?: number;
  /** Replaces the shared caches (default: an InformerRegistry over `client`). */
  informers?: ManagerInformers;
  /** Replaces the Event recorder (default: events.k8s.io/v1 through `client`). */
  recorder?: EventRecorder & { close?(): Promise<void> };
  /** Watches failing this many times in a row make /readyz fail. Default 3. */
  unhealthyWatchFailures?: number;
}

/** Addresses the manager's servers listen on, once started. */
export interface ManagerEndpoints {
  /** e.g. `http://127.0.0.1:41234`; /healthz, /livez, /readyz. */
  healthProbe?: string;
  /** /metrics. */
  metrics?: string;
}

/** Longest wait for in-flight reconciles after leadership was lost. */
export const LOST_LEADERSHIP_GRACE_MS = 2_000;

type StopReason = { kind: "signal" } | { kind: "lost" } | { kind: "error"; error: unknown };

/**
 * Runs controllers with shared caches, probes, metrics and leader election.
 *
 * @example
 * ```ts ignore
 * const manager = new Manager({
 *   client,
 *   leaderElection: { id: "kubeop", namespace: "kubeop-system" },
 *   healthProbeBindAddress: ":8081",
 *   metricsBindAddress: ":8080",
 * });
 * manager.add(machineController({ informers: manager.informers }));
 * const stop = new AbortController();
 * Deno.addSignalListener("SIGTERM", () => stop.abort());
 * await manager.start(stop.signal); // resolves after a clean shutdown; rejects on leadership loss
 * ```
 */
export class Manager {
  /** The shared caches (scoped to the configured namespaces); controllers' map functions read them. */
  readonly informers: InformerSource;
  /** The registry served on /metrics. */
  readonly metrics: Metrics;
  readonly #opts: ManagerOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #caches: ManagerInformers;
  readonly #recorder: EventRecorder & { close?(): Promise<void> };
  readonly #elector: LeaderElector | undefined;
  readonly #controllers: ManagedController[] = [];
  #started = false;
  #shuttingDown = false;
  #endpoints: ManagerEndpoints = {};
  #onLeading: (signal: AbortSignal) => void = () => {};

  /** Builds the caches, recorder and (when configured) the leader elector; validates election durations. */
  constructor(opts: ManagerOptions) {
    this.#opts = opts;
    ensureDefaultLogging();
    this.#clock = opts.clock ?? new RealClock();
    this.#log = opts.logger ?? kubeopLogger("manager");
    this.metrics = opts.metrics ?? new Metrics();
    this.metrics.enableDefaultCollectors();
    this.#caches = opts.informers ?? new InformerRegistry({
      client: opts.client,
      clock: this.#clock,
      metrics: this.metrics,
      logger: this.#log.getChild("watch"),
    });
    this.informers = namespacedInformers(this.#caches, opts.namespaces ?? []);
    const le = opts.leaderElection;
    const identity = le?.identity ?? defaultIdentity();
    this.#recorder = opts.recorder ?? new KubeEventRecorder({
      sink: opts.client,
      clock: this.#clock,
      reportingController: "kubeop",
      reportingInstance: identity,
      metrics: this.metrics,
      log: this.#log.getChild("events"),
    });
    if (le) {
      this.#elector = new LeaderElector({
        lock: le.lock ?? kubeLeaseLock({ client: opts.client, namespace: le.namespace, name: le.id }),
        identity,
        name: le.id,
        leaseSeconds: le.leaseSeconds,
        renewDeadlineSeconds: le.renewDeadlineSeconds,
        retryPeriodSeconds: le.retryPeriodSeconds,
        clock: this.#clock,
        random: le.random,
        metrics: this.metrics,
        logger: this.#log.getChild("leader-election"),
        onStartedLeading: (signal) => this.#onLeading(signal),
      });
    }
  }

  /** This replica's identity in the Lease (undefined without leader election). */
  get identity(): string | undefined {
    return this.#elector?.identity;
  }

  /** True while this replica runs the controllers. */
  isLeader(): boolean {
    return this.#elector ? this.#elector.isLeader() : this.#started && !this.#shuttingDown;
  }

  /** Where the servers listen (filled in by {@link Manager.start} before the caches sync). */
  get endpoints(): ManagerEndpoints {
    return { ...this.#endpoints };
  }

  /** Registers a controller; it runs only on the leader. */
  add(controller: ManagedController): this {
    if (this.#started) throw new Error(`manager: add(${controller.name}) after start()`);
    if (this.#controllers.some((c) => c.name === controller.name)) {
      throw new Error(`manager: a controller named "${controller.name}" was already added`);
    }
    this.#controllers.push(controller);
    this.metrics.initController(controller.name);
    return this;
  }

  /** The /readyz report: caches synced, watches healthy, not shutting down. */
  readiness(): ProbeReport {
    const checks: CheckResult[] = [{ name: "ping", ok: true }];
    const health = this.#caches.health?.() ?? [];
    const unsynced = health.filter((h) => !h.synced).map((h) => h.resource);
    const synced = unsynced.length === 0 && this.#caches.hasSynced();
    checks.push({
      name: "informer-sync",
      ok: this.#started && synced,
      reason: !this.#started ? "manager not started" : `not synced: ${unsynced.join(", ") || "caches"}`,
    });
    const limit = this.#opts.unhealthyWatchFailures ?? 3;
    const failing = health.filter((h) => h.consecutiveFailures >= limit);
    checks.push({
      name: "watches",
      ok: failing.length === 0,
      reason: failing.map((h) => `${h.resource}: ${h.consecutiveFailures} failures (${h.lastError ?? h.state})`)
        .join("; "),
    });
    if (this.#shuttingDown) checks.push({ name: "shutdown", ok: false, reason: "shutting down" });
    return { ok: checks.every((c) => c.ok), checks };
  }

  /**
   * Runs until `signal` aborts (then shuts down gracefully and resolves) or leadership is lost (then stops the
   * controllers and rejects with {@link LeadershipLostError}). Also rejects when the caches do not sync within
   * `cacheSyncTimeoutMs` (the error names them) or a controller fails to start.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error("manager: start() called twice");
    this.#started = true;
    const deps: ControllerDeps = {
      client: this.#opts.client,
      informers: this.informers,
      recorder: this.#recorder,
      clock: this.#clock,
      metrics: this.metrics,
      logger: this.#log,
      maxConcurrentReconciles: this.#opts.maxConcurrentReconciles,
    };
    for (const c of this.#controllers) {
      c.bind(deps);
      for (const { rt, opts } of c.watchedResources?.() ?? []) this.informers.get(rt, opts); // warm standby
    }

    const caches = new AbortController();
    const cachesDone = this.#caches.start(caches.signal);
    // A /metrics scrape refreshes the watch-age and cache-size gauges (they are set by health()).
    const stopScrapeRefresh = this.metrics.refreshOnScrape(() => void this.#caches.health?.());
    const controllers = new AbortController();
    const election = new AbortController();
    const runs: Promise<void>[] = [];
    let electionDone: Promise<unknown> = Promise.resolve();
    let servers: EndpointsServer[] = [];

    let stopWith: (reason: StopReason) => void = () => {};
    const stopped = new Promise<StopReason>((resolve) => stopWith = resolve);
    const onSignal = () => stopWith({ kind: "signal" });
    signal.addEventListener("abort", onSignal, { once: true });
    if (signal.aborted) onSignal();

    const startControllers = () => {
      if (controllers.signal.aborted) return;
      this.#log.info("starting {count} controllers", { count: this.#controllers.length });
      for (const c of this.#controllers) {
        runs.push(
          c.start(controllers.signal).catch((error) => {
            this.#log.error("controller {name} failed: {error}", { name: c.name, error: String(error) });
            stopWith({ kind: "error", error });
          }),
        );
      }
    };

    let reason: StopReason;
    try {
      servers = await this.#startServers();
      const sync = await Promise.race([
        this.#caches.waitForSync(this.#opts.cacheSyncTimeoutMs ?? 120_000, signal).then(
          () => ({ synced: true, error: undefined as unknown }),
          (error: unknown) => ({ synced: false, error }),
        ),
        stopped.then(() => ({ synced: false, error: undefined })),
      ]);
      if (signal.aborted) reason = { kind: "signal" };
      else if (!sync.synced) reason = { kind: "error", error: sync.error };
      else reason = await this.#run(startControllers, controllers, election, stopped, (p) => electionDone = p);
    } catch (error) {
      reason = { kind: "error", error };
    } finally {
      signal.removeEventListener("abort", onSignal);
    }
    try {
      await this.#shutdown({ reason, controllers, runs, election, electionDone, servers, caches, cachesDone });
    } finally {
      stopScrapeRefresh();
    }
  }

  /** After sync: campaign (or not) and start controllers; resolves with why we stop. */
  #run(
    startControllers: () => void,
    controllers: AbortController,
    election: AbortController,
    stopped: Promise<StopReason>,
    setElectionDone: (p: Promise<unknown>) => void,
  ): Promise<StopReason> {
    if (!this.#elector) {
      startControllers();
      return stopped;
    }
    this.#onLeading = (leading) => {
      leading.addEventListener("abort", () => controllers.abort(leading.reason), { once: true });
      startControllers();
    };
    const lost = this.#elector.run(election.signal).then((outcome) => outcome === "lost");
    setElectionDone(lost);
    return Promise.race([stopped, lost.then((l) => l ? { kind: "lost" } as const : stopped)]);
  }

  async #startServers(): Promise<EndpointsServer[]> {
    const servers: EndpointsServer[] = [];
    const metricsServer = await serveEndpoints({
      bindAddress: this.#opts.metricsBindAddress ?? "0",
      metrics: this.metrics,
      logger: this.#log,
      name: "metrics",
    });
    if (metricsServer) {
      servers.push(metricsServer);
      this.#endpoints.metrics = metricsServer.url;
    }
    try {
      const probeServer = await serveEndpoints({
        bindAddress: this.#opts.healthProbeBindAddress ?? "0",
        liveness: true,
        readiness: () => this.readiness(),
        logger: this.#log,
        name: "health probe",
      });
      if (probeServer) {
        servers.push(probeServer);
        this.#endpoints.healthProbe = probeServer.url;
      }
    } catch (err) {
      await Promise.all(servers.map((s) => s.shutdown()));
      throw err;
    }
    return servers;
  }

  /** Stop intake → drain (bounded) → release the Lease → stop servers → stop caches; then resolve or reject. */
  async #shutdown(s: {
    reason: StopReason;
    controllers: AbortController;
    runs: Promise<void>[];
    election: AbortController;
    electionDone: Promise<unknown>;
    servers: EndpointsServer[];
    caches: AbortController;
    cachesDone: Promise<void>;
  }): Promise<void> {
    this.#shuttingDown = true;
    const why = s.reason.kind === "signal"
      ? "shutdown requested"
      : s.reason.kind === "lost"
      ? "leadership lost"
      : `error: ${String((s.reason as { error: unknown }).error)}`;
    this.#log.info("stopping ({why}): draining in-flight reconciles", { why });
    s.controllers.abort();
    // After losing the Lease another replica may take over once it has expired (≥ lease − renew deadline
    // later): reconciles were told to stop (their signal aborted) and get only a short grace.
    const graceMs = Math.min(
      this.#opts.gracefulShutdownMs ?? 25_000,
      s.reason.kind === "lost" ? LOST_LEADERSHIP_GRACE_MS : Infinity,
    );
    if (!await this.#within(Promise.all(s.runs), graceMs)) {
      this.#log.warn("reconciles still running after {graceMs} ms; stopping anyway", { graceMs });
    }
    s.election.abort(); // releases the Lease, now that no reconcile runs
    await s.electionDone;
    await this.#within(this.#recorder.close?.() ?? Promise.resolve(), 2_000);
    await Promise.all(s.servers.map((srv) => srv.shutdown()));
    s.caches.abort();
    await s.cachesDone;
    this.#log.info("stopped");
    if (s.reason.kind === "lost") {
      throw new LeadershipLostError(this.#opts.leaderElection?.id ?? "lease", this.identity ?? "");
    }
    if (s.reason.kind === "error") throw s.reason.error;
  }

  /** True when `p` settles within `ms` of the manager's clock. */
  async #within(p: Promise<unknown>, ms: number): Promise<boolean> {
    let cancel = () => {};
    const timeout = new Promise<false>((resolve) => cancel = this.#clock.setTimer(ms, () => resolve(false)));
    try {
      return await Promise.race([p.then(() => true, () => true), timeout]);
    } finally {
      cancel();
    }
  }
}
