import assert from "node:assert/strict";
import type { Pod } from "../../runtime/builtin_types.ts";
import { CHILD_WRITE_REJECTED } from "../../runtime/controller/child_write_failure.ts";
import { labelValueErrors, labelValueFor } from "../../runtime/apimachinery/names.ts";
import { ApiError, failureStatus, TerminalError } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { FakeCluster } from "../../testing/mod.ts";
import { MAX_RESTARTS, MAX_WAIT_MS, parseSchedule, podNameOf, reconcileAt } from "./controller.ts";
import { type At, atCrds, AtType } from "./schema.ts";

function setup(spec: At["spec"], startMs = Date.UTC(2026, 0, 1)) {
  const cluster = new FakeCluster({ startMs, crds: atCrds() });
  cluster.create(AtType, { metadata: { name: "at-sample", namespace: "default" }, spec });
  const run = () => reconcileAt(cluster.context(AtType, "default/at-sample"));
  const at = () => cluster.get(AtType, "default/at-sample") as At;
  const pod = () => cluster.get(CoreTypes.Pod, "default/at-sample-pod") as Pod | undefined;
  return { cluster, run, at, pod };
}

Deno.test("parseSchedule accepts RFC 3339 UTC and refuses impossible dates", () => {
  assert.equal(parseSchedule("2020-11-16T10:12:00Z"), Date.UTC(2020, 10, 16, 10, 12));
  assert.equal(parseSchedule("2020-11-16T10:12:00.250Z"), Date.UTC(2020, 10, 16, 10, 12) + 250);
  assert.equal(parseSchedule("2021-02-30T00:00:00Z"), undefined);
  assert.equal(parseSchedule("2021-01-01T24:00:00Z"), undefined);
  assert.equal(parseSchedule("2021-01-01T00:00:00+01:00"), undefined);
});

Deno.test("a past schedule stores PENDING, then runs the pod now: busybox, split command, OnFailure, ownerRef", async () => {
  const { cluster, run, at, pod } = setup({ schedule: "2020-11-16T10:12:00Z", command: "echo  hello world!" });
  await run();
  const p = pod()!;
  assert.deepEqual(p.spec!.containers[0].command, ["echo", "hello", "world!"]);
  assert.equal(p.spec!.containers[0].image, "busybox");
  assert.equal(p.spec!.restartPolicy, "OnFailure");
  assert.equal(p.metadata.ownerReferences![0].uid, at().metadata.uid);
  assert.equal(p.metadata.ownerReferences![0].controller, true);
  assert.equal(at().status?.phase, "RUNNING");
  const statusWrites = cluster.writes().filter((c) => c.resource === "ats" && c.subresource === "status");
  assert.equal(statusWrites.length, 2, "PENDING stored, then RUNNING");
  cluster.patch(CoreTypes.Pod, "default/at-sample-pod", { status: { phase: "Succeeded" } }, "status");
  await run();
  assert.equal(at().status?.phase, "DONE");
  assert.equal(at().status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
});

Deno.test("a future schedule waits: requeue exactly at the time, long waits capped (days ahead, no overflow)", async () => {
  const start = Date.UTC(2026, 0, 1);
  const { cluster, run, at, pod } = setup({ schedule: "2026-01-01T00:00:30Z", command: "date" }, start);
  assert.equal((await run()).requeueAfterMs, 30_000);
  assert.equal(at().status?.phase, "PENDING");
  assert.equal(pod(), undefined);
  await cluster.clock.advance(30_000);
  await run();
  assert.ok(pod());

  const far = setup({ schedule: "2026-01-11T00:00:00Z", command: "date" }, start);
  let waited = 0;
  for (let i = 0; i < 1000 && far.pod() === undefined; i++) {
    const action = await far.run();
    if (action.requeueAfterMs === undefined) break;
    assert.ok(action.requeueAfterMs <= MAX_WAIT_MS && action.requeueAfterMs > 0);
    waited += action.requeueAfterMs;
    await far.cluster.clock.advance(action.requeueAfterMs);
  }
  assert.equal(waited, 10 * 24 * 3600 * 1000);
  assert.ok(far.pod(), "ran exactly at the schedule");
});

Deno.test("an impossible schedule: condition + Warning Event + TerminalError, no pod", async () => {
  const { cluster, run, at, pod } = setup({ schedule: "2021-02-30T00:00:00Z", command: "date" });
  await assert.rejects(run(), TerminalError);
  assert.equal(pod(), undefined);
  const ready = at().status?.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.reason, "InvalidSchedule");
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && e.input.reason === "InvalidSchedule"));
});

Deno.test(`FAILED when the pod fails, or after ${MAX_RESTARTS} restarts (pod deleted); deleted pod → FAILED`, async () => {
  const a = setup({ schedule: "2020-01-01T00:00:00Z", command: "false" });
  await a.run();
  a.cluster.patch(CoreTypes.Pod, "default/at-sample-pod", {
    status: {
      phase: "Running",
      containerStatuses: [{ restartCount: MAX_RESTARTS - 1, lastState: { terminated: { exitCode: 1 } } }],
    },
  }, "status");
  await a.run();
  assert.equal(a.at().status?.phase, "RUNNING");
  a.cluster.patch(CoreTypes.Pod, "default/at-sample-pod", {
    status: { containerStatuses: [{ restartCount: MAX_RESTARTS, lastState: { terminated: { exitCode: 1 } } }] },
  }, "status");
  await a.run();
  assert.equal(a.at().status?.phase, "FAILED");
  assert.match(a.at().status?.message ?? "", /exit code 1/);
  assert.equal(a.pod(), undefined, "the crash-looping pod is deleted");

  const b = setup({ schedule: "2020-01-01T00:00:00Z", command: "date" });
  await b.run();
  b.cluster.delete(CoreTypes.Pod, `default/${podNameOf(b.at())}`);
  await b.run();
  assert.equal(b.at().status?.phase, "FAILED");
  assert.equal(b.at().status?.conditions?.find((c) => c.type === "Ready")?.reason, "PodDeleted");
});

