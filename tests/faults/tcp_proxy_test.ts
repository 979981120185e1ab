import assert from "node:assert/strict";
import { FaultProxy } from "./tcp_proxy.ts";

/** A TCP server that answers each connection's reads through `send`. */
function tcpServer(): { port: number; send(bytes: Uint8Array): Promise<void>; close(): void; accepted: Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let conn: Deno.Conn | undefined;
  const accepted = listener.accept().then((c) => void (conn = c));
  return {
    port: listener.addr.port,
    accepted,
    async send(bytes) {
      let off = 0;
      while (off < bytes.length) off += await conn!.write(bytes.subarray(off));
    },
    close() {
      conn?.close();
      listener.close();
    },
  };
}

async function readUntilEnd(conn: Deno.Conn): Promise<number> {
  const buf = new Uint8Array(65536);
  let total = 0;
  for (;;) {
    let n: number | null;
    try {
      n = await conn.read(buf);
    } catch {
      return total; // reset
    }
    if (n === null) return total;
    total += n;
  }
}

Deno.test("fault proxy: forwards the server's bytes, then cuts a connection inside the server's next write", async () => {
  const server = tcpServer();
  const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: server.port } });
  const client = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  try {
    await server.accepted;
    await server.send(new TextEncoder().encode("hello"));
    const buf = new Uint8Array(5);
    let got = 0;
    while (got < 5) got += (await client.read(buf.subarray(got)))!;
    assert.equal(new TextDecoder().decode(buf), "hello");

    assert.equal(proxy.cutMidFrame(), 1);
    await server.send(new Uint8Array(1000).fill(120));
    const received = await readUntilEnd(client);
    assert.ok(received > 0 && received < 1000, `received ${received} of 1000 bytes`);
    assert.equal(proxy.cuts, 1);
  } finally {
    client.close();
    server.close();
    await proxy.close();
  }
});
