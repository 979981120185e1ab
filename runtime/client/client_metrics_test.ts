import assert from "node:assert/strict";
import { KubeClient } from "./client.ts";
import { Metrics } from "../observe/metrics.ts";
import { CoreTypes } from "../types.ts";

/** A 127.0.0.1 port with nothing listening: bind one, note it, close it. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test('a request that gets no response counts as rest_client_requests_total{code="<error>"}, as client-go', async () => {
  const metrics = new Metrics();
  const port = closedPort();
  const client = new KubeClient({ config: { server: `http://127.0.0.1:${port}` }, metrics });
  try {
    await assert.rejects(client.get(CoreTypes.Pod, "p", { namespace: "ns" }));
    await assert.rejects(client.watchStream(CoreTypes.Pod, { namespace: "ns" }, () => {}));
    const host = `127.0.0.1:${port}`;
    assert.equal(await metrics.value("rest_client_requests_total", { code: "<error>", method: "GET", host }), 2);
    assert.equal(await metrics.value("rest_client_request_duration_seconds", { verb: "GET", host }), 2);
  } finally {
    client.close();
  }
});

Deno.test("rest_client_request_duration_seconds observes every answered request by verb and host", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json({ kind: "Pod", metadata: { name: "p" } }),
  );
  const metrics = new Metrics();
  const host = `127.0.0.1:${server.addr.port}`;
  const client = new KubeClient({ config: { server: `http://${host}` }, metrics });
  try {
    await client.get(CoreTypes.Pod, "p", { namespace: "ns" });
    await client.get(CoreTypes.Pod, "p", { namespace: "ns" });
    assert.equal(await metrics.value("rest_client_requests_total", { code: "200", method: "GET", host }), 2);
    assert.equal(await metrics.value("rest_client_request_duration_seconds", { verb: "GET", host }), 2);
  } finally {
    client.close();
    await server.shutdown();
  }
});