for (const length of [63, 64, 249, 250, 253]) {
  Deno.test(`a ${length}-character At name runs: pod name and app label valid, cut and hashed only when too long`, async () => {
    const name = "a".repeat(length - 1) + "z";
    const cluster = new FakeCluster({ startMs: Date.UTC(2026, 0, 1), crds: atCrds() });
    cluster.create(AtType, {
      metadata: { name, namespace: "default" },
      spec: { schedule: "2020-01-01T00:00:00Z", command: "date" },
    });
    const run = () => reconcileAt(cluster.context(AtType, `default/${name}`));
    await run();
    const at = cluster.get(AtType, `default/${name}`) as At;
    assert.equal(at.status?.phase, "RUNNING");
    const podName = podNameOf(at);
    assert.equal(at.status?.podName, podName);
    if (length <= 249) assert.equal(podName, `${name}-pod`, "unchanged when it fits");
    assert.ok(podName.length <= 253);
    const pod = cluster.get(CoreTypes.Pod, `default/${podName}`)!;
    assert.deepEqual(labelValueErrors(pod.metadata.labels!.app), []);
    assert.equal(pod.metadata.labels!.app, length <= 63 ? name : labelValueFor(name));
    cluster.patch(CoreTypes.Pod, `default/${podName}`, { status: { phase: "Succeeded" } }, "status");
    await run();
    assert.equal((cluster.get(AtType, `default/${name}`) as At).status?.phase, "DONE", "found its pod again");
  });
}

/** `ctx` whose client refuses every Pod create with a 422 Invalid (a child the API server refuses for good). */
function refusingPods(
  ctx: ReturnType<FakeCluster["context"]>,
  attempts: { creates: number },
): ReturnType<FakeCluster["context"]> {
  const client = new Proxy(ctx.client, {
    get(target, prop, receiver) {
      const real = Reflect.get(target, prop, receiver);
      if (prop !== "create") return typeof real === "function" ? real.bind(target) : real;
      return (rt: ResourceType, obj: KubeObject, opts: { namespace?: string }) => {
        if (rt !== CoreTypes.Pod) return real.call(target, rt, obj, opts);
        attempts.creates++;
        const status = failureStatus(422, "Invalid", `Pod "${obj.metadata.name}" is invalid: spec.containers[0].image`);
        throw new ApiError(status, { verb: "create", resource: "pods", namespace: "default", name: obj.metadata.name });
      };
    },
  });
  return { ...ctx, client };
}

Deno.test("a pod refused for good (422): Degraded + Warning + TerminalError, no retry until the spec changes", async () => {
  const name = "at-refused";
  const cluster = new FakeCluster({ startMs: Date.UTC(2026, 0, 1), crds: atCrds() });
  cluster.create(AtType, {
    metadata: { name, namespace: "default" },
    spec: { schedule: "2020-01-01T00:00:00Z", command: "date" },
  });
  const attempts = { creates: 0 };
  const run = () => reconcileAt(refusingPods(cluster.context(AtType, `default/${name}`), attempts));
  const at = () => cluster.get(AtType, `default/${name}`) as At;
  const podCreates = () => attempts.creates;
  await assert.rejects(run(), (err: unknown) => {
    assert.ok(err instanceof TerminalError);
    assert.match(err.message, /create Pod default\/at-refused-pod refused: 422 Invalid/);
    return true;
  });
  const degraded = at().status?.conditions?.find((c) => c.type === "Degraded");
  assert.equal(degraded?.status, "True");
  assert.equal(degraded?.reason, CHILD_WRITE_REJECTED);
  assert.match(degraded?.message ?? "", /image/);
  assert.equal(degraded?.observedGeneration, at().metadata.generation);
  assert.equal(at().status?.phase, "PENDING");
  assert.notEqual(at().status?.conditions?.find((c) => c.type === "Ready")?.reason, "Scheduled");
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && e.input.reason === CHILD_WRITE_REJECTED));
  assert.equal(podCreates(), 1);
  await run(); // our own status write requeued it: nothing is re-sent at the same generation
  assert.equal(podCreates(), 1);
  cluster.patch(AtType, `default/${name}`, { spec: { command: "date -u" } });
  await assert.rejects(run(), TerminalError);
  assert.equal(podCreates(), 2, "a spec change tries again");
});

Deno.test("a command of only whitespace is rejected up front: Degraded BlankCommand, Warning, TerminalError, no pod", async () => {
  const { cluster, run, at, pod } = setup({ schedule: "2030-01-01T00:00:00Z", command: "   " });
  await assert.rejects(run(), TerminalError);
  assert.equal(pod(), undefined);
  const degraded = at().status?.conditions?.find((c) => c.type === "Degraded");
  assert.equal(degraded?.status, "True");
  assert.equal(degraded?.reason, "BlankCommand");
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && e.input.reason === "BlankCommand"));
  await run();
  assert.equal(cluster.events.filter((e) => e.input.reason === "BlankCommand").length, 1, "stalled: no repeat");
});
