import assert from "node:assert/strict";
import { httpAnswer, startRawHttpServer } from "../../testing/raw_http_server.ts";
import { KubeClient } from "./client.ts";
import { HttpRequestError } from "../http/http1_pool.ts";
import { CoreTypes } from "../types.ts";

Deno.test("client transport: requests share keep-alive connections; a server closing them costs no error", async () => {
  let closeAfterAnswer = false;
  const server = startRawHttpServer((req) => ({
    write: [httpAnswer(req.method === "POST" ? 201 : 200, req.body || '{"metadata":{"name":"n"}}', [
      "content-type: application/json",
    ])],
    close: closeAfterAnswer,
  }));
  const client = new KubeClient({ config: { server: server.url } });
  const fenced = client.withWriteFence({ signal: new AbortController().signal, check: () => {} });
  try {
    await client.get(CoreTypes.Namespace, "a");
    await fenced.create(CoreTypes.ConfigMap, { metadata: { name: "c", namespace: "d" } });
    await client.get(CoreTypes.Namespace, "b");
    assert.equal(server.connections, 1, "one connection for the client and its fenced view");
    closeAfterAnswer = true;
    await client.get(CoreTypes.Namespace, "c");
    const created = await client.create(CoreTypes.ConfigMap, { metadata: { name: "e", namespace: "d" } });
    assert.equal(created.metadata.name, "e");
    const sent = server.requests.at(-1)!;
    assert.equal(sent.headers.get("content-type"), "application/json");
    assert.equal(sent.headers.get("user-agent"), "kubeop");
    assert.equal(sent.headers.get("accept"), "application/json");
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("client transport: a refused connection names the method and URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const client = new KubeClient({ config: { server: `http://127.0.0.1:${port}` } });
  try {
    await assert.rejects(
      () => client.get(CoreTypes.Namespace, "x"),
      (err) =>
        err instanceof HttpRequestError &&
        err.message.includes(`GET http://127.0.0.1:${port}/api/v1/namespaces/x`) && /refused/i.test(err.message),
    );
  } finally {
    client.close();
  }
});

Deno.test("client transport: the write fence is checked again right before the write, after the connection is dialled", async () => {
  const server = startRawHttpServer(() => ({ write: [httpAnswer(201, "{}", ["content-type: application/json"])] }));
  const client = new KubeClient({ config: { server: server.url } });
  const checks: string[] = [];
  const fenced = client.withWriteFence({
    signal: new AbortController().signal,
    check: (call) => {
      checks.push(call.verb);
      if (checks.length === 2) throw new Error("term ended while connecting");
    },
  });
  try {
    await assert.rejects(
      () => fenced.create(CoreTypes.ConfigMap, { metadata: { name: "c", namespace: "d" } }),
      /term ended while connecting/,
    );
    assert.deepEqual(checks, ["create", "create"], "checked before taking a connection and before writing on it");
    assert.equal(server.requests.length, 0, "nothing reached the server");
  } finally {
    client.close();
    await server.close();
  }
});
