/**
 * Benchmark fixture: a raw-TCP HTTP/1.1 server for one collection (configmaps in `bench`) whose list returns a
 * prepared page set and whose watch streams a prepared sequence of events, one event per HTTP chunk (as
 * kube-apiserver flushes them), from pre-encoded bytes so the server costs almost nothing next to the client.
 * @module
 */

const enc = new TextEncoder();

/** A ConfigMap of roughly `bytes` JSON bytes. */
export function sampleObject(i: number, bytes: number, rv: number): Record<string, unknown> {
  const base = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `object-${i}`,
      namespace: "bench",
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      resourceVersion: String(rv),
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: { app: "bench", shard: String(i % 16) },
      annotations: { "example.com/owner": "bench" },
    },
    data: {} as Record<string, string>,
  };
  const pad = Math.max(0, bytes - JSON.stringify(base).length - 20);
  base.data.payload = "x".repeat(pad);
  return base;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** Pre-encodes `events` ADDED events, each its own chunk, plus the terminating chunk. */
export function encodeWatchBody(events: number, objectBytes: number): { body: Uint8Array; lines: string[] } {
  const parts: Uint8Array[] = [];
  const lines: string[] = [];
  for (let i = 0; i < events; i++) {
    const line = JSON.stringify({ type: "ADDED", object: sampleObject(i, objectBytes, i + 2) });
    lines.push(line);
    const payload = enc.encode(line + "\n");
    parts.push(enc.encode(payload.length.toString(16) + "\r\n"), payload, enc.encode("\r\n"));
  }
  parts.push(enc.encode("0\r\n\r\n"));
  return { body: concat(parts), lines };
}

/** Serves `GET …?watch=true` with `watchBody` and lists with `listPage(continue, limit)`. */
export function startStreamServer(opts: {
  watchBody: Uint8Array;
  listPage: (cont: string | null, limit: number | null) => Uint8Array;
}): { url: string; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      serve(conn).catch(() => {}).finally(() => {
        conns.delete(conn);
        try {
          conn.close();
        } catch { /* closed */ }
      });
    }
  })().catch(() => {});
  async function serve(conn: Deno.Conn): Promise<void> {
    const buf = new Uint8Array(16 * 1024);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) return;
      head += new TextDecoder().decode(buf.subarray(0, n));
    }
    const target = head.slice(head.indexOf(" ") + 1, head.indexOf(" HTTP/"));
    const url = new URL(target, "http://x");
    if (url.searchParams.get("watch") === "true") {
      await writeAll(
        conn,
        enc.encode("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"),
      );
      for (let off = 0; off < opts.watchBody.length; off += 1 << 20) {
        await writeAll(conn, opts.watchBody.subarray(off, off + (1 << 20)));
      }
      return;
    }
    const limit = url.searchParams.get("limit");
    const body = opts.listPage(url.searchParams.get("continue"), limit ? Number(limit) : null);
    await writeAll(
      conn,
      enc.encode(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      ),
    );
    await writeAll(conn, body);
  }
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

/** A list page body of `items` (already objects) with an optional continue token. */
export function listBody(items: unknown[], rv: string, cont?: string): Uint8Array {
  return enc.encode(
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMapList",
      metadata: { resourceVersion: rv, continue: cont },
      items,
    }),
  );
}
