import assert from "node:assert/strict";
import http from "node:http";
import { listenTracked } from "./node_listen.ts";

Deno.test("listenTracked rejects with the listen error when the port is taken", async () => {
  const first = http.createServer((_req, res) => res.end("ok"));
  const listener = await listenTracked(first, { hostname: "127.0.0.1", port: 0 });
  const second = http.createServer((_req, res) => res.end("ok"));
  await assert.rejects(listenTracked(second, { hostname: "127.0.0.1", port: listener.port }), /EADDRINUSE|in use/i);
  await new Promise<void>((resolve) => first.close(() => resolve()));
});

Deno.test("destroySockets cuts an open connection that has not sent a request", async () => {
  const server = http.createServer((_req, res) => res.end("ok"));
  const accepted = new Promise<void>((resolve) => server.once("connection", () => resolve()));
  const listener = await listenTracked(server, {
    hostname: "127.0.0.1",
    port: 0,
    deadlines: { headerTimeoutMs: 60_000 },
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.port });
  await accepted;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  listener.destroySockets();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"still open">((resolve) => timer = setTimeout(() => resolve("still open"), 10_000));
  const read = conn.read(new Uint8Array(1)).catch(() => null);
  assert.equal(await Promise.race([read, deadline]), null, "the server side closed the connection");
  clearTimeout(timer);
  conn.close();
  await closed;
});
