import assert from "node:assert/strict";
import { httpAnswer, startRawHttpServer } from "../../testing/raw_http_server.ts";
import { fetchTransport } from "./api_http_client.ts";

Deno.test("fetch transport: a request whose connection brings no byte for the silence deadline fails as presumed dead", async () => {
  // What the proxied path (Deno's fetch) sees of a dead connection: the request written, then nothing, forever.
  const server = startRawHttpServer((req) => req.path === "/dead" ? { write: [] } : { write: [httpAnswer(200, "ok")] });
  const transport = fetchTransport({}, undefined, { silenceTimeoutMs: 300 });
  try {
    const ok = await transport.request({ method: "GET", url: new URL(server.url + "/alive") });
    assert.equal(new TextDecoder().decode(ok.body), "ok");
    const err = await transport.request({ method: "GET", url: new URL(server.url + "/dead") }).then(() => 0, (e) => e);
    assert.match(String(err), /no byte from the server for \d+ ms: connection presumed dead/);
  } finally {
    transport.close();
    await server.close();
  }
});
