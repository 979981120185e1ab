import assert from "node:assert/strict";
import http from "node:http";
import zlib from "node:zlib";
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

Deno.test("fetch transport: a watch that kube-apiserver would gzip member by member arrives whole (no compression asked)", async () => {
  // kube-apiserver v1.37 answers a watch asked with `Accept-Encoding: gzip` as one gzip member per flush; Deno's
  // fetch ends the body after the first member when the next one is not already buffered, so a watch through a
  // proxy stopped after its first event and was re-opened once per event. This server does what kube does.
  const events = 30;
  const server = http.createServer((req, res) => {
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    res.writeHead(200, { "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) });
    let sent = 0;
    const next = () => {
      const line = JSON.stringify({ type: "ADDED", object: { metadata: { name: `cm-${sent}` } } }) + "\n";
      res.write(gzip ? zlib.gzipSync(line) : line);
      if (++sent === events) res.end();
      else setTimeout(next, 1); // the server's pace: each member in its own packet
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const transport = fetchTransport();
  try {
    const url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/configmaps?watch=1`);
    const stream = await transport.stream({ url });
    const decoder = new TextDecoder();
    let text = "";
    await stream.readBody((bytes) => text += decoder.decode(bytes, { stream: true }));
    assert.equal(text.split("\n").filter((l) => l !== "").length, events, "every event, not only the first member's");
  } finally {
    transport.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
