import assert from "node:assert/strict";
import { FakeCluster } from "../../testing/mod.ts";
import { OwnWritesTracker, resourceId } from "../../runtime/controller/own_writes.ts";
import { reconcileClient } from "../../runtime/controller/write_path.ts";
import { type KubeObject, objectKey } from "../../runtime/types.ts";
import { FLIP_DELAY_MS, machineController, MachineReconciler } from "./controller.ts";
import { machinesOfSwitch } from "./indexes.ts";
import { labelValueErrors, labelValueFor } from "../../runtime/apimachinery/names.ts";
import { type Machine, machineCrds, MachineType, type Switch, SwitchType } from "./schema.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";

function setup(spec: Machine["spec"], name = "machine-1") {
  const cluster = new FakeCluster({ crds: machineCrds() });
  const reconciler = new MachineReconciler(cluster.informers);
  cluster.create(MachineType, { metadata: { name, namespace: "default" }, spec });
  const run = () => reconciler.reconcile(cluster.context(MachineType, `default/${name}`));
  const machine = () => cluster.get(MachineType, `default/${name}`) as Machine;
  const switches = () => cluster.list(SwitchType, "default") as Switch[];
  return { cluster, reconciler, run, machine, switches };
}

Deno.test("stage 1: seenAt is recorded, then ≥ 5 s later the switch goes down and seenAt is cleared; again on up", async () => {
  const { cluster, run, machine } = setup({ switchPosition: "up" });
  const first = await run();
  assert.equal(first.requeueAfterMs, FLIP_DELAY_MS);
  assert.equal(machine().status?.seenAt, new Date(cluster.clock.now()).toISOString());
  assert.equal(machine().spec.switchPosition, "up");
  await cluster.clock.advance(FLIP_DELAY_MS - 1);
  assert.equal((await run()).requeueAfterMs, 1, "not before 5 s");
  assert.equal(machine().spec.switchPosition, "up");
  await cluster.clock.advance(1);
  await run();
  assert.equal(machine().spec.switchPosition, "down");
  assert.equal(machine().status?.seenAt, undefined);
  assert.ok(cluster.events.some((e) => e.input.reason === "SwitchedDown"));
  // spec and status were written separately: the spec patch carried no status
  assert.ok(cluster.writes().some((c) => c.resource === "machines" && c.subresource === undefined));
  cluster.patch(MachineType, "default/machine-1", { spec: { switchPosition: "up" } });
  assert.equal((await run()).requeueAfterMs, FLIP_DELAY_MS);
  assert.ok(machine().status?.seenAt);
  await cluster.clock.advance(FLIP_DELAY_MS);
  await run();
  assert.equal(machine().spec.switchPosition, "down");
});

