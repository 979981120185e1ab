import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { httpAnswer, type RawAnswer, type RawHttpServer, startRawHttpServer } from "../../testing/raw_http_server.ts";
import { Http1Pool, HttpRequestError } from "./http1_pool.ts";

const text = (body: Uint8Array) => new TextDecoder().decode(body);

async function withPool(
  answer: (req: RawHttpServer["requests"][number]) => RawAnswer | Promise<RawAnswer>,
  fn: (pool: Http1Pool, server: RawHttpServer, url: (path: string) => URL) => Promise<void>,
): Promise<void> {
  const server = startRawHttpServer(answer);
  const pool = new Http1Pool();
  try {
    await fn(pool, server, (path) => new URL(server.url + path));
  } finally {
    pool.close();
    await server.close();
  }
}

Deno.test("http1 pool: sequential requests reuse one keep-alive connection; concurrent ones open more", async () => {
  await withPool(
    (req) => ({ write: [httpAnswer(200, `${req.method} ${req.path} ${req.body}`)] }),
    async (pool, server, url) => {
      for (let i = 0; i < 5; i++) {
        const res = await pool.request({ method: "POST", url: url(`/a?i=${i}`), body: `b${i}` });
        assert.equal(res.status, 200);
        assert.equal(text(res.body), `POST /a?i=${i} b${i}`);
      }
      assert.equal(server.connections, 1, "five sequential requests on one connection");
      assert.deepEqual(server.requests.map((r) => r.indexOnConnection), [0, 1, 2, 3, 4]);
      await Promise.all([1, 2, 3, 4].map((i) => pool.request({ method: "GET", url: url(`/c${i}`) })));
      assert.ok(server.connections >= 2, `concurrent requests on ${server.connections} connections`);
      assert.equal(server.requests[0].headers.get("host"), new URL(server.url).host);
      assert.equal(server.requests[0].headers.get("accept-encoding"), null, "no compression asked for");
    },
  );
});

Deno.test("http1 pool: a connection the server closes while idle leaves the pool; the next POST succeeds on a new one", async () => {
  await withPool((req) => ({ write: [httpAnswer(201, req.body)], close: true }), async (pool, server, url) => {
    assert.equal(text((await pool.request({ method: "GET", url: url("/x") })).body), "");
    await eventually("the pool to drop the closed idle connection", () => pool.stats.idle === 0);
    const res = await pool.request({ method: "POST", url: url("/y"), body: "{}" });
    assert.equal(res.status, 201);
    assert.equal(text(res.body), "{}");
    assert.equal(server.connections, 2);
    assert.equal(pool.stats.retried, 0, "nothing was sent on the closed connection");
    assert.equal(server.requests.length, 2);
  });
});

Deno.test("http1 pool: a reused connection closed after the server read the request is retried once on a new one", async () => {
  await withPool(
    (req) => req.indexOnConnection === 1 ? { write: [], close: true } : { write: [httpAnswer(200, req.path)] },
    async (pool, server, url) => {
      await pool.request({ method: "GET", url: url("/first") });
      const res = await pool.request({ method: "POST", url: url("/second"), body: "x" });
      assert.equal(text(res.body), "/second");
      assert.equal(pool.stats.retried, 1);
      assert.deepEqual(server.requests.map((r) => [r.path, r.connection]), [["/first", 0], ["/second", 0], [
        "/second",
        1,
      ]]);
    },
  );
});

Deno.test("http1 pool: a fresh connection closed without an answer fails once, naming the request", async () => {
  await withPool(() => ({ write: [], close: true }), async (pool, server, url) => {
    await assert.rejects(
      () => pool.request({ method: "PUT", url: url("/p"), body: "x" }),
      (err) => err instanceof HttpRequestError && /PUT http:\/\/127\.0\.0\.1:\d+\/p: .*closed/.test(err.message),
    );
    assert.equal(server.requests.length, 1, "not retried: the connection was not reused");
  });
});

