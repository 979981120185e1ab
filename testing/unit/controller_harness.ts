/**
 * Test harness of the Controller tests (controller_test.ts, controller_read_your_writes_test.ts): fake informers and
 * registry, an Event recorder, a stub ControllerClient and a running Controller on a virtual clock.
 * @module
 */
import { flushMicrotasks, VirtualClock } from "../../runtime/clock.ts";
import { eventually } from "../eventually.ts";
import {
  type Action,
  Controller,
  type ControllerDeps,
  type InformerHandler,
  type InformerLike,
  type InformerSource,
  type ReconcileContext,
} from "../../runtime/controller/controller.ts";
import type { ControllerClient } from "../../runtime/controller/controller_client.ts";
import type { EventInput, EventRecorder } from "../../runtime/observe/events.ts";
import { Metrics } from "../../runtime/observe/metrics.ts";
import { StoreWriter } from "../../runtime/cache/store.ts";
import { type KubeObject, objectKey, type ResourceType } from "../../runtime/types.ts";
import type { WatchScope } from "../../runtime/watch/watch_runner.ts";
import type { LeaderFence } from "../../runtime/leader/write_fence.ts";
import type { ShardAdmission } from "../../runtime/shard/shard_gate.ts";
import { composeAdmissions } from "../../runtime/controller/admission.ts";
import { leaderAdmission } from "../../runtime/leader/leader_admission.ts";
import { shardAdmission } from "../../runtime/shard/shard_admission.ts";

/** The Machine custom resource the controller under test is For. */
export const MachineType: ResourceType = {
  group: "useless.container.training",
  version: "v1alpha1",
  plural: "machines",
  kind: "Machine",
  namespaced: true,
};
/** A second custom kind (Watches). */
export const SwitchType: ResourceType = { ...MachineType, plural: "switches", kind: "Switch" };
/** Pods (Owns). */
export const PodType: ResourceType = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true };

/** An informer whose store the test writes directly. */
export class FakeInformer implements InformerLike {
  readonly #items = new StoreWriter({ freeze: false });
  handlers = new Set<InformerHandler>();
  synced = false;
  #syncWaiters: (() => void)[] = [];
  constructor(readonly resource: ResourceType) {}
  store = this.#items.reader;
  addHandler(h: InformerHandler): () => void {
    this.handlers.add(h);
    for (const obj of this.#items.list()) h.added?.(obj);
    return () => this.handlers.delete(h);
  }
  hasSynced() {
    return this.synced;
  }
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.#syncWaiters.push(r));
  }
  sync() {
    this.synced = true;
    this.#syncWaiters.splice(0).forEach((r) => r());
  }
  set(obj: KubeObject) {
    const key = objectKey(obj);
    const old = this.#items.get(key);
    if (old) this.#items.remove(old);
    this.#items.upsert(obj);
    for (const h of this.handlers) old ? h.modified?.(old, obj) : h.added?.(obj);
  }
  remove(obj: KubeObject) {
    this.#items.remove(obj);
    for (const h of this.handlers) h.deleted?.(obj);
  }
}

/** Informers by plural, created on first use; the test syncs them. */
export class FakeRegistry implements InformerSource {
  informers = new Map<string, FakeInformer>();
  get<T extends KubeObject>(rt: ResourceType, _opts?: WatchScope): InformerLike<T> {
    let inf = this.informers.get(rt.plural);
    if (!inf) this.informers.set(rt.plural, inf = new FakeInformer(rt));
    return inf as unknown as InformerLike<T>;
  }
  of(rt: ResourceType): FakeInformer {
    return this.get(rt) as unknown as FakeInformer;
  }
  syncAll() {
    for (const inf of this.informers.values()) inf.sync();
  }
}

/** Records Events in memory. */
export class FakeRecorder implements EventRecorder {
  events: { regarding: KubeObject; input: EventInput }[] = [];
  event(regarding: KubeObject, input: EventInput) {
    this.events.push({ regarding, input });
  }
}

