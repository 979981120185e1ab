/**
 * Machine/Switch against the fake API server, on virtual time: the tutorial's stage 1 cycle and stage 2's
 * switches (create, positions, flip pace, scale-down, relabel, cascade, CRD bounds).
 */

import assert from "node:assert/strict";
import { FLIP_DELAY_MS } from "../controllers/machine/controller.ts";
import { type Machine, MachineType, type Switch, SwitchType } from "../controllers/machine/schema.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { isInvalid } from "../runtime/client/errors.ts";
import { CoreTypes } from "../runtime/types.ts";
import { type ControllerEnv, startEnv, waitFor } from "./controllers_env.ts";
import { byName, compareStrings } from "../runtime/apimachinery/string_order.ts";

const ns = { namespace: "default" };

async function machine(env: ControllerEnv, name: string): Promise<Machine> {
  return await env.client.get<Machine>(MachineType, name, ns);
}

async function switchesOf(env: ControllerEnv, name: string): Promise<Switch[]> {
  return (await env.client.list<Switch>(SwitchType, { ...ns, labelSelector: `machine=${name}` })).items;
}

Deno.test("stage 1: machine-1 gets seenAt, ≥ 5 s later its switch goes down and seenAt is cleared; up again repeats", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const env = await startEnv({ controllers: ["machine"], clock });
  try {
    await env.client.create(MachineType, {
      apiVersion: "useless.container.training/v1alpha1",
      kind: "Machine",
      metadata: { name: "machine-1", labels: null as unknown as Record<string, string> },
      spec: { switchPosition: "up" },
    }, ns);
    for (let cycle = 0; cycle < 2; cycle++) {
      const seen = await waitFor("seenAt", async () => (await machine(env, "machine-1")).status?.seenAt);
      assert.equal(seen, new Date(clock.now()).toISOString());
      await clock.advance(FLIP_DELAY_MS - 1);
      assert.equal((await machine(env, "machine-1")).spec.switchPosition, "up", "not before 5 s");
      await clock.advance(1);
      const m = await waitFor("switch down", async () => {
        const m = await machine(env, "machine-1");
        return m.spec.switchPosition === "down" && !m.status?.seenAt && m;
      });
      assert.equal(m.status?.seenAt, undefined);
      await env.client.patch(MachineType, "machine-1", { spec: { switchPosition: "up" } }, { ...ns, type: "merge" });
    }
  } finally {
    await env.close();
  }
});

Deno.test("stage 2: three switches, positions, one flip per 5 s, scale 3 → 1 newest first, relabel, cascade", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const env = await startEnv({ controllers: ["machine"], clock });
  try {
    await env.client.create(MachineType, { metadata: { name: "m" }, spec: { switches: 3 } }, ns);
    await env.client.create(MachineType, { metadata: { name: "other" }, spec: { switches: 0 } }, ns);
    const m = await waitFor("positions ddd", async () => {
      const m = await machine(env, "m");
      return m.status?.positions === "ddd" && m;
    });
    const switches = await switchesOf(env, "m");
    assert.equal(switches.length, 3);
    for (const sw of switches) {
      assert.match(sw.metadata.name!, /^switch-/);
      assert.deepEqual(sw.metadata.ownerReferences?.map((r) => [r.uid, r.controller, r.blockOwnerDeletion]), [
        [m.metadata.uid, true, true],
      ]);
    }
    assert.equal(m.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");

    // two switches up: one flips after 5 s, the other 5 s later — never two within 5 s
    const [a, b] = switches;
    for (const sw of [a, b]) {
      await env.client.patch(SwitchType, sw.metadata.name!, { spec: { position: "up" } }, { ...ns, type: "merge" });
    }
    await waitFor("both seen", async () => (await switchesOf(env, "m")).filter((s) => s.status?.seenAt).length === 2);
    await waitFor(
      "positions show two up",
      async () => (await machine(env, "m")).status?.positions?.match(/u/g)?.length === 2,
    );
    await clock.advance(FLIP_DELAY_MS);
    await waitFor(
      "one flipped",
      async () => (await switchesOf(env, "m")).filter((s) => s.spec.position === "up").length === 1,
    );
    await clock.advance(FLIP_DELAY_MS - 1);
    assert.equal((await switchesOf(env, "m")).filter((s) => s.spec.position === "up").length, 1, "pace: 5 s");
    await clock.advance(1);
    await waitFor("all down", async () => (await machine(env, "m")).status?.positions === "ddd");

    // scale down: the two newest go
    const byAge = (await switchesOf(env, "m")).sort((x, y) =>
      compareStrings(x.metadata.creationTimestamp!, y.metadata.creationTimestamp!) || byName(x, y)
    );
    await env.client.patch(MachineType, "m", { spec: { switches: 1 } }, { ...ns, type: "merge" });
    const left = await waitFor("one switch left", async () => {
      const s = await switchesOf(env, "m");
      return s.length === 1 && (await machine(env, "m")).status?.positions === "d" && s;
    });
    assert.equal(left[0].metadata.name, byAge[0].metadata.name);

    // relabel the remaining switch to "other": both machines reconcile; other (switches: 0) deletes it, m makes a new one
    await env.client.patch(MachineType, "other", { spec: { switches: 1 } }, { ...ns, type: "merge" });
    await waitFor("other has its own switch", async () => (await switchesOf(env, "other")).length === 1);
    await env.client.patch(SwitchType, left[0].metadata.name!, { metadata: { labels: { machine: "other" } } }, {
      ...ns,
      type: "merge",
    });
    await waitFor("m replaced it", async () => {
      const s = await switchesOf(env, "m");
      return s.length === 1 && s[0].metadata.name !== left[0].metadata.name;
    });
    await waitFor("other adopted or removed the extra", async () => {
      const s = await switchesOf(env, "other");
      const o = await machine(env, "other");
      return s.length === 1 && s.every((x) => x.metadata.ownerReferences?.[0]?.uid === o.metadata.uid);
    });

    // deleting the machine deletes its switches (ownerReferences → garbage collection)
    await env.client.delete(MachineType, "m", ns);
    await waitFor("switches gone", async () => (await switchesOf(env, "m")).length === 0);
  } finally {
    await env.close();
  }
});

