import assert from "node:assert/strict";
import type { InformerLike, InformerSource } from "../../runtime/controller/controller.ts";
import type { KubeObject } from "../../runtime/types.ts";
import { FakeCluster } from "../../testing/mod.ts";
import { MachineReconciler } from "./controller.ts";
import { machineCaches, machinesOfSwitch, switchesOf } from "./indexes.ts";
import { type Machine, machineCrds, MachineType, type Switch, SwitchType } from "./schema.ts";

/** Wraps `inner`: counts, per resource, the cached objects its stores hand out through list() and byIndex(). */
function countingInformers(inner: InformerSource) {
  const handedOut = new Map<string, number>();
  const count = <T>(plural: string, objs: T[]): T[] => {
    handedOut.set(plural, (handedOut.get(plural) ?? 0) + objs.length);
    return objs;
  };
  const wrappers = new Map<string, InformerLike<KubeObject>>();
  const source: InformerSource = {
    get<T extends KubeObject>(rt: Parameters<InformerSource["get"]>[0]): InformerLike<T> {
      let wrapper = wrappers.get(rt.plural);
      if (!wrapper) {
        const inf = inner.get(rt);
        wrappers.set(
          rt.plural,
          wrapper = {
            resource: inf.resource,
            store: {
              get: (key) => inf.store.get(key),
              list: (ns) => count(rt.plural, inf.store.list(ns)),
              byIndex: (index, value) => count(rt.plural, inf.store.byIndex(index, value)),
              keys: () => inf.store.keys(),
              getByUid: (uid) => inf.store.getByUid(uid),
              get size() {
                return inf.store.size;
              },
            },
            addIndex: (name, fn) => inf.addIndex!(name, fn),
            addHandler: (h) => inf.addHandler(h),
            hasSynced: () => inf.hasSynced(),
            waitForSync: (signal) => inf.waitForSync(signal),
          },
        );
      }
      return wrapper as unknown as InformerLike<T>;
    },
  };
  return { source, handedOut, reset: () => handedOut.clear() };
}

function clusterWithMachines(n: number) {
  const cluster = new FakeCluster({ crds: machineCrds(), namespaces: ["default", "other"] });
  for (let i = 0; i < n; i++) {
    cluster.create(MachineType, { metadata: { name: `m-${i}`, namespace: "default" }, spec: {} });
    cluster.create(SwitchType, {
      metadata: { name: `switch-m-${i}`, namespace: "default", labels: { machine: `m-${i}` } },
      spec: { position: "down" },
    });
  }
  return cluster;
}

Deno.test("a Switch event inspects only the Machines its labels name, not every Machine", () => {
  const cluster = clusterWithMachines(40);
  cluster.create(MachineType, {
    metadata: { name: "team", namespace: "default" },
    spec: { selector: { machine: "m-7", team: "a" } },
  });
  cluster.create(MachineType, { metadata: { name: "m-7", namespace: "other" }, spec: {} });
  const counting = countingInformers(cluster.informers);
  const map = machinesOfSwitch(machineCaches(counting.source).machines);
  counting.reset();
  const sw = cluster.get<Switch>(SwitchType, "default/switch-m-7")!;
  assert.deepEqual(map(sw), ["default/m-7"], "team's selector wants team=a too; m-7 of namespace other is elsewhere");
  assert.equal(counting.handedOut.get("machines"), 2, "m-7 and team, the Machines whose selector has machine=m-7");
  counting.reset();
  const teamSwitch = { ...sw, metadata: { ...sw.metadata, labels: { machine: "m-7", team: "a" } } };
  assert.deepEqual(map(teamSwitch).sort(), ["default/m-7", "default/team"]);
  assert.equal(counting.handedOut.get("machines"), 3);
});

Deno.test("a reconcile reads only its machine's Switches, not the namespace's", async () => {
  const cluster = clusterWithMachines(30);
  const counting = countingInformers(cluster.informers);
  const reconciler = new MachineReconciler(counting.source);
  cluster.create(MachineType, { metadata: { name: "mine", namespace: "default" }, spec: { switches: 3 } });
  await reconciler.reconcile(cluster.context(MachineType, "default/mine"));
  counting.reset();
  await reconciler.reconcile(cluster.context(MachineType, "default/mine"));
  assert.equal(cluster.get<Machine>(MachineType, "default/mine")?.status?.positions, "ddd");
  const read = counting.handedOut.get("switches") ?? 0;
  assert.ok(read <= 6, `3 Switches through the owner index and 3 through the label index, not 33: read ${read}`);
});

Deno.test("switchesOf: the Switches a machine controls (any labels) and the ones its selector matches (any owner)", () => {
  const cluster = new FakeCluster({ crds: machineCrds(), namespaces: ["default", "other"] });
  const caches = machineCaches(cluster.informers);
  cluster.create(MachineType, { metadata: { name: "m", namespace: "default" }, spec: {} });
  const m = cluster.get<Machine>(MachineType, "default/m")!;
  const ref = { apiVersion: m.apiVersion!, kind: "Machine", name: "m", uid: m.metadata.uid!, controller: true };
  const create = (name: string, namespace: string, labels: Record<string, string>, owned = false) =>
    cluster.create(SwitchType, {
      metadata: { name, namespace, labels, ...(owned ? { ownerReferences: [ref] } : {}) },
      spec: {},
    });
  create("b-matching", "default", { machine: "m" });
  create("a-relabelled", "default", { machine: "x" }, true);
  create("c-elsewhere", "other", { machine: "m" });
  create("d-unrelated", "default", { machine: "n" });
  assert.deepEqual(switchesOf(caches.switches, m).map((s) => s.metadata.name), ["a-relabelled", "b-matching"]);
});
