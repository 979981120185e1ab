import assert from "node:assert/strict";
import type { Pod } from "../../runtime/builtin_types.ts";
import { CHILD_WRITE_REJECTED } from "../../runtime/controller/child_write_failure.ts";
import { labelValueErrors } from "../../runtime/apimachinery/names.ts";
import { ApiError, failureStatus, TerminalError } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { FakeCluster } from "../../testing/mod.ts";
import {
  clientPodName,
  MAX_LOG_ATTEMPTS,
  NetperfMemory,
  NODE_RECHECK_MS,
  parseNetperfOutput,
  reconcileNetperf,
  serverPodName,
} from "./controller.ts";
import { type Netperf, netperfCrds, NetperfType } from "./schema.ts";

const OUTPUT = `MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 10.244.0.5 () port 0 AF_INET
Recv   Send    Send
Socket Socket  Message  Elapsed
Size   Size    Size     Time     Throughput
bytes  bytes   bytes    secs.    10^6bits/sec

 87380  16384  16384    10.00    9416.96
`;

function setup(name = "example") {
  const cluster = new FakeCluster({ crds: netperfCrds() });
  let memory = new NetperfMemory();
  cluster.create(NetperfType, { metadata: { name, namespace: "default" }, spec: { duration: 5 } });
  const run = () => reconcileNetperf(cluster.context(NetperfType, `default/${name}`), memory);
  const np = () => cluster.get(NetperfType, `default/${name}`) as Netperf;
  const restart = () => memory = new NetperfMemory();
  const podStatus = (name: string, status: Record<string, unknown>) =>
    cluster.patch(CoreTypes.Pod, `default/${name}`, { status }, "status");
  return { cluster, run, np, restart, podStatus };
}

Deno.test("parses netperf output into true bits per second", () => {
  assert.equal(parseNetperfOutput(OUTPUT), 9_416_960_000);
  assert.equal(parseNetperfOutput(OUTPUT.replace("10^6bits", "10^3bits")), 9_416_960);
  assert.equal(parseNetperfOutput("connection refused"), undefined);
});

Deno.test("server pod → client pod with the server IP → termination message → Done, pods deleted", async () => {
  const { cluster, run, np, podStatus } = setup();
  await run();
  assert.equal(np().status?.status, "Server");
  const server = cluster.get(CoreTypes.Pod, `default/${serverPodName(np())}`) as Pod;
  assert.deepEqual(server.spec!.containers[0].command, ["netserver", "-D"]);
  await run();
  assert.equal(cluster.get(CoreTypes.Pod, `default/${clientPodName(np())}`), undefined, "no client before Running");
  podStatus(serverPodName(np()), { phase: "Running", podIP: "10.244.0.5" });
  await run();
  assert.equal(np().status?.status, "Test");
  const client = cluster.get(CoreTypes.Pod, `default/${clientPodName(np())}`) as Pod;
  assert.match(client.spec!.containers[0].command!.join(" "), /netperf -H 10\.244\.0\.5 -l 5/);
  podStatus(clientPodName(np()), {
    phase: "Succeeded",
    containerStatuses: [{ state: { terminated: { exitCode: 0, message: OUTPUT } } }],
  });
  await run();
  assert.equal(np().status?.status, "Done");
  assert.equal(np().status?.speedBitsPerSec, 9_416_960_000);
  assert.equal(cluster.list(CoreTypes.Pod).length, 0, "both pods deleted");
});

Deno.test("falls back to the pod log; unparseable output → Error with message", async () => {
  const { cluster, run, np, podStatus } = setup();
  await run();
  podStatus(serverPodName(np()), { phase: "Running", podIP: "10.0.0.1" });
  await run();
  cluster.podLogs.set(`default/${clientPodName(np())}`, "netperf: connection refused");
  podStatus(clientPodName(np()), { phase: "Succeeded" });
  await run();
  assert.equal(np().status?.status, "Error");
  assert.match(np().status?.message ?? "", /not understood/);
  assert.ok(cluster.events.some((e) => e.input.reason === "UnparseableOutput"));
});

