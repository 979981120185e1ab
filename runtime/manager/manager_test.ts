import assert from "node:assert/strict";
import { KubeClient } from "../client/client.ts";
import { VirtualClock } from "../clock.ts";
import type { ControllerDeps, InformerLike } from "../controller/controller.ts";
import { MemoryLeaseStore } from "../leader/lease_lock.ts";
import { Manager, type ManagerInformers, type ManagerOptions } from "./manager.ts";
import type { Runnable, RunnableGroupName } from "./runnable.ts";
import type { KubeObject } from "../types.ts";
import { eventually } from "../../testing/eventually.ts";

/** Caches that are synced from the start and log their start and stop into `events`. */
function syncedCaches(events: string[]): ManagerInformers {
  return {
    get<T extends KubeObject>(): InformerLike<T> {
      throw new Error("no informers in this test");
    },
    async start(signal) {
      events.push("start informers");
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      events.push("stop informers");
    },
    waitForSync: () => Promise.resolve(),
    hasSynced: () => true,
  };
}

/** A runnable that logs `start <name>` / `stop <name>` and is ready only when the test says so. */
class FakeRunnable implements Runnable {
  readonly group?: RunnableGroupName;
  readonly needLeaderElection?: boolean;
  deps?: ControllerDeps;
  #ready: () => void = () => {};
  readonly #readyPromise = new Promise<void>((resolve) => this.#ready = resolve);
  readonly #gated: boolean;
  #fail: (error: Error) => void = () => {};

  constructor(
    readonly name: string,
    readonly events: string[],
    opts: { group?: RunnableGroupName; needLeaderElection?: boolean; gatedReady?: boolean; failWith?: Error } = {},
  ) {
    this.group = opts.group;
    this.needLeaderElection = opts.needLeaderElection;
    this.#gated = opts.gatedReady ?? false;
    if (opts.failWith) {
      const error = opts.failWith;
      this.start = () => {
        events.push(`start ${name}`);
        return Promise.reject(error);
      };
    }
  }

  bind(deps: ControllerDeps): void {
    this.deps = deps;
  }

  /** Makes a running start() reject with `error`. */
  fail(error: Error): void {
    this.#fail(error);
  }

  markReady(): void {
    this.#ready();
  }

  ready(): Promise<void> {
    return this.#gated ? this.#readyPromise : Promise.resolve();
  }

  async start(signal: AbortSignal): Promise<void> {
    this.events.push(`start ${this.name}`);
    await new Promise((resolve, reject) => {
      signal.addEventListener("abort", resolve, { once: true });
      this.#fail = reject;
    });
    this.events.push(`stop ${this.name}`);
  }
}

const quietRecorder = { event() {}, close: () => Promise.resolve() };

/** Never contacted: the runnables here are fakes (a real KubeClient, so the manager can fence its writes). */
const unreachableClient = new KubeClient({ config: { server: "http://127.0.0.1:1" } });

function options(clock: VirtualClock, events: string[], extra: Partial<ManagerOptions> = {}): ManagerOptions {
  return { client: unreachableClient, clock, informers: syncedCaches(events), recorder: quietRecorder, ...extra };
}

/** Lets the manager's promises settle (virtual time does not move) until `cond` holds (testing/eventually.ts). */
async function until(clock: VirtualClock, cond: () => boolean): Promise<void> {
  await eventually("the manager to reach the condition", cond, { intervalMs: 0, step: () => clock.advance(0) });
}

