/**
 * The Manager owns the lifecycle of one operator process (controller-runtime's manager). Everything long-lived is a
 * {@link Runnable}, started in groups (runtime/manager/runnable_group.ts): servers (/metrics, /healthz /readyz), then the
 * shared caches (on every replica: warm standby) until they sync, then runnables with `needLeaderElection: false`,
 * then — once this replica holds the Lease, when leader election is on — the leader-gated ones (controllers). On
 * shutdown it stops intake, drains the leader-gated and every-replica runnables (bounded), releases the Lease, closes
 * the Event recorder, then stops the caches and the servers. Losing the Lease stops the controllers at once (their
 * writes were fenced from the renew deadline on), drains them and campaigns again with the caches warm (KEP-5366's
 * graceful leader transition); with `leaderElection.exitOnLostLeadership` it rejects with
 * {@link LeadershipLostError} instead, as controller-runtime does.
 * @module
 */

import type { KubeClient } from "../client/client.ts";
import { type Clock, RealClock, settlesWithin } from "../clock.ts";
import type { InformerSource } from "../cache/cache.ts";
import type { ControllerDeps } from "../controller/controller.ts";
import { type EventRecorder, KubeEventRecorder } from "../observe/events.ts";
import { InformerRegistry } from "../cache/informers.ts";
import { waitForCacheSync } from "./cache_sync_wait.ts";
import { defaultIdentity, LeaderElector, LeadershipLostError } from "../leader/leader.ts";
import { kubeLeaseLock } from "../leader/lease_lock.ts";
import { leaderAdmission } from "../leader/leader_admission.ts";
import { ensureDefaultLogging, kubeopLogger, type Logger } from "../observe/log.ts";
import { Metrics } from "../observe/metrics.ts";
import { namespacedInformers } from "../cache/namespaced_informers.ts";
import type { CheckResult, ProbeReport } from "./probes.ts";
import { endpointServers, stalenessCheck, watchesCheck } from "./manager_servers.ts";
import type { ManagerEndpoints, ManagerInformers, ManagerLeaderElection, ManagerOptions } from "./manager_options.ts";
import { type ControllerRunnable, isControllerRunnable, type Runnable } from "./runnable.ts";
import type { ManagerPlugin } from "./manager_plugin.ts";
import { RunnableGroup } from "./runnable_group.ts";
import { shardingPlugin } from "../shard/manager_shards.ts";
import type { ShardRing } from "../shard/shard_ring.ts";

export { LeadershipLostError };
export type { ManagerEndpoints, ManagerInformers, ManagerLeaderElection, ManagerOptions, Runnable };

/** Longest wait for in-flight reconciles after leadership was lost. */
export const LOST_LEADERSHIP_GRACE_MS = 2_000;

/**
 * How long after the caches synced the Manager registers prom-client's default process collectors (a scrape before
 * that registers them at once): evaluating their modules costs ~20 ms, which would otherwise delay the first reconcile.
 */
export const DEFAULT_COLLECTORS_DELAY_MS = 1_000;

type StopReason = { kind: "signal" } | { kind: "lost" } | { kind: "error"; error: unknown };

/** The four groups, in start order; shutdown walks them in reverse. */
interface Groups {
  servers: RunnableGroup;
  caches: RunnableGroup;
  everyReplica: RunnableGroup;
  leaderElected: RunnableGroup;
}

/** One start() of the manager: its groups and how it ends. */
interface Run {
  /** The caller's stop signal. */
  signal: AbortSignal;
  /** Settles with the first reason to stop. */
  stopped: Promise<StopReason>;
  /** Settles {@link Run.stopped} (first call wins). */
  stopWith(reason: StopReason): void;
  groups: Groups;
  /** Aborted after the leader-gated runnables drained: releases the Lease. */
  election: AbortController;
  /** Settles when the elector stopped. */
  electionDone: Promise<unknown>;
}

/** What a failing member of each group is called in the log ("controller pods failed: …"). */
const MEMBER_NOUN: Record<keyof Groups, string> = {
  servers: "server",
  caches: "cache",
  everyReplica: "runnable",
  leaderElected: "controller",
};