Deno.test("stage 2: creates exactly `switches` Switches with generateName, label and controller ownerRef; positions", async () => {
  const { run, machine, switches } = setup({ switches: 3 });
  await run();
  assert.equal(switches().length, 3);
  for (const sw of switches()) {
    assert.match(sw.metadata.name!, /^switch-/);
    assert.deepEqual(sw.metadata.labels, { machine: "machine-1" });
    const ref = sw.metadata.ownerReferences![0];
    assert.equal(ref.controller, true);
    assert.equal(ref.blockOwnerDeletion, true);
    assert.equal(ref.uid, machine().metadata.uid);
  }
  await run();
  await run();
  assert.equal(switches().length, 3, "idempotent");
  assert.equal(machine().status?.positions, "ddd");
  assert.equal(machine().status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
});

Deno.test("stage 2: an up switch flips ≥ 5 s after being seen, at most one flip per machine per 5 s", async () => {
  const { cluster, run, machine, switches } = setup({ switches: 3 });
  await run();
  await run();
  const [a, b] = switches();
  cluster.patch(SwitchType, `default/${a.metadata.name}`, { spec: { position: "up" } });
  cluster.patch(SwitchType, `default/${b.metadata.name}`, { spec: { position: "up" } });
  const seen = await run();
  assert.equal(seen.requeueAfterMs, FLIP_DELAY_MS);
  assert.equal(machine().status?.positions?.split("").filter((p) => p === "u").length, 2);
  await cluster.clock.advance(FLIP_DELAY_MS);
  const afterFirst = await run();
  assert.equal(switches().filter((s) => s.spec.position === "up").length, 1, "one flip");
  assert.equal(afterFirst.requeueAfterMs, FLIP_DELAY_MS);
  await cluster.clock.advance(FLIP_DELAY_MS - 1);
  await run();
  assert.equal(switches().filter((s) => s.spec.position === "up").length, 1, "no second flip within 5 s");
  await cluster.clock.advance(1);
  await run();
  assert.equal(switches().filter((s) => s.spec.position === "up").length, 0);
  await run();
  assert.equal(machine().status?.positions, "ddd");
});

Deno.test("stage 2: scale 3 → 1 deletes the two newest switches", async () => {
  const { cluster, run, switches } = setup({ switches: 3 });
  await run();
  const oldest =
    switches().sort((x, y) => compareStrings(x.metadata.creationTimestamp!, y.metadata.creationTimestamp!))[0];
  cluster.patch(MachineType, "default/machine-1", { spec: { switches: 1 } });
  await run();
  assert.deepEqual(switches().map((s) => s.metadata.name), [oldest.metadata.name]);
  await run();
  assert.equal(switches().length, 1);
});

Deno.test("stage 2: adopts a matching orphan, ignores a switch another live Machine controls", async () => {
  const { cluster, run, machine, switches } = setup({ switches: 2 });
  cluster.create(MachineType, { metadata: { name: "other", namespace: "default" }, spec: {} });
  const other = cluster.get(MachineType, "default/other")!;
  cluster.create(SwitchType, {
    metadata: { name: "switch-orphan", namespace: "default", labels: { machine: "machine-1" } },
    spec: { position: "down" },
  });
  cluster.create(SwitchType, {
    metadata: {
      name: "switch-foreign",
      namespace: "default",
      labels: { machine: "machine-1" },
      ownerReferences: [{
        apiVersion: other.apiVersion!,
        kind: "Machine",
        name: "other",
        uid: other.metadata.uid!,
        controller: true,
      }],
    },
    spec: { position: "down" },
  });
  await run();
  const orphan = cluster.get(SwitchType, "default/switch-orphan")!;
  assert.equal(orphan.metadata.ownerReferences?.[0].uid, machine().metadata.uid, "adopted");
  const foreign = cluster.get(SwitchType, "default/switch-foreign")!;
  assert.equal(foreign.metadata.ownerReferences?.[0].uid, other.metadata.uid, "left alone");
  const ours = switches().filter((s) => s.metadata.ownerReferences?.[0].uid === machine().metadata.uid);
  assert.equal(ours.length, 2, "the orphan counts: one new switch created");
});

Deno.test("stage 2: relabelling a switch releases it; the map function names both machines; deletion cascades", async () => {
  const { cluster, run, switches } = setup({ switches: 1 });
  cluster.create(MachineType, { metadata: { name: "machine-2", namespace: "default" }, spec: {} });
  const run2 = () =>
    new MachineReconciler(cluster.informers).reconcile(cluster.context(MachineType, "default/machine-2"));
  await run();
  const [sw] = switches();
  cluster.patch(SwitchType, `default/${sw.metadata.name}`, { metadata: { labels: { machine: "machine-2" } } });
  const map = machinesOfSwitch(new MachineReconciler(cluster.informers).caches.machines);
  assert.deepEqual(map(cluster.get(SwitchType, `default/${sw.metadata.name}`) as Switch).sort(), [
    "default/machine-1",
    "default/machine-2",
  ]);
  await run(); // releases it and creates a replacement
  await run2(); // adopts it
  const moved = cluster.get(SwitchType, `default/${sw.metadata.name}`)!;
  assert.equal(moved.metadata.ownerReferences?.[0].name, "machine-2");
  assert.equal(switches().filter((s) => s.metadata.labels?.machine === "machine-1").length, 1);
  cluster.delete(MachineType, "default/machine-1");
  assert.equal(switches().filter((s) => s.metadata.labels?.machine === "machine-1").length, 0, "cascade");
});

Deno.test("what the controller remembers about a deleted machine is forgotten", async () => {
  const { cluster, reconciler, run, switches } = setup({ switches: 1 });
  await run();
  cluster.patch(SwitchType, `default/${switches()[0].metadata.name}`, { spec: { position: "up" } });
  await run();
  await cluster.clock.advance(FLIP_DELAY_MS);
  await run();
  assert.equal(switches()[0].spec.position, "down");
  assert.equal(reconciler.memory.size, 1, "the flip is remembered");
  cluster.delete(MachineType, "default/machine-1");
  await run();
  assert.equal(reconciler.memory.size, 0);
});

Deno.test("a converged Machine reconciled again sends no status write, whatever key order the server keeps", async () => {
  const { cluster, run, machine } = setup({ switches: 2 });
  await run();
  await run();
  assert.equal(machine().status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
  // The API server returns metav1.Condition fields in its own order (type, status, observedGeneration,
  // lastTransitionTime, reason, message), not in the order setCondition builds them.
  const serverOrder = ["type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"];
  const conditions = (machine().status!.conditions as unknown as Record<string, unknown>[]).map((c) =>
    Object.fromEntries(serverOrder.filter((k) => k in c).map((k) => [k, c[k]]))
  );
  cluster.patch(MachineType, "default/machine-1", { status: { conditions } }, "status");
  const before = cluster.writes().length;
  await run();
  const statusWrites = cluster.writes().slice(before).filter((c) => c.resource === "machines");
  assert.deepEqual(statusWrites, [], "no status PATCH for a status that did not change");
});

Deno.test("creates and deletes of Switches hold the machine's next reconcile until the Switch cache shows them", async () => {
  const { cluster, reconciler, switches } = setup({ switches: 2 });
  const key = "default/machine-1";
  const controller = machineController({ informers: cluster.informers });
  assert.ok(
    controller.watchedResources().some((w) => w.rt === SwitchType && w.opts === undefined),
    "one unfiltered Switch watch: its cache is the one the runtime waits on",
  );
  // The Switch cache as the runtime's tracker sees it: frozen at a snapshot while lagging.
  const live = cluster.informers.get(SwitchType).store;
  let snapshot: Map<string, KubeObject> | undefined;
  const lag = () => snapshot = new Map(live.list().map((s) => [objectKey(s), s]));
  const lagging = { get: (k: string) => (snapshot ? snapshot.get(k) : live.get(k)) };
  const machines = cluster.informers.get(MachineType).store;
  const tracker = new OwnWritesTracker({
    clock: cluster.clock,
    storeFor: (id) => id === resourceId(SwitchType) ? lagging : id === resourceId(MachineType) ? machines : undefined,
  });
  const client = reconcileClient({ client: cluster.client, key, tracker });
  const nextReconcileWaits = async () => {
    let outcome: string | undefined;
    const waited = tracker.wait(key).then((o) => outcome = o);
    await Promise.resolve();
    assert.equal(outcome, undefined, "the next reconcile waits while the cache lags");
    snapshot = undefined;
    tracker.notify();
    await waited;
    assert.equal(outcome, "seen");
  };

  lag();
  await reconciler.reconcile({ ...cluster.context(MachineType, key), client });
  assert.equal(switches().length, 2, "created");
  await nextReconcileWaits();

  cluster.patch(MachineType, key, { spec: { switches: 1 } });
  lag();
  await reconciler.reconcile({ ...cluster.context(MachineType, key), client });
  assert.equal(switches().length, 1, "deleted");
  await nextReconcileWaits();
});

for (const length of [63, 64, 253]) {
  Deno.test(`a ${length}-character Machine name: its Switches carry a valid machine label it finds them by`, async () => {
    const name = "m".repeat(length - 1) + "z";
    const { run, machine, switches } = setup({ switches: 2 }, name);
    await run();
    assert.equal(switches().length, 2);
    const value = labelValueFor(name);
    if (length <= 63) assert.equal(value, name, "unchanged when it fits");
    for (const sw of switches()) {
      assert.deepEqual(sw.metadata.labels, { machine: value });
      assert.deepEqual(labelValueErrors(sw.metadata.labels!.machine), []);
    }
    await run();
    await run();
    assert.equal(switches().length, 2, "found again: no extra Switches");
    assert.equal(machine().status?.positions, "dd");
  });
}