Deno.test("the CRD refuses switches: -1 and 1000 with a message naming the field", async () => {
  const env = await startEnv({ controllers: [] });
  try {
    for (const switches of [-1, 1000]) {
      const err = await env.client.create(MachineType, { metadata: { name: `bad${switches}` }, spec: { switches } }, ns)
        .then(() => undefined, (e) => e);
      assert.ok(isInvalid(err), String(err));
      assert.match(String(err.message), /spec\.switches/);
    }
  } finally {
    await env.close();
  }
});

Deno.test("a Machine adopts a matching Switch nobody controls and ignores one another live Machine controls", async () => {
  const env = await startEnv({ controllers: ["machine"], clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
  try {
    // "other" selects machine=m,owner=other: it keeps (does not release) the Switch it controls, and the orphan
    // (machine=m only) matches m alone
    const other = await env.client.create<Machine>(MachineType, {
      metadata: { name: "other" },
      spec: { selector: { machine: "m", owner: "other" } },
    }, ns);
    await env.client.create(SwitchType, {
      metadata: { name: "switch-orphan", labels: { machine: "m" } },
      spec: { position: "down" },
    }, ns);
    await env.client.create(SwitchType, {
      metadata: {
        name: "switch-foreign",
        labels: { machine: "m", owner: "other" },
        ownerReferences: [{
          apiVersion: "useless.container.training/v1alpha1",
          kind: "Machine",
          name: "other",
          uid: other.metadata.uid!,
          controller: true,
        }],
      },
      spec: { position: "down" },
    }, ns);
    const m = await env.client.create<Machine>(MachineType, { metadata: { name: "m" }, spec: { switches: 2 } }, ns);
    await waitFor("two switches of m", async () => {
      const s = await switchesOf(env, "m");
      return s.filter((x) => x.metadata.ownerReferences?.some((r) => r.uid === m.metadata.uid)).length === 2;
    });
    const orphan = await env.client.get<Switch>(SwitchType, "switch-orphan", ns);
    assert.equal(orphan.metadata.ownerReferences?.[0].uid, m.metadata.uid, "adopted");
    const foreign = await env.client.get<Switch>(SwitchType, "switch-foreign", ns);
    assert.equal(foreign.metadata.ownerReferences?.[0].uid, other.metadata.uid, "left to its controller");
    assert.equal((await switchesOf(env, "m")).length, 3, "one created, one adopted, one foreign");
  } finally {
    await env.close();
  }
});

Deno.test("--namespace a --namespace b: the controller's indexes span both namespaces' caches", async () => {
  const env = await startEnv({ controllers: ["machine"], namespaces: ["default", "team-b"] });
  try {
    await env.client.create(CoreTypes.Namespace, { metadata: { name: "team-b" } });
    for (const namespace of ["default", "team-b"]) {
      await env.client.create(MachineType, { metadata: { name: "m" }, spec: { switches: 2 } }, { namespace });
    }
    for (const namespace of ["default", "team-b"]) {
      await waitFor(`m of ${namespace} converged`, async () => {
        const m = await env.client.get<Machine>(MachineType, "m", { namespace });
        const switches = await env.client.list<Switch>(SwitchType, { namespace, labelSelector: "machine=m" });
        return m.status?.positions === "dd" && switches.items.length === 2;
      });
    }
  } finally {
    await env.close();
  }
});
