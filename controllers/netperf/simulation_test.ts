import assert from "node:assert/strict";
import { clientPodFor, parseNetperfOutput, serverPodFor } from "./controller.ts";
import { simulatedNetperf } from "./simulation.ts";
import type { Netperf } from "./schema.ts";

const np: Netperf = {
  apiVersion: "app.example.com/v1alpha1",
  kind: "Netperf",
  metadata: { name: "example", namespace: "default", uid: "u1" },
  spec: { duration: 3 },
};

Deno.test("the simulation keeps netserver up and answers the real client command with a parseable table", () => {
  const server = serverPodFor(np);
  assert.deepEqual(simulatedNetperf(server, server.spec!.containers[0]), { exitCode: 0, runMs: Infinity });
  const client = clientPodFor(np, "10.244.0.9");
  const outcome = simulatedNetperf(client, client.spec!.containers[0])!;
  assert.equal(outcome.runMs, 3000);
  assert.equal(parseNetperfOutput(outcome.terminationMessage!), 9_416_960_000);
  assert.equal(simulatedNetperf({}, { command: ["echo", "hi"] }), undefined);
});