Deno.test("http1 pool: a refused connection is an HttpRequestError naming the request", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const pool = new Http1Pool();
  await assert.rejects(
    () => pool.request({ method: "GET", url: new URL(`http://127.0.0.1:${port}/api`) }),
    (err) => err instanceof HttpRequestError && err.message.includes(`GET http://127.0.0.1:${port}/api`),
  );
  pool.close();
});

Deno.test("http1 pool: content-length, chunked split at odd places, 204, empty and >1 MB bodies on one connection", async () => {
  const big = "x".repeat(1_500_000);
  const chunks = "5\r\nhello\r\n1;ext=1\r\n \r\n5\r\nworld\r\n0\r\n\r\n";
  const bigChunked = `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
  const chunkedHead = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
  const answers: Record<string, RawAnswer> = {
    "/length": { write: [httpAnswer(200, "abc")] },
    "/chunked": {
      write: [
        chunkedHead.slice(0, 20),
        chunkedHead.slice(20) + chunks.slice(0, 2),
        chunks.slice(2, 9),
        chunks.slice(9),
      ],
    },
    "/204": { write: ["HTTP/1.1 204 No Content\r\n\r\n"] },
    "/empty": { write: [httpAnswer(200, "")] },
    "/big": { write: [httpAnswer(200, big).slice(0, 1000), httpAnswer(200, big).slice(1000)] },
    "/bigchunked": { write: [chunkedHead + bigChunked.slice(0, 70_001), bigChunked.slice(70_001)] },
    "/continue": { write: ["HTTP/1.1 100 Continue\r\n\r\n", httpAnswer(200, "after 100")] },
  };
  await withPool((req) => answers[req.path], async (pool, server, url) => {
    const get = async (path: string) => text((await pool.request({ method: "GET", url: url(path) })).body);
    assert.equal(await get("/length"), "abc");
    assert.equal(await get("/chunked"), "hello world");
    assert.equal(await get("/204"), "");
    assert.equal(await get("/empty"), "");
    const bigBody = (await pool.request({ method: "GET", url: url("/big") })).body;
    assert.equal(bigBody.length, big.length);
    assert.equal(bigBody.buffer.byteLength, big.length, "a content-length body is read into an array of its size");
    assert.equal(await get("/bigchunked"), big);
    assert.equal(await get("/continue"), "after 100");
    assert.equal(await get("/length"), "abc");
    assert.equal(server.connections, 1, "every answer left the connection reusable");
  });
});

Deno.test("http1 pool: connections are not reused after close, HTTP/1.0, read-until-close or stray bytes", async () => {
  const answers: Record<string, RawAnswer> = {
    "/close": { write: [httpAnswer(200, "c", ["connection: close"])] },
    "/http10": { write: ["HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok"] },
    "/until-close": { write: ["HTTP/1.1 200 OK\r\n\r\nuntil close"], close: true },
    "/stray": { write: [httpAnswer(200, "s") + "garbage"] },
    "/stray-chunked": { write: ["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\nHTTP"] },
  };
  await withPool((req) => answers[req.path], async (pool, server, url) => {
    const expected: Record<string, string> = {
      "/close": "c",
      "/http10": "ok",
      "/until-close": "until close",
      "/stray": "s",
      "/stray-chunked": "z",
    };
    for (const [path, body] of Object.entries(expected)) {
      assert.equal(text((await pool.request({ method: "GET", url: url(path) })).body), body, path);
      assert.equal(pool.stats.idle, 0, `${path}: not kept`);
    }
    assert.equal(server.connections, 5);
    assert.equal(pool.stats.reused, 0);
  });
});

Deno.test("http1 pool: idle connections beyond maxIdlePerOrigin are closed", async () => {
  const server = startRawHttpServer(() => ({ write: [httpAnswer(200, "ok")] }));
  const pool = new Http1Pool({ maxIdlePerOrigin: 2 });
  try {
    const url = new URL(server.url);
    let release = () => {};
    const gate = new Promise<void>((resolve) => release = resolve);
    const started = [1, 2, 3, 4].map(() => gate.then(() => pool.request({ method: "GET", url })));
    release();
    await Promise.all(started);
    assert.equal(server.connections, 4, "no idle connection when they started");
    assert.equal(pool.stats.idle, 2);
    await eventually(
      "the server to see the extra connections closed",
      () => server.closedByClient === server.connections - pool.stats.idle,
    );
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("http1 pool: abort mid-response rejects with the reason and drops the connection", async () => {
  await withPool(
    (req) =>
      req.path === "/slow"
        ? { write: ["HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npart"] }
        : { write: [httpAnswer(200, "fast")] },
    async (pool, server, url) => {
      await pool.request({ method: "GET", url: url("/fast") });
      const ac = new AbortController();
      const reason = new Error("reconcile cancelled");
      const pending = pool.request({ method: "GET", url: url("/slow"), signal: ac.signal });
      await eventually("the server to answer part of /slow", () => server.requests.length === 2);
      ac.abort(reason);
      await assert.rejects(pending, (err) => err === reason);
      await eventually("the server to see the connection closed", () => server.closedByClient === 1);
      assert.equal(text((await pool.request({ method: "GET", url: url("/fast") })).body), "fast");
      assert.equal(server.connections, 2, "the aborted connection was not reused");
      await assert.rejects(
        () => pool.request({ method: "GET", url: url("/fast"), signal: ac.signal }),
        (e) => e === reason,
      );
    },
  );
});

Deno.test("http1 pool: close() ends requests in flight and refuses new ones", async () => {
  await withPool(() => ({ write: [] }), async (pool, server, url) => {
    const pending = pool.request({ method: "GET", url: url("/hang") });
    await eventually("the request to arrive", () => server.requests.length === 1);
    pool.close();
    await assert.rejects(pending, HttpRequestError);
    await assert.rejects(() => pool.request({ method: "GET", url: url("/later") }), /closed/);
  });
});

Deno.test("http1 pool: beforeWrite runs once a connection is at hand; its throw ends the request with nothing written", async () => {
  await withPool((req) => ({ write: [httpAnswer(200, req.path)] }), async (pool, server, url) => {
    const refused = new Error("not the leader any more");
    let calls = 0;
    await assert.rejects(
      () =>
        pool.request({
          method: "POST",
          url: url("/write"),
          body: "{}",
          beforeWrite: () => {
            calls++;
            throw refused;
          },
        }),
      (err) => err === refused,
    );
    assert.equal(calls, 1);
    assert.equal(server.requests.length, 0, "the server saw nothing");
    assert.equal(pool.stats.idle, 1, "the dialled connection was kept: nothing was written on it");
    const res = await pool.request({ method: "GET", url: url("/next"), beforeWrite: () => calls++ });
    assert.equal(text(res.body), "/next");
    assert.equal(calls, 2);
    assert.equal(server.connections, 1);
  });
});

Deno.test("http1 pool: preconnect parks one connection that the first request uses; it never rejects", async () => {
  await withPool((req) => ({ write: [httpAnswer(200, req.path)] }), async (pool, server, url) => {
    await pool.preconnect(url("/"));
    await pool.preconnect(url("/")); // one idle already: nothing more
    assert.equal(pool.stats.idle, 1);
    const res = await pool.request({ method: "POST", url: url("/first"), body: "{}" });
    assert.equal(text(res.body), "/first");
    assert.equal(server.connections, 1, "the first request went over the preconnected connection");
    assert.equal(pool.stats.reused, 1);
  });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const pool = new Http1Pool();
  await pool.preconnect(new URL(`http://127.0.0.1:${port}/`)); // refused: resolves all the same
  assert.equal(pool.stats.idle, 0);
  pool.close();
});