Deno.test("server pod failing → Error; restart mid-test resumes without duplicate pods; foreign pods untouched", async () => {
  const { cluster, run, np, podStatus, restart } = setup();
  cluster.create(CoreTypes.Pod, {
    metadata: { name: "bystander", namespace: "default" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  await run();
  restart();
  await run();
  assert.equal(cluster.writes().filter((c) => c.verb === "create").length, 1, "one server pod after a restart");
  podStatus(serverPodName(np()), { phase: "Failed" });
  await run();
  assert.equal(np().status?.status, "Error");
  assert.match(np().status?.message ?? "", /server pod/);
  assert.ok(cluster.get(CoreTypes.Pod, "default/bystander"), "foreign pod left alone");
});

Deno.test(`an unreadable log is retried (thrown) ${MAX_LOG_ATTEMPTS - 1} times, then Error with the reason`, async () => {
  const { run, np, podStatus } = setup();
  await run();
  podStatus(serverPodName(np()), { phase: "Running", podIP: "10.0.0.1" });
  await run();
  podStatus(clientPodName(np()), { phase: "Succeeded" });
  for (let i = 1; i < MAX_LOG_ATTEMPTS; i++) {
    await assert.rejects(run(), /no log/);
    assert.equal(np().status?.status, "Test");
  }
  await run();
  assert.equal(np().status?.status, "Error");
  assert.match(np().status?.message ?? "", /could not read the client's output/);
});

for (const length of [63, 64, 238, 239, 253]) {
  Deno.test(`a ${length}-character name: pods and instance label valid (cut and hashed only when too long), Done`, async () => {
    const name = "n".repeat(length - 1) + "z";
    const { cluster, run, np, podStatus } = setup(name);
    await run();
    const server = serverPodName(np());
    if (length <= 238) assert.equal(server, `${name}-netperf-server`, "unchanged when it fits");
    assert.ok(server.length <= 253 && clientPodName(np()).length <= 253);
    assert.notEqual(server, clientPodName(np()));
    const pod = cluster.get(CoreTypes.Pod, `default/${server}`)!;
    assert.deepEqual(labelValueErrors(pod.metadata.labels!["app.kubernetes.io/instance"]), []);
    assert.equal(np().status?.serverPod, server);
    podStatus(server, { phase: "Running", podIP: "10.244.0.5" });
    await run();
    podStatus(clientPodName(np()), {
      phase: "Succeeded",
      containerStatuses: [{ state: { terminated: { exitCode: 0, message: OUTPUT } } }],
    });
    await run();
    assert.equal(np().status?.status, "Done");
    assert.equal(cluster.list(CoreTypes.Pod).length, 0, "both pods found again and deleted");
  });
}

Deno.test("a pod refused for good (422) → Degraded + Warning + TerminalError, no retry until the spec changes", async () => {
  const name = "refused";
  const cluster = new FakeCluster({ crds: netperfCrds() });
  cluster.create(NetperfType, { metadata: { name, namespace: "default" }, spec: { duration: 5 } });
  const attempts = { creates: 0 };
  const run = () => {
    const ctx = cluster.context(NetperfType, `default/${name}`);
    const client = new Proxy(ctx.client, {
      get(target, prop, receiver) {
        const real = Reflect.get(target, prop, receiver);
        if (prop !== "create") return typeof real === "function" ? real.bind(target) : real;
        return (_rt: ResourceType, obj: KubeObject) => {
          attempts.creates++;
          const status = failureStatus(422, "Invalid", `Pod "${obj.metadata.name}" is invalid: image`);
          throw new ApiError(status, {
            verb: "create",
            resource: "pods",
            namespace: "default",
            name: obj.metadata.name,
          });
        };
      },
    });
    return reconcileNetperf({ ...ctx, client }, new NetperfMemory());
  };
  const np = () => cluster.get(NetperfType, `default/${name}`) as Netperf;
  const podCreates = () => attempts.creates;
  await assert.rejects(run(), (err: unknown) => {
    assert.ok(err instanceof TerminalError);
    assert.match(err.message, /create Pod default\/refused-netperf-server refused: 422 Invalid/);
    return true;
  });
  const degraded = np().status?.conditions?.find((c) => c.type === "Degraded");
  assert.equal(degraded?.status, "True");
  assert.equal(degraded?.reason, CHILD_WRITE_REJECTED);
  assert.equal(degraded?.observedGeneration, np().metadata.generation);
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && e.input.reason === CHILD_WRITE_REJECTED));
  await run();
  assert.equal(podCreates(), 1, "terminal at this generation");
  cluster.patch(NetperfType, `default/${name}`, { spec: { duration: 6 } });
  await assert.rejects(run(), TerminalError);
  assert.equal(podCreates(), 2, "a spec change tries again");
});

Deno.test("a node that does not exist: Degraded NodeNotFound, slow requeue, no pod; it goes on once the Node exists", async () => {
  const cluster = new FakeCluster({ crds: netperfCrds() });
  cluster.create(NetperfType, { metadata: { name: "np", namespace: "default" }, spec: { serverNode: "ghost" } });
  const memory = new NetperfMemory();
  const run = () => reconcileNetperf(cluster.context(NetperfType, "default/np"), memory);
  const np = () => cluster.get(NetperfType, "default/np") as Netperf;
  assert.equal((await run()).requeueAfterMs, NODE_RECHECK_MS);
  assert.equal(cluster.list(CoreTypes.Pod).length, 0);
  const degraded = np().status?.conditions?.find((c) => c.type === "Degraded");
  assert.equal(degraded?.status, "True");
  assert.equal(degraded?.reason, "NodeNotFound");
  assert.match(degraded?.message ?? "", /ghost/);
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && e.input.reason === "NodeNotFound"));
  assert.ok(cluster.calls.some((c) => c.verb === "get" && c.resource === "nodes" && c.key === "ghost"));
  await run();
  assert.equal(
    cluster.events.filter((e) => e.input.reason === "NodeNotFound").length,
    1,
    "one Event, not one a minute",
  );
  cluster.create(CoreTypes.Node, { metadata: { name: "ghost" } });
  await run();
  assert.equal(np().status?.status, "Server");
  assert.equal(np().status?.conditions?.find((c) => c.type === "Degraded")?.status, "False");
  assert.equal(np().status?.message, undefined);
  assert.equal(cluster.get(CoreTypes.Pod, `default/${serverPodName(np())}`)?.spec.nodeName, "ghost");
});
