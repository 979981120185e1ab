/**
 * Leader safety in a model (tests/faults/leader_model.ts): 10 000 rounds of SIGSTOP past the renew deadline,
 * SIGKILL, SIGTERM and wall-clock steps over three replicas, one with a far-off monotonic origin and a wrong wall
 * clock. The independent checker replays the Lease store's record against every write's arrival.
 */
import assert from "node:assert/strict";
import { checkLeaderSafety } from "./leader_checker.ts";
import { runLeaderModel } from "./leader_model.ts";

Deno.test("leader model: 10 000 election rounds with pauses, crashes and clock offsets — no write while not leader", async () => {
  const r = await runLeaderModel({ seed: 11, rounds: 10_000 });
  assert.deepEqual(r.violations, []);
  assert.equal(r.writesWhileNotLeader, 0);
  assert.equal(r.maxConcurrentLeaders, 1);
  assert.ok(r.maxOpenFences <= 1, `${r.maxOpenFences} fences open at once`);
  // The scenario must exercise what it claims to.
  assert.ok(r.leaderChanges >= 1_000, `only ${r.leaderChanges} leader changes`);
  assert.ok(r.writes >= 10_000, `only ${r.writes} writes arrived`);
  assert.ok(
    r.refusedWhileBelievingLeader >= 50,
    `the fence stopped only ${r.refusedWhileBelievingLeader} deposed writes`,
  );
  assert.ok(r.pauses >= 1_000 && r.crashes >= 500 && r.wallSteps >= 500, JSON.stringify(r));
});

Deno.test("leader model: without the fence (writes gated on isLeader()) the checker finds deposed writes", async () => {
  const r = await runLeaderModel({ seed: 11, rounds: 1_000, bypassFence: true });
  assert.ok(r.writesWhileNotLeader > 0, "the checker should catch a paused leader's late writes");
  assert.ok(r.maxConcurrentLeaders >= 2);
});

Deno.test("leader checker: a write is judged by the Lease holder at its arrival, ties broken by arrival order", () => {
  const r = checkLeaderSafety([
    { kind: "write", seq: 0, at: 0, identity: "a" }, // before anyone held the Lease
    { kind: "lease", seq: 1, at: 1, holder: "a" },
    { kind: "write", seq: 2, at: 1, identity: "a" },
    { kind: "lease", seq: 3, at: 2, holder: "" }, // released
    { kind: "write", seq: 4, at: 2, identity: "a" },
    { kind: "lease", seq: 5, at: 3, holder: "b" },
    { kind: "write", seq: 6, at: 4, identity: "b", what: "POST pods" },
  ]);
  assert.equal(r.writes, 4);
  assert.equal(r.writesWhileNotLeader, 2);
  assert.equal(r.leaderChanges, 2);
  assert.match(r.violations[0], /a wrote while the Lease named nobody/);
});
