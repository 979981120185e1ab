import assert from "node:assert/strict";
import type { Pod } from "../../runtime/builtin_types.ts";
import { startFakeApiServer } from "../../testing/mod.ts";
import { fakeStore } from "../faults/fake_target.ts";
import { playedStatus } from "./pod_player.ts";
import { machineFinding, Workload } from "./workload.ts";

Deno.test("with no operator running, the soak's check finds every object not converged", async () => {
  const server = await startFakeApiServer();
  try {
    let n = 0;
    const workload = new Workload(fakeStore(server), { multiSecrets: 3, machines: 2, ats: 2, netperfs: 1 }, () => {
      n = (n + 0.37) % 1;
      return n;
    });
    await workload.install();
    await workload.seed();
    for (let i = 0; i < 20; i++) await workload.churn();
    const { notConverged } = await workload.check();
    const kept = Object.values(workload.counts()).reduce((a, b) => a + b, 0);
    assert.ok(kept > 0);
    assert.ok(notConverged.size >= kept, `${notConverged.size} of ${kept}: ${[...notConverged.keys()]}`);
    for (const key of notConverged.keys()) assert.match(key, /^(MultiSecret|Machine|At|Netperf)\//);
  } finally {
    await server.stop();
  }
});

Deno.test("a Machine is converged only at its generation with its switch count, matching and down", () => {
  const machine = {
    metadata: { name: "m", uid: "u1", generation: 2 },
    spec: { switches: 1, selector: { machine: "m", gen: "1" } },
    status: { observedGeneration: 2 },
  };
  const sw = (labels: Record<string, string>, position = "down") => ({
    metadata: { name: "s", labels, ownerReferences: [{ uid: "u1", controller: true, kind: "Machine", name: "m" }] },
    spec: { position },
  });
  assert.equal(machineFinding(machine as never, [sw({ machine: "m", gen: "1" })] as never), "");
  assert.match(machineFinding(machine as never, []), /0 switches, spec asks 1/);
  assert.match(machineFinding(machine as never, [sw({ machine: "m", gen: "0" })] as never), /does not match/);
  assert.match(machineFinding(machine as never, [sw({ machine: "m", gen: "1" }, "up")] as never), /still up/);
  const stale = { ...machine, status: { observedGeneration: 1 } };
  assert.match(machineFinding(stale as never, [sw({ machine: "m", gen: "1" })] as never), /observedGeneration 1/);
});

Deno.test("the harness's kubelet runs netserver, finishes netperf with its table and any other pod", () => {
  const pod = (command: string[]) => ({ metadata: { name: "p" }, spec: { containers: [{ name: "c", command }] } });
  assert.equal(playedStatus(pod(["netserver", "-D"]) as Pod)?.phase, "Running");
  const client = playedStatus(pod(["sh", "-c", "netperf -H 10.0.0.1 -l 1 > /dev/termination-log"]) as Pod);
  assert.equal(client?.phase, "Succeeded");
  assert.match(String(client?.containerStatuses?.[0].state?.terminated?.message), /10\^6bits\/sec/);
  assert.equal(playedStatus(pod(["echo", "soak"]) as Pod)?.phase, "Succeeded");
  assert.equal(playedStatus({ ...pod(["echo"]), status: { phase: "Succeeded" } } as Pod), undefined, "done once");
});
