// The node:http → fetch bridge over real HTTP on 127.0.0.1: repeated headers both ways, a streamed body flushed per
// chunk, the Request's signal aborting when the client leaves, the body bound (413, connection closed unread), HEAD,
// admission before the body, and a body failing after the headers cutting the connection.
import assert from "node:assert/strict";
import http from "node:http";
import { connectRaw, readUntilClosed, writeRaw } from "../../tests/support/raw_http.ts";
import { nodeFetchBridge, type NodeFetchBridgeOptions, nodeHeaders } from "./node_fetch_bridge.ts";
import { listenTracked } from "./node_listen.ts";

interface Served {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function serve(
  handler: (request: Request) => Promise<Response>,
  opts: Partial<NodeFetchBridgeOptions> = {},
): Promise<Served> {
  const answer = nodeFetchBridge(handler, { scheme: "http", ...opts });
  const server = http.createServer((req, res) => void answer(req, res));
  const listener = await listenTracked(server, { hostname: "127.0.0.1", port: 0 });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        listener.destroySockets();
      }),
  };
}

/** A promise and its resolver. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => resolve = r);
  return { promise, resolve };
}

Deno.test("repeated request headers reach the handler; Set-Cookie and Warning values each go out on their own line", async () => {
  let seen: Headers | undefined;
  let url = "";
  const s = await serve((req) => {
    seen = req.headers;
    url = req.url;
    const headers = new Headers({ "content-type": "text/plain" });
    headers.append("set-cookie", "a=1; Path=/");
    headers.append("set-cookie", "b=2, c; Path=/");
    headers.append("warning", '299 - "first, with a comma"');
    headers.append("warning", '299 - "second"');
    return Promise.resolve(new Response("ok", { headers }));
  }, { host: "server.invalid" });
  try {
    const conn = await connectRaw({ port: s.port });
    await writeRaw(
      conn,
      "GET http://evil.example/a/b?x=1 HTTP/1.1\r\nHost: evil.example\r\nX-Many: 1\r\nX-Many: 2\r\nConnection: close\r\n\r\n",
    );
    const answer = await readUntilClosed(conn);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(seen?.get("x-many"), "1, 2");
    assert.equal(url, "http://server.invalid/a/b?x=1", "the client never chooses the host");
    const lines = answer.text.split("\r\n").map((l) => l.toLowerCase());
    assert.deepEqual(lines.filter((l) => l.startsWith("set-cookie:")), [
      "set-cookie: a=1; path=/",
      "set-cookie: b=2, c; path=/",
    ]);
    assert.deepEqual(lines.filter((l) => l.startsWith("warning:")), [
      'warning: 299 - "first, with a comma"',
      'warning: 299 - "second"',
    ]);
    assert.match(answer.text, /\r\n\r\nok$/);
  } finally {
    await s.close();
  }
});

Deno.test("nodeHeaders keeps one Warning as a string and splits only outside quotes", () => {
  const h = new Headers({ warning: '299 - "a, \\"b\\", c"' });
  assert.deepEqual(nodeHeaders(h), { warning: '299 - "a, \\"b\\", c"' });
});

Deno.test("a streamed body is flushed per chunk: the client reads the first before the second is produced", async () => {
  let produce!: ReadableStreamDefaultController<Uint8Array>;
  const s = await serve(() =>
    Promise.resolve(
      new Response(new ReadableStream<Uint8Array>({ start: (c) => void (produce = c) }), {
        headers: { "content-type": "application/json" },
      }),
    )
  );
  try {
    // The headers arrive before any chunk exists: a watch client waits on them.
    const res = await fetch(`${s.url}/watch`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-length"), null);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    produce.enqueue(new TextEncoder().encode('{"n":1}\n'));
    let text = "";
    while (!text.includes('{"n":1}')) text += (await reader.read()).value ?? "";
    assert.equal(text, '{"n":1}\n', "the first chunk arrived alone");
    produce.enqueue(new TextEncoder().encode('{"n":2}\n'));
    produce.close();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    assert.equal(text, '{"n":1}\n{"n":2}\n');
  } finally {
    await s.close();
  }
});

Deno.test("a client going away aborts the Request's signal and cancels the streamed body", async () => {
  const aborted = signal<unknown>();
  const cancelled = signal();
  const s = await serve((req) => {
    req.signal.addEventListener("abort", () => aborted.resolve(req.signal.reason), { once: true });
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(new TextEncoder().encode("first\n")),
          cancel: () => cancelled.resolve(),
        }),
      ),
    );
  });
  try {
    const client = new AbortController();
    const res = await fetch(`${s.url}/watch`, { signal: client.signal });
    const reader = res.body!.getReader();
    assert.ok((await reader.read()).value);
    client.abort();
    await reader.cancel().catch(() => {});
    const reason = await aborted.promise;
    assert.equal((reason as DOMException).name, "AbortError");
    await cancelled.promise;
  } finally {
    await s.close();
  }
});

Deno.test("a finished answer never aborts the Request's signal", async () => {
  let request: Request | undefined;
  const s = await serve((req) => (request = req, Promise.resolve(new Response("done"))));
  try {
    const res = await fetch(`${s.url}/`);
    assert.equal(await res.text(), "done");
    // A second request on the same keep-alive connection proves the first answer finished.
    assert.equal(await (await fetch(`${s.url}/`)).text(), "done");
    assert.equal(request?.signal.aborted, false);
  } finally {
    await s.close();
  }
});

Deno.test("a body past the bound gets 413 without reaching the handler, declared or sent; the connection closes", async () => {
  const bodies: string[] = [];
  const s = await serve(async (req) => {
    bodies.push(await req.text());
    return new Response("seen");
  }, { body: { maxBytes: 10 } });
  try {
    const declared = await connectRaw({ port: s.port });
    await writeRaw(declared, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${1024 ** 3}\r\n\r\nabc`);
    const first = await readUntilClosed(declared);
    assert.equal(first.status, 413, first.text);
    assert.match(first.text, /request body larger than 10 bytes/);
    assert.match(first.text, /connection: close/i);
    assert.ok(first.closedByServer, "the connection stayed open");

    const sent = await connectRaw({ port: s.port });
    await writeRaw(sent, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n");
    const second = await readUntilClosed(sent);
    assert.equal(second.status, 413, second.text);
    assert.ok(second.closedByServer);

    const fits = await fetch(`${s.url}/`, { method: "POST", body: "0123456789" });
    assert.equal(await fits.text(), "seen");
    assert.deepEqual(bodies, ["0123456789"]);
  } finally {
    await s.close();
  }
});

Deno.test("HEAD gets the status and headers (Content-Length of the body) but no body; the connection is kept", async () => {
  const s = await serve(() => Promise.resolve(new Response("twelve bytes", { headers: { "x-kind": "probe" } })));
  try {
    const conn = await connectRaw({ port: s.port });
    await writeRaw(conn, "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    const answer = await readUntilClosed(conn, { enough: (t) => t.endsWith("twelve bytes") });
    const [head, get] = answer.text.split(/(?=HTTP\/1\.1 )/);
    assert.match(head, /^HTTP\/1\.1 200/);
    assert.match(head, /content-length: 12\r\n/i);
    assert.match(head, /x-kind: probe/i);
    assert.ok(head.endsWith("\r\n\r\n"), `no body after the HEAD answer: ${JSON.stringify(head)}`);
    assert.match(get, /^HTTP\/1\.1 200[^]*\r\n\r\ntwelve bytes$/);
  } finally {
    await s.close();
  }
});

Deno.test("admit answers from the head alone: the body is never read and the connection closes", async () => {
  let handled = 0;
  const s = await serve(() => (handled++, Promise.resolve(new Response("in"))), {
    body: { maxBytes: 1024 },
    admit: (head) =>
      Promise.resolve(head.headers.get("authorization") ? undefined : new Response("who are you?", { status: 401 })),
  });
  try {
    const conn = await connectRaw({ port: s.port });
    await writeRaw(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc");
    const answer = await readUntilClosed(conn);
    assert.equal(answer.status, 401);
    assert.match(answer.text, /who are you\?$/);
    assert.ok(answer.closedByServer);
    const res = await fetch(`${s.url}/`, { method: "POST", body: "x", headers: { authorization: "Bearer t" } });
    assert.equal(await res.text(), "in");
    assert.equal(handled, 1);
  } finally {
    await s.close();
  }
});

Deno.test("a streamed request body reaches the handler; one left unread closes the connection after the answer", async () => {
  const s = await serve(async (req) => {
    if (new URL(req.url).pathname === "/ignore") return new Response("ignored");
    return new Response(`${(await req.text()).length}`);
  });
  try {
    const big = "y".repeat(300_000);
    assert.equal(await (await fetch(`${s.url}/read`, { method: "POST", body: big })).text(), "300000");
    const ignored = await fetch(`${s.url}/ignore`, { method: "POST", body: big });
    assert.equal(ignored.headers.get("connection"), "close");
    assert.equal(await ignored.text(), "ignored");
  } finally {
    await s.close();
  }
});

Deno.test("a handler that throws is answered by onError; a body failing after the headers cuts the connection", async () => {
  const s = await serve((req) => {
    if (new URL(req.url).pathname === "/throw") return Promise.reject(new Error("boom"));
    let n = 0;
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          pull: (c) => {
            if (n++ === 0) c.enqueue(new TextEncoder().encode("partial\n"));
            else return new Promise((_, reject) => setTimeout(() => reject(new Error("storage failed")), 0));
          },
        }),
      ),
    );
  }, { onError: (err) => new Response(`failed: ${(err as Error).message}`, { status: 500 }) });
  try {
    const thrown = await fetch(`${s.url}/throw`);
    assert.equal(thrown.status, 500);
    assert.equal(await thrown.text(), "failed: boom");
    const conn = await connectRaw({ port: s.port });
    await writeRaw(conn, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    const answer = await readUntilClosed(conn);
    assert.equal(answer.status, 200);
    assert.match(answer.text, /partial\n/);
    assert.ok(answer.closedByServer, "the connection was left open");
    assert.doesNotMatch(answer.text, /\r\n0\r\n\r\n$/, "the chunked body was ended as if complete");
  } finally {
    await s.close();
  }
});

Deno.test("a client leaving in the middle of its body never leaves a read waiting: the answer settles", async () => {
  const settled: string[] = [];
  const errors: string[] = [];
  for (const mode of ["stream", { maxBytes: 1 << 20 }] as const) {
    const answer = nodeFetchBridge(async (req) => {
      try {
        await req.text();
      } catch (err) {
        errors.push(String(err));
      }
      return new Response("late");
    }, { scheme: "http", body: mode });
    const done = signal();
    const server = http.createServer((req, res) => void answer(req, res).then(() => done.resolve()));
    const listener = await listenTracked(server, { hostname: "127.0.0.1", port: 0 });
    try {
      const conn = await connectRaw({ port: listener.port });
      await writeRaw(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly a part");
      // The server must have begun reading before the client leaves: its read of the part is what it waits on.
      conn.close();
      await done.promise;
      settled.push(typeof mode === "string" ? mode : "bounded");
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        listener.destroySockets();
      });
    }
  }
  assert.deepEqual(settled, ["stream", "bounded"]);
  assert.ok(errors.length <= 1, "the bounded handler never runs on a cut body");
});