/** A Machine `ns/<name>` at resourceVersion `rv`. */
export function machine(name: string, rv = "1", extra: Partial<KubeObject["metadata"]> = {}): KubeObject {
  return {
    apiVersion: "useless.container.training/v1alpha1",
    kind: "Machine",
    metadata: { name, namespace: "ns", uid: `uid-${name}`, resourceVersion: rv, ...extra },
  };
}

/** Loosely typed stand-ins for some {@link ControllerClient} methods (a test returns whatever object it needs). */
export type StubCalls = {
  [K in keyof ControllerClient]?: (...args: Parameters<ControllerClient[K]>) => Promise<unknown>;
};

/** A ControllerClient whose unstubbed methods reject, naming the method. */
export function stubClient(calls: StubCalls = {}): ControllerClient {
  const missing = (method: string) => () => Promise.reject(new Error(`stub client: ${method} was not stubbed`));
  return {
    get: (calls.get ?? missing("get")) as ControllerClient["get"],
    list: (calls.list ?? missing("list")) as ControllerClient["list"],
    request: (calls.request ?? missing("request")) as ControllerClient["request"],
    create: (calls.create ?? missing("create")) as ControllerClient["create"],
    update: (calls.update ?? missing("update")) as ControllerClient["update"],
    updateStatus: (calls.updateStatus ?? missing("updateStatus")) as ControllerClient["updateStatus"],
    patch: (calls.patch ?? missing("patch")) as ControllerClient["patch"],
    delete: (calls.delete ?? missing("delete")) as ControllerClient["delete"],
  };
}

/** A running Controller over fake informers, a virtual clock and a stub client. */
export interface Harness {
  clock: VirtualClock;
  registry: FakeRegistry;
  metrics: Metrics;
  recorder: FakeRecorder;
  deps: ControllerDeps;
  calls: ReconcileContext[];
  ac: AbortController;
  running: Promise<void>;
  stop(): Promise<void>;
}

/** Starts the `machine` Controller with `reconcile` (wired further by `wire`); stop it with `stop()`. */
export function harness(
  reconcile: (ctx: ReconcileContext) => Action | Promise<Action>,
  wire: (c: Controller) => Controller = (c) => c,
  client: ControllerClient = stubClient(),
  opts: {
    maxConcurrentReconciles?: number;
    fence?: (clock: VirtualClock) => LeaderFence;
    shards?: (clock: VirtualClock) => ShardAdmission;
  } = {},
): Harness {
  const clock = new VirtualClock(0);
  const registry = new FakeRegistry();
  const metrics = new Metrics();
  const recorder = new FakeRecorder();
  const deps: ControllerDeps = {
    client,
    informers: registry,
    recorder,
    clock,
    metrics,
    admission: composeAdmissions([
      opts.fence && leaderAdmission(opts.fence(clock)),
      opts.shards && shardAdmission(opts.shards(clock)),
    ]),
  };
  const calls: ReconcileContext[] = [];
  const ctl = wire(
    new Controller({
      name: "machine",
      for: MachineType,
      reconcile: async (ctx) => {
        calls.push(ctx);
        return await reconcile(ctx);
      },
      deps,
      maxConcurrentReconciles: opts.maxConcurrentReconciles,
    }),
  );
  const ac = new AbortController();
  const running = ctl.start(ac.signal);
  return {
    clock,
    registry,
    metrics,
    recorder,
    deps,
    calls,
    ac,
    running,
    stop: async () => {
      ac.abort();
      await running;
    },
  };
}

/**
 * Waits for `cond` (testing/eventually.ts, 10 s real time), flushing microtasks and then, if it still does not hold,
 * advancing `clock` to its next timer between checks; fails the test naming `what`.
 */
export async function until(cond: () => boolean, clock?: VirtualClock, what = "condition"): Promise<void> {
  await eventually(what, cond, {
    intervalMs: 0,
    step: async () => {
      await flushMicrotasks();
      if (clock && !cond()) await clock.advanceToNext();
    },
  });
}

/** controller_runtime_reconcile_total of the `machine` controller for one result. */
export const results = (m: Metrics, result: string) =>
  m.value("controller_runtime_reconcile_total", { controller: "machine", result });