Deno.test("http1 pool: a header value with CR/LF is refused before anything is sent, without echoing the value", async () => {
  await withPool((req) => ({ write: [httpAnswer(200, req.path)] }), async (pool, server, url) => {
    const err = await pool.request({
      method: "GET",
      url: url("/x"),
      headers: { Authorization: "Bearer secret-token\r\nX-Injected: yes" },
    }).then(() => undefined, (e) => e);
    assert.ok(err instanceof TypeError, String(err));
    assert.match(err.message, /header "Authorization" of GET \/x: name or value holds CR, LF or NUL/);
    assert.doesNotMatch(err.message, /secret-token/);
    assert.equal(server.connections, 0);
  });
});

Deno.test("http1 pool: a connection idle for idleTimeoutMs is closed, not reused (a silently dropped flow)", async () => {
  const server = startRawHttpServer((req) => ({ write: [httpAnswer(200, req.path)] }));
  let now = 0;
  const pool = new Http1Pool({ idleTimeoutMs: 90_000, now: () => now });
  const url = (path: string) => new URL(server.url + path);
  try {
    await pool.request({ method: "GET", url: url("/a") });
    now += 89_999;
    await pool.request({ method: "GET", url: url("/b") });
    assert.equal(server.connections, 1, "idle less than the timeout: reused");
    now += 90_000;
    await pool.request({ method: "GET", url: url("/c") });
    assert.equal(server.connections, 2, "idle for the timeout: a new connection");
    assert.equal(pool.stats.idle, 1, "the expired one was closed");
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("http1 pool: a connection that brings no byte for silenceTimeoutMs fails the request, not retried; the idle ones are dropped", async () => {
  // The second request lands on the reused connection and the server never answers it: what a dead connection (or a
  // proxy holding it open and forwarding nothing) shows. Without the deadline the request waits forever.
  const server = startRawHttpServer((req) =>
    req.indexOnConnection === 0 ? { write: [httpAnswer(200, "ok")] } : { write: [] }
  );
  const pool = new Http1Pool({ silenceTimeoutMs: 300 });
  try {
    const url = new URL(server.url + "/x");
    const first = await Promise.all([1, 2, 3].map(() => pool.request({ method: "GET", url })));
    assert.deepEqual(first.map((r) => text(r.body)), ["ok", "ok", "ok"]);
    assert.equal(pool.stats.idle, 3, "three keep-alive connections parked");
    const err = await pool.request({ method: "POST", url, body: "{}" }).then(() => undefined, (e) => e);
    assert.ok(err instanceof HttpRequestError, String(err));
    assert.match(String(err.cause), /no byte from the server for \d+ ms: connection presumed dead/);
    assert.equal(pool.stats.retried, 0, "the server may have the request: it is not sent again");
    assert.equal(server.requests.length, 4);
    // The idle connections went the same way as the dead one: dropped, so the next request dials instead of waiting
    // out the deadline on each of them in turn.
    assert.equal(pool.stats.idle, 0, "the dead connection and the idle ones left the pool");
    assert.equal(text((await pool.request({ method: "GET", url })).body), "ok");
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("http1 pool: presumeDead closes the idle connections and fails requests quiet that long, not retried", async () => {
  // A watch found its connection dead (runtime/watch/watch_runner.ts): the parked connections and a request waiting on
  // one went through the same path. Before presumeDead the request waited out its own deadline (25 s by default).
  const server = startRawHttpServer((req) =>
    req.indexOnConnection === 0 ? { write: [httpAnswer(200, "ok")] } : { write: [] }
  );
  const pool = new Http1Pool();
  try {
    const url = new URL(server.url + "/x");
    await Promise.all([1, 2, 3].map(() => pool.request({ method: "GET", url })));
    assert.equal(pool.stats.idle, 3);
    const hanging = pool.request({ method: "PUT", url, body: "{}" }).then(() => undefined, (e) => e);
    await eventually("the request reached the server", () => server.requests.length === 4);
    assert.equal(pool.presumeDead(60_000), 0, "not quiet for a minute: left alone");
    assert.equal(pool.stats.idle, 0, "the parked connections are closed at once");
    assert.equal(pool.presumeDead(0), 1);
    const err = await hanging;
    assert.ok(err instanceof HttpRequestError, String(err));
    assert.match(String(err.cause), /another connection to it was found dead: connection presumed dead/);
    assert.equal(pool.stats.retried, 0, "the server may have the request: it is not sent again");
    assert.equal(text((await pool.request({ method: "GET", url })).body), "ok", "a fresh connection");
  } finally {
    pool.close();
    await server.close();
  }
});
