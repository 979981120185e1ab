/**
 * At against the fake API server on virtual time. The test plays the kubelet by writing pod status (the fake
 * kubelet drives the same transitions in `kubeop dev`).
 */

import assert from "node:assert/strict";
import { MAX_RESTARTS } from "../controllers/at/controller.ts";
import { type At, AtType } from "../controllers/at/schema.ts";
import { VirtualClock } from "../runtime/clock.ts";
import type { Pod } from "../runtime/builtin_types.ts";
import { CoreTypes } from "../runtime/types.ts";
import { type ControllerEnv, getOrUndefined, startEnv, waitFor } from "./controllers_env.ts";

const ns = { namespace: "default" };
const START = Date.UTC(2026, 0, 1);

async function at(env: ControllerEnv, name: string): Promise<At> {
  return await env.client.get<At>(AtType, name, ns);
}

async function podStatus(env: ControllerEnv, name: string, status: Record<string, unknown>) {
  await env.client.patch(CoreTypes.Pod, name, { status }, { ...ns, type: "merge", subresource: "status" });
}

Deno.test("the tutorial's at-sample (schedule in the past) runs now: pod <at>-pod, RUNNING, then DONE", async () => {
  const env = await startEnv({ controllers: ["at"], clock: new VirtualClock(START) });
  try {
    await env.client.create(AtType, {
      metadata: { name: "at-sample" },
      spec: { schedule: "2020-11-16T10:12:00Z", command: "echo hello world!" },
    }, ns);
    const pod = await waitFor("pod", () => getOrUndefined<Pod>(env.client, CoreTypes.Pod, "at-sample-pod"));
    const a = await waitFor(
      "RUNNING",
      async () => (await at(env, "at-sample")).status?.phase === "RUNNING" && at(env, "at-sample"),
    );
    assert.deepEqual(pod.spec!.containers.map((c) => [c.image, c.command]), [
      ["busybox", ["echo", "hello", "world!"]],
    ]);
    assert.equal(pod.spec!.restartPolicy, "OnFailure");
    assert.deepEqual(pod.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]), [[
      "At",
      a.metadata.uid,
      true,
    ]]);
    await podStatus(env, "at-sample-pod", { phase: "Succeeded" });
    await waitFor("DONE", async () => (await at(env, "at-sample")).status?.phase === "DONE");
  } finally {
    await env.close();
  }
});

Deno.test("a schedule days ahead stays PENDING (stored) and runs exactly at the time", async () => {
  const clock = new VirtualClock(START);
  const env = await startEnv({ controllers: ["at"], clock });
  try {
    const when = START + 3 * 24 * 3600 * 1000 + 1234;
    await env.client.create(AtType, {
      metadata: { name: "later" },
      spec: { schedule: new Date(when).toISOString(), command: "date" },
    }, ns);
    await waitFor("PENDING stored", async () => (await at(env, "later")).status?.phase === "PENDING");
    await clock.advance(when - START - 1);
    await waitFor("requeued within the hour", async () => {
      // every capped wait has fired and been re-armed; the last one is due at `when`
      await clock.advance(0);
      return (await at(env, "later")).status?.phase === "PENDING";
    });
    assert.equal(await getOrUndefined(env.client, CoreTypes.Pod, "later-pod"), undefined, "not a millisecond early");
    await clock.advance(1);
    await waitFor("pod at the schedule", () => getOrUndefined(env.client, CoreTypes.Pod, "later-pod"));
  } finally {
    await env.close();
  }
});

Deno.test("an impossible schedule: condition + Warning Event, terminal (no hot loop), no pod", async () => {
  const env = await startEnv({ controllers: ["at"], clock: new VirtualClock(START) });
  try {
    await env.client.create(AtType, {
      metadata: { name: "bad" },
      spec: { schedule: "2021-02-30T00:00:00Z", command: "date" },
    }, ns);
    const ready = await waitFor(
      "InvalidSchedule",
      async () =>
        (await at(env, "bad")).status?.conditions?.find((c) => c.type === "Ready" && c.reason === "InvalidSchedule"),
    );
    assert.equal(ready.status, "False");
    await waitFor(
      "Warning Event",
      async () =>
        (await env.client.list(CoreTypes.Event, ns)).items.some((e) =>
          e.reason === "InvalidSchedule" && e.type === "Warning"
        ),
    );
    const terminal = () =>
      env.manager!.metrics.value("controller_runtime_terminal_reconcile_errors_total", { controller: "at" });
    await waitFor("terminal error counted", async () => (await terminal()) >= 1);
    const total = await env.manager!.metrics.value("controller_runtime_reconcile_total", { controller: "at" });
    assert.ok(total <= 3, `bounded reconciles, got ${total}`);
    assert.equal(await getOrUndefined(env.client, CoreTypes.Pod, "bad-pod"), undefined);
  } finally {
    await env.close();
  }
});

Deno.test(`FAILED after ${MAX_RESTARTS} restarts (pod deleted); a pod deleted while RUNNING → FAILED (PodDeleted)`, async () => {
  const env = await startEnv({ controllers: ["at"], clock: new VirtualClock(START) });
  try {
    for (const name of ["crash", "gone"]) {
      await env.client.create(AtType, {
        metadata: { name },
        spec: { schedule: "2020-01-01T00:00:00Z", command: "false" },
      }, ns);
      await waitFor("RUNNING", async () => (await at(env, name)).status?.phase === "RUNNING");
    }
    await podStatus(env, "crash-pod", {
      phase: "Running",
      containerStatuses: [{
        name: "busybox",
        restartCount: MAX_RESTARTS,
        lastState: { terminated: { exitCode: 1, reason: "Error" } },
        state: { waiting: { reason: "CrashLoopBackOff" } },
      }],
    });
    const crashed = await waitFor("FAILED", async () => {
      const a = await at(env, "crash");
      return a.status?.phase === "FAILED" && a;
    });
    assert.match(crashed.status?.message ?? "", /exit code 1/);
    await waitFor(
      "crash-looping pod deleted",
      async () => !(await getOrUndefined(env.client, CoreTypes.Pod, "crash-pod")),
    );

    await env.client.delete(CoreTypes.Pod, "gone-pod", ns);
    const gone = await waitFor("FAILED", async () => {
      const a = await at(env, "gone");
      return a.status?.phase === "FAILED" && a;
    });
    assert.equal(gone.status?.conditions?.find((c) => c.type === "Ready")?.reason, "PodDeleted");
  } finally {
    await env.close();
  }
});