Deno.test("runnables start by group — servers, caches, every replica, leader-gated — and stop in reverse", async () => {
  const clock = new VirtualClock();
  const events: string[] = [];
  const server = new FakeRunnable("webhook", events, { group: "servers", gatedReady: true });
  const cache = new FakeRunnable("extra-cache", events, { group: "caches", gatedReady: true });
  const everywhere = new FakeRunnable("heartbeat", events, { needLeaderElection: false });
  const controller = new FakeRunnable("pods", events);
  const mgr = new Manager(options(clock, events))
    .add(controller).add(everywhere).add(cache).add(server);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);

  await until(clock, () => events.includes("start webhook"));
  await clock.advance(0);
  assert.deepEqual(events, ["start webhook"], "nothing else starts before the servers are ready");
  server.markReady();
  await until(clock, () => events.includes("start extra-cache"));
  await clock.advance(0);
  assert.deepEqual(events, ["start webhook", "start informers", "start extra-cache"], "caches next, until synced");
  cache.markReady();
  await until(clock, () => events.includes("start pods"));
  assert.deepEqual(events.slice(3), ["start heartbeat", "start pods"]);
  assert.equal(controller.deps?.informers, mgr.informers, "bind() received the manager's services");

  stop.abort();
  await running;
  const stops = events.slice(5);
  assert.deepEqual(stops.slice(0, 2).sort(), ["stop heartbeat", "stop pods"], "the runnables drain first");
  assert.deepEqual(stops.slice(2), ["stop informers", "stop extra-cache", "stop webhook"], "then caches, servers");
});

Deno.test("a runnable with needLeaderElection false runs on a replica that does not hold the Lease", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore();
  const election = (identity: string) => ({
    leaderElection: { id: "kubeop", namespace: "default", identity, lock: store.lock(), random: () => 0.5 },
  });
  const leaderEvents: string[] = [];
  const leader = new Manager(options(clock, leaderEvents, election("a"))).add(new FakeRunnable("pods", leaderEvents));
  const stopLeader = new AbortController();
  const leaderRunning = leader.start(stopLeader.signal);
  await until(clock, () => leaderEvents.includes("start pods"));

  const events: string[] = [];
  const standby = new Manager(options(clock, events, election("b")))
    .add(new FakeRunnable("pods", events))
    .add(new FakeRunnable("heartbeat", events, { needLeaderElection: false }));
  const stop = new AbortController();
  const running = standby.start(stop.signal);
  await until(clock, () => events.includes("start heartbeat"));
  await clock.advance(10_000); // several retry periods: the Lease stays with "a"
  assert.equal(store.current!.spec.holderIdentity, "a");
  assert.equal(standby.isLeader(), false);
  assert.deepEqual(events, ["start informers", "start heartbeat"], "the leader-gated runnable waits for the Lease");

  stop.abort();
  stopLeader.abort();
  await clock.advance(0);
  await Promise.all([running, leaderRunning]);
  assert.deepEqual(events.slice(2), ["stop heartbeat", "stop informers"]);
});

Deno.test("add() after start() throws; names are unique across runnables", async () => {
  const clock = new VirtualClock();
  const events: string[] = [];
  const mgr = new Manager(options(clock, events)).add(new FakeRunnable("pods", events));
  assert.throws(() => mgr.add(new FakeRunnable("pods", events, { group: "servers" })), /already added/);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  assert.throws(() => mgr.add(new FakeRunnable("late", events)), /manager: add\(late\) after start\(\)/);
  stop.abort();
  await running;
});

Deno.test("a server that fails to start stops the manager with its error before the caches start", async () => {
  const clock = new VirtualClock();
  const events: string[] = [];
  const mgr = new Manager(options(clock, events))
    .add(new FakeRunnable("pods", events))
    .add(new FakeRunnable("webhook", events, { group: "servers", failWith: new Error("webhook: port taken") }));
  await assert.rejects(mgr.start(new AbortController().signal), /webhook: port taken/);
  assert.deepEqual(events, ["start webhook"]);
});

Deno.test("a runnable failing after start stops the others and the manager rejects with its error", async () => {
  const clock = new VirtualClock();
  const events: string[] = [];
  const reporter = new FakeRunnable("reporter", events, { needLeaderElection: false });
  const mgr = new Manager(options(clock, events)).add(new FakeRunnable("pods", events)).add(reporter);
  const running = mgr.start(new AbortController().signal);
  const rejected = assert.rejects(running, /reporter broke/);
  await until(clock, () => events.includes("start pods"));
  reporter.fail(new Error("reporter broke"));
  await rejected;
  assert.deepEqual(events, ["start informers", "start reporter", "start pods", "stop pods", "stop informers"]);
});
