import assert from "node:assert/strict";
import { classifySwitches, FLIP_DELAY_MS, observeOwnSwitch, planFlips, planReconcile, planScale } from "./plan.ts";
import type { Machine, Switch } from "./schema.ts";

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

function machine(spec: Machine["spec"], status: Machine["status"] = {}): Machine {
  return { metadata: { name: "m", namespace: "default", uid: "u-m", generation: 1 }, spec, status };
}

function sw(name: string, opts: { up?: boolean; seenAt?: number; owner?: string; labels?: object; created?: number }) {
  return {
    metadata: {
      name,
      namespace: "default",
      uid: `u-${name}`,
      resourceVersion: "1",
      creationTimestamp: iso(opts.created ?? T0),
      labels: (opts.labels ?? { machine: "m" }) as Record<string, string>,
      ownerReferences: opts.owner
        ? [{
          apiVersion: "useless.container.training/v1alpha1",
          kind: "Machine",
          name: "x",
          uid: opts.owner,
          controller: true,
        }]
        : undefined,
    },
    spec: { position: opts.up ? "up" : "down" },
    status: opts.seenAt !== undefined ? { seenAt: iso(opts.seenAt) } : {},
  } as Switch;
}

Deno.test("observeOwnSwitch: seen, waiting, flipped, down again", () => {
  assert.deepEqual(observeOwnSwitch(machine({ switchPosition: "up" }), T0), {
    seenAt: iso(T0),
    seen: true,
    flipDown: false,
    waitMs: FLIP_DELAY_MS,
  });
  const seen = machine({ switchPosition: "up" }, { seenAt: iso(T0) });
  assert.deepEqual(observeOwnSwitch(seen, T0 + 1_000), {
    seenAt: iso(T0),
    seen: false,
    flipDown: false,
    waitMs: 4_000,
  });
  assert.deepEqual(observeOwnSwitch(seen, T0 + FLIP_DELAY_MS), { seenAt: undefined, seen: false, flipDown: true });
  const down = machine({ switchPosition: "down" }, { seenAt: iso(T0) });
  assert.deepEqual(observeOwnSwitch(down, T0), { seenAt: undefined, seen: false, flipDown: false });
});

Deno.test("classifySwitches: ours, adopt orphans, release ours that stopped matching, leave others' alone", () => {
  const result = classifySwitches(machine({}), [
    sw("ours", { owner: "u-m" }),
    sw("orphan", {}),
    sw("moved", { owner: "u-m", labels: { machine: "n" } }),
    sw("foreign", { owner: "u-other" }),
  ]);
  assert.deepEqual(result.ours.map((s) => s.metadata.name), ["ours", "orphan"]);
  assert.deepEqual(result.changes.map((c) => `${c.action} ${c.sw.metadata.name}`), ["adopt orphan", "release moved"]);
});

Deno.test("planScale: create the missing, delete the newest extras, nothing without spec.switches", () => {
  const ours = [sw("a", { created: T0 }), sw("b", { created: T0 + 2 }), sw("c", { created: T0 + 1 })];
  assert.equal(planScale(5, ours).create, 2);
  const down = planScale(1, ours);
  assert.deepEqual(down.delete.map((s) => s.metadata.name), ["b", "c"]);
  assert.deepEqual(down.remaining.map((s) => s.metadata.name), ["a"]);
  assert.deepEqual(planScale(undefined, ours), { create: 0, delete: [], remaining: ours });
});

Deno.test("planFlips: mark, clear, flip the longest seen once both clocks allow, one per 5 s", () => {
  const first = planFlips([sw("a", { up: true }), sw("b", { seenAt: T0 })], T0, 0);
  assert.deepEqual(first.markSeen.map((s) => s.metadata.name), ["a"]);
  assert.deepEqual(first.clearSeen.map((s) => s.metadata.name), ["b"]);
  assert.equal(first.flip, undefined);
  assert.equal(first.waitMs, FLIP_DELAY_MS);
  const ups = [sw("a", { up: true, seenAt: T0 + 1 }), sw("b", { up: true, seenAt: T0 })];
  const early = planFlips(ups, T0 + FLIP_DELAY_MS - 1, 0);
  assert.equal(early.flip, undefined, "b was seen at T0: not before 5 s");
  assert.deepEqual([early.pending, early.waitMs], [2, 1]);
  const flip = planFlips(ups, T0 + FLIP_DELAY_MS, 0);
  assert.equal(flip.flip?.metadata.name, "b", "seen longest ago");
  assert.deepEqual([flip.pending, flip.waitMs], [1, FLIP_DELAY_MS]);
  const paced = planFlips(ups, T0 + FLIP_DELAY_MS, T0 + 3_000);
  assert.equal(paced.flip, undefined, "the last flip was 2 s ago");
  assert.equal(paced.waitMs, 3_000);
});

Deno.test("planReconcile: no status while scaling; positions and Ready once the set is complete", () => {
  const scaling = planReconcile({ machine: machine({ switches: 2 }), switches: [], now: T0, lastFlipMs: 0 });
  assert.equal(scaling.scale.create, 2);
  assert.equal(scaling.status, undefined);
  const done = planReconcile({
    machine: machine({ switches: 2 }),
    switches: [sw("a", { owner: "u-m" }), sw("b", { owner: "u-m" })],
    now: T0,
    lastFlipMs: 0,
  });
  assert.equal(done.status?.positions, "dd");
  assert.equal(done.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
  assert.equal(done.requeueAfterMs, undefined);
});