/**
 * Runs {@link Runnable}s — controllers and anything else long-lived — with shared caches, probes, metrics and leader
 * election. Start order: servers (metrics, probes), caches (until synced), runnables with `needLeaderElection:
 * false`, then — once this replica holds the Lease — the leader-gated ones; shutdown in reverse.
 *
 * @example
 * ```ts
 * import { eventually, startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { Controller } from "../controller/controller.ts";
 * import { done } from "../controller/reconcile.ts";
 * import { CoreTypes } from "../types.ts";
 * import { Manager } from "./manager.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * // Controllers run only while this replica holds the Lease; `kubeop run` also serves probes (:8081) and metrics (:8080).
 * const manager = new Manager({ client, leaderElection: { id: "example", namespace: "default" } });
 * const seen = new Set<string>();
 * const reconcile = (ctx: { key: string }) => Promise.resolve(done()).finally(() => seen.add(ctx.key));
 * manager.add(new Controller({ name: "namespaces", for: CoreTypes.Namespace, reconcile }));
 * const stop = new AbortController(); // a program: Deno.addSignalListener("SIGTERM", () => stop.abort())
 * const running = manager.start(stop.signal); // resolves after a clean shutdown
 * await eventually("the leader reconciles every namespace", () => seen.has("default"));
 * stop.abort();
 * await running; // the Lease is released on the way out
 * client.close();
 * await cluster.stop();
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
  readonly #ring: ShardRing | undefined;
  readonly #runnables: Runnable[] = [];
  /** Plug-ins (sharding): controller services, runnables, /readyz lines. */
  readonly #plugins: ManagerPlugin[] = [];
  /** Controllers a plug-in runs on every replica. */
  readonly #everyReplica = new Set<Runnable>();
  /** The client controllers and Events write through: fenced by the elector when leader election is on. */
  readonly #writer: KubeClient;
  #started = false;
  /** Every server (metrics, probes, webhooks) listens: set once the servers group is ready. */
  #serversReady = false;
  #shuttingDown = false;
  #endpoints: ManagerEndpoints = {};
  #onLeading: (signal: AbortSignal) => void = () => {};
  #cancelCollectorsTimer: () => void = () => {};

  /** Builds the caches, recorder and (when configured) the leader elector; validates election durations. */
  constructor(opts: ManagerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? new RealClock();
    this.#log = opts.logger ?? kubeopLogger("manager");
    this.metrics = opts.metrics ?? new Metrics();
    this.metrics.enableDefaultCollectors();
    this.#caches = opts.informers ?? new InformerRegistry({
      client: opts.client,
      clock: this.#clock,
      metrics: this.metrics,
      logger: this.#log.getChild("watch"),
      watchList: opts.watchList,
    });
    this.informers = namespacedInformers(this.#caches, opts.namespaces ?? []);
    const le = opts.leaderElection;
    const identity = le?.identity ?? opts.sharding?.identity ?? defaultIdentity();
    if (le) {
      this.#elector = new LeaderElector({
        lock: le.lock ?? kubeLeaseLock({ client: opts.client, namespace: le.namespace, name: le.id }),
        identity,
        watchForRelease: true,
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
    // Fencing (issue 11): controllers and Events write through a view that refuses writes once the last successful
    // renew was sent a renew deadline ago; the Lease lock above keeps the unfenced client so renewals still go out.
    this.#writer = this.#elector ? opts.client.withWriteFence(this.#elector.fence) : opts.client;
    // Sharding (issue 15): sharded controllers run on every replica; each reconcile's writes pass its bucket's fence
    // (the write chain, runtime/controller/write_path.ts), so they and their Events use the client without the leader
    // fence.
    if (opts.sharding) {
      const sharding = shardingPlugin({
        sharding: opts.sharding,
        client: opts.client,
        unfenced: opts.client,
        clock: this.#clock,
        metrics: this.metrics,
        logger: this.#log.getChild("shard"),
        identity,
        informers: this.informers,
      });
      this.#ring = sharding.ring;
      this.#plugins.push(sharding);
    }
    this.#recorder = opts.recorder ?? new KubeEventRecorder({
      sink: this.#ring ? opts.client : this.#writer,
      clock: this.#clock,
      reportingController: "kubeop",
      reportingInstance: identity,
      metrics: this.metrics,
      log: this.#log.getChild("events"),
    });
  }

  /** This replica's identity in the Lease (undefined without leader election or sharding). */
  get identity(): string | undefined {
    return this.#elector?.identity ?? this.#ring?.identity;
  }

  /** The shard ring, when sharding is on (its `gate` says which buckets this replica holds). */
  get shardRing(): ShardRing | undefined {
    return this.#ring;
  }

  /** True while this replica runs the leader-gated runnables. */
  isLeader(): boolean {
    return this.#elector ? this.#elector.isLeader() : this.#started && !this.#shuttingDown;
  }

  /** Where the servers listen (filled in by {@link Manager.start} once they listen, before the caches sync). */
  get endpoints(): ManagerEndpoints {
    return { ...this.#endpoints };
  }

  /**
   * Registers a runnable: a controller (leader-gated; it gets the manager's services here, see
   * {@link ControllerRunnable}), a runnable with `needLeaderElection: false` (every replica, after the caches synced),
   * or one of the `servers` / `caches` groups. Names must be unique; throws after start.
   */
  add(runnable: Runnable): this {
    if (this.#started) throw new Error(`manager: add(${runnable.name}) after start()`);
    if (this.#runnables.some((r) => r.name === runnable.name)) {
      throw new Error(`manager: a runnable named "${runnable.name}" was already added`);
    }
    if (isControllerRunnable(runnable)) this.#provide(runnable);
    this.#runnables.push(runnable);
    return this;
  }

  /** Hands a controller its services (as the plug-ins place it). */
  #provide(controller: ControllerRunnable): void {
    let placement = {
      deps: {
        client: this.#writer,
        admission: this.#elector ? leaderAdmission(this.#elector.fence) : undefined,
        informers: this.informers,
        recorder: this.#recorder,
        clock: this.#clock,
        metrics: this.metrics,
        logger: this.#log,
        maxConcurrentReconciles: this.#opts.maxConcurrentReconciles,
      } as ControllerDeps,
      everyReplica: false,
    };
    for (const plugin of this.#plugins) {
      const placed = plugin.placeController?.(controller, placement.deps);
      if (placed) {
        placement = { deps: placed.deps, everyReplica: placement.everyReplica || placed.everyReplica === true };
      }
    }
    controller.bind(placement.deps);
    if (placement.everyReplica) this.#everyReplica.add(controller);
  }

  /** The /readyz report: caches synced, watches healthy, not shutting down. */
  readiness(): ProbeReport {
    const checks: CheckResult[] = [{ name: "ping", ok: true }];
    // A webhook server must listen before the replica takes traffic (kube-apiserver calls it through the Service).
    if (!this.#serversReady) checks.push({ name: "servers", ok: false, reason: "servers not all listening yet" });
    const health = this.#caches.health?.() ?? [];
    const unsynced = health.filter((h) => !h.synced).map((h) => h.resource);
    const synced = unsynced.length === 0 && this.#caches.hasSynced();
    checks.push({
      name: "informer-sync",
      ok: this.#started && synced,
      reason: !this.#started ? "manager not started" : `not synced: ${unsynced.join(", ") || "caches"}`,
    });
    checks.push(stalenessCheck(health));
    checks.push(watchesCheck(health, {
      failures: this.#opts.unhealthyWatchFailures ?? 3,
      disconnectGraceMs: this.#opts.watchDisconnectGraceMs ?? 5_000,
    }));
    for (const plugin of this.#plugins) checks.push(...plugin.checks?.() ?? []);
    if (this.#shuttingDown) checks.push({ name: "shutdown", ok: false, reason: "shutting down" });
    return { ok: checks.every((c) => c.ok), checks };
  }

  /**
   * Runs until `signal` aborts (then shuts down gracefully and resolves). A lost Lease stops and drains the
   * leader-gated runnables and campaigns again (each term starts them anew; a Controller may be started again); with
   * `leaderElection.exitOnLostLeadership`, or when they do not drain within `gracefulShutdownMs`, it rejects with
   * {@link LeadershipLostError} instead. Also rejects when a server cannot listen, a runnable fails, or — with
   * `exitOnCacheSyncTimeout` — the caches do not sync within `cacheSyncTimeoutMs` (by default: logged, and it waits
   * on). A program that configured no logging gets info-level text on stderr (constructors never configure logging).
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error("manager: start() called twice");
    this.#started = true;
    ensureDefaultLogging(); // running a Manager is running the program: info text unless it configured logging
    void this.#opts.client.preconnect?.(); // the first write skips the handshake (watches use their own sockets)
    for (const r of this.#runnables) {
      if (!isControllerRunnable(r)) continue;
      for (const { rt, opts } of r.watchedResources?.() ?? []) this.informers.get(rt, opts); // warm standby
    }
    for (const plugin of this.#plugins) plugin.starting?.();
    // A /metrics scrape refreshes the watch-age and cache-size gauges (they are set by health()).
    const stopScrapeRefresh = this.metrics.refreshOnScrape(() => void this.#caches.health?.());

    let stopWith: (reason: StopReason) => void = () => {};
    const stopped = new Promise<StopReason>((resolve) => stopWith = resolve);
    const onSignal = () => stopWith({ kind: "signal" });
    signal.addEventListener("abort", onSignal, { once: true });
    if (signal.aborted) onSignal();
    const run: Run = {
      signal,
      stopped,
      stopWith,
      groups: this.#groups(stopWith),
      election: new AbortController(),
      electionDone: Promise.resolve(),
    };

    let reason: StopReason;
    try {
      reason = await this.#run(run);
    } catch (error) {
      reason = signal.aborted ? { kind: "signal" } : { kind: "error", error };
    } finally {
      signal.removeEventListener("abort", onSignal);
    }
    try {
      await this.#shutdown(reason, run);
    } finally {
      stopScrapeRefresh();
    }
  }

  /** A group whose failing member stops the run with its error. */
  #group(name: keyof Groups, stopWith: (reason: StopReason) => void): RunnableGroup {
    return new RunnableGroup({
      name,
      onError: (r, error) => {
        this.#log.error(`${MEMBER_NOUN[name]} {name} failed: {error}`, { name: r.name, error: String(error) });
        stopWith({ kind: "error", error });
      },
    });
  }

  /** A fresh leader-gated group with `members` (one per term of leadership). */
  #leaderGroup(members: readonly Runnable[], stopWith: (reason: StopReason) => void): RunnableGroup {
    const group = this.#group("leaderElected", stopWith);
    for (const r of members) group.add(r);
    return group;
  }

  /** The manager's own servers and caches plus the added runnables, sorted into their groups. */
  #groups(stopWith: (reason: StopReason) => void): Groups {
    const group = (name: keyof Groups) => this.#group(name, stopWith);
    const groups: Groups = {
      servers: group("servers"),
      caches: group("caches"),
      everyReplica: group("everyReplica"),
      leaderElected: group("leaderElected"),
    };
    for (
      const server of endpointServers({
        opts: this.#opts,
        clock: this.#clock,
        metrics: this.metrics,
        logger: this.#log,
        readiness: () => this.readiness(),
        listening: (name, url) => this.#endpoints[name] = url,
      })
    ) groups.servers.add(server);
    const sync = { timeoutMs: this.#opts.cacheSyncTimeoutMs ?? 120_000, log: this.#log };
    const exitOnTimeout = this.#opts.exitOnCacheSyncTimeout === true;
    groups.caches.add({
      name: "informers",
      group: "caches",
      start: (signal) => this.#caches.start(signal),
      ready: (signal) => waitForCacheSync(this.#caches, { ...sync, exitOnTimeout, signal }),
    });
    for (const r of this.#runnables) {
      if (r.group) groups[r.group].add(r);
      else if (r.needLeaderElection === false || this.#everyReplica.has(r)) groups.everyReplica.add(r);
      else groups.leaderElected.add(r);
    }
    for (const plugin of this.#plugins) for (const r of plugin.runnables?.() ?? []) groups.everyReplica.add(r);
    return groups;
  }

  /**
   * Starts the groups in order (servers → caches → every replica, plug-in runnables included → Lease → leader-gated);
   * resolves with why we stop.
   */
  async #run(run: Run): Promise<StopReason> {
    const { groups, signal, stopped } = run;
    const untilStopped = (p: Promise<void>) => Promise.race([p.then(() => undefined), stopped]);
    for (const group of [groups.servers, groups.caches, groups.everyReplica]) {
      const why = await untilStopped(group.start(signal));
      if (signal.aborted) return { kind: "signal" };
      if (why) return why;
      if (group === groups.servers) this.#serversReady = true;
    }
    // Off the start path: the collectors' modules are evaluated once the first reconciles have had their turn.
    this.#cancelCollectorsTimer = this.#clock.setTimer(
      DEFAULT_COLLECTORS_DELAY_MS,
      () => void this.metrics.registerDefaultCollectors(),
    );
    if (!this.#elector) {
      this.#startLeaderGroup(run, groups.leaderElected);
      return stopped;
    }
    return this.#campaign(run, this.#elector);
  }

  /** Starts a term's leader-gated group (after the previous term's drained). */
  #startLeaderGroup(run: Run, group: RunnableGroup, after: Promise<unknown> = Promise.resolve()): void {
    void after.then(() => {
      if (group.stopping) return;
      this.#log.info("starting {count} controllers", { count: group.members.length });
      group.start(run.signal).catch((error) => run.stopWith({ kind: "error", error }));
    });
  }

  /**
   * Campaigns for the Lease; each term of leadership runs a fresh leader-gated group. A lost Lease stops that group
   * (the fence shut first) and — unless `exitOnLostLeadership` — drains it and campaigns again with the caches warm
   * (KEP-5366); a group that does not drain within the graceful-shutdown bound ends the run as a loss instead, so
   * two terms' reconciles of one key never overlap.
   */
  async #campaign(run: Run, elector: LeaderElector): Promise<StopReason> {
    const drainMs = this.#opts.gracefulShutdownMs ?? 25_000;
    let previous: Promise<unknown> = Promise.resolve();
    for (let term = 1;; term++) {
      const group = run.groups.leaderElected;
      this.#onLeading = (leading) => {
        leading.addEventListener("abort", () => group.stop(leading.reason), { once: true });
        this.#startLeaderGroup(run, group, previous);
      };
      const election = elector.run(run.election.signal);
      run.electionDone = election;
      const outcome = await Promise.race([run.stopped, election]);
      if (typeof outcome !== "string") return outcome;
      if (outcome !== "lost") return run.stopped; // stopped or released: the run's signal aborted
      if (this.#opts.leaderElection?.exitOnLostLeadership) return { kind: "lost" };
      group.stop();
      if (!await settlesWithin(this.#clock, group.done(), drainMs)) {
        this.#log.error("lost leadership, and reconciles still run after {drainMs} ms: stopping", { drainMs });
        return { kind: "lost" };
      }
      if (run.signal.aborted) return { kind: "signal" };
      previous = group.done();
      run.groups.leaderElected = this.#leaderGroup(run.groups.leaderElected.members, run.stopWith);
      this.#log.warn(
        "lost leadership of lease {lease} (term {term}): controllers stopped and drained, caches kept warm; " +
          "campaigning again",
        { lease: this.#opts.leaderElection?.id ?? "", term },
      );
    }
  }

  /**
   * Stop intake → drain (bounded; plug-in runnables stop with the every-replica group: the shard ring hands its
   * buckets over, each after its in-flight reconciles drained) → release the Lease → close the recorder → caches →
   * servers; then resolve or reject.
   */
  async #shutdown(reason: StopReason, { groups, election, electionDone }: Run): Promise<void> {
    this.#shuttingDown = true;
    this.#cancelCollectorsTimer();
    const why = reason.kind === "signal"
      ? "shutdown requested"
      : reason.kind === "lost"
      ? "leadership lost"
      : `error: ${String((reason as { error: unknown }).error)}`;
    this.#log.info("stopping ({why}): draining in-flight reconciles", { why });
    groups.leaderElected.stop();
    groups.everyReplica.stop();
    // After losing the Lease another replica may take over once it has expired (≥ lease − renew deadline
    // later): reconciles were told to stop (their signal aborted) and get only a short grace.
    const graceMs = Math.min(
      this.#opts.gracefulShutdownMs ?? 25_000,
      reason.kind === "lost" ? LOST_LEADERSHIP_GRACE_MS : Infinity,
    );
    if (
      !await settlesWithin(this.#clock, Promise.all([groups.leaderElected.done(), groups.everyReplica.done()]), graceMs)
    ) {
      this.#log.warn("reconciles still running after {graceMs} ms; stopping anyway", { graceMs });
    }
    election.abort(); // releases the Lease, now that no reconcile runs
    await electionDone;
    await settlesWithin(this.#clock, this.#recorder.close?.() ?? Promise.resolve(), 2_000);
    for (const group of [groups.caches, groups.servers]) {
      group.stop();
      await group.done();
    }
    this.#log.info("stopped");
    if (reason.kind === "lost") {
      throw new LeadershipLostError(this.#opts.leaderElection?.id ?? "lease", this.identity ?? "");
    }
    if (reason.kind === "error") throw reason.error;
  }
}
