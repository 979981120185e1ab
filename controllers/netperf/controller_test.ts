import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
import { FakeCluster } from "../../testing/mod.ts";
import {
  clientPodName,
  MAX_LOG_ATTEMPTS,
  NetperfMemory,
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

function setup() {
  const cluster = new FakeCluster({ crds: netperfCrds() });
  let memory = new NetperfMemory();
  cluster.create(NetperfType, { metadata: { name: "example", namespace: "default" }, spec: { duration: 5 } });
  const run = () => reconcileNetperf(cluster.context(NetperfType, "default/example"), memory);
  const np = () => cluster.get(NetperfType, "default/example") as Netperf;
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
  const server = cluster.get(CoreTypes.Pod, `default/${serverPodName(np())}`)!;
  assert.deepEqual(server.spec.containers[0].command, ["netserver", "-D"]);
  await run();
  assert.equal(cluster.get(CoreTypes.Pod, `default/${clientPodName(np())}`), undefined, "no client before Running");
  podStatus(serverPodName(np()), { phase: "Running", podIP: "10.244.0.5" });
  await run();
  assert.equal(np().status?.status, "Test");
  const client = cluster.get(CoreTypes.Pod, `default/${clientPodName(np())}`)!;
  assert.match(client.spec.containers[0].command.join(" "), /netperf -H 10\.244\.0\.5 -l 5/);
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
  cluster.create(CoreTypes.Pod, { metadata: { name: "bystander", namespace: "default" }, spec: {} });
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
