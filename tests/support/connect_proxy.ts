/** A CONNECT proxy for tests of the proxied transport. @module */

/**
 * An HTTP CONNECT proxy on 127.0.0.1 that records each tunnel's target (what `HTTPS_PROXY` points at): the client
 * tests' proxy and the real tier's.
 */
export function connectProxy(): { url: string; tunnels: string[]; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tunnels: string[] = [];
  const conns = new Set<Deno.Conn>();
  const serve = async (client: Deno.Conn) => {
    conns.add(client);
    const buf = new Uint8Array(8192);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await client.read(buf);
      if (n === null) return client.close();
      head += new TextDecoder().decode(buf.subarray(0, n));
    }
    const [method, target] = head.split(" ");
    if (method !== "CONNECT") {
      await client.write(new TextEncoder().encode("HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n"));
      return client.close();
    }
    tunnels.push(target);
    const [hostname, port] = [
      target.slice(0, target.lastIndexOf(":")),
      Number(target.slice(target.lastIndexOf(":") + 1)),
    ];
    const upstream = await Deno.connect({ hostname, port });
    conns.add(upstream);
    await client.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
    await Promise.allSettled([client.readable.pipeTo(upstream.writable), upstream.readable.pipeTo(client.writable)]);
  };
  const accepting = (async () => {
    for await (const conn of listener) serve(conn).catch(() => {});
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    tunnels,
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed by the pipe */ }
      }
      await accepting.catch(() => {});
    },
  };
}
