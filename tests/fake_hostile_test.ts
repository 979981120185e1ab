// Hostile clients against the fake API server over real HTTP and HTTPS on 127.0.0.1: header-read and idle deadlines
// (watches are not cut), oversize bodies refused without reading them, deeply nested JSON answered 400.
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { connectRaw, readUntilClosed, writeRaw } from "./support/raw_http.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const DEADLINES = { headerTimeoutMs: 300, idleTimeoutMs: 300 };

for (const tls of [false, true]) {
  const scheme = tls ? "HTTPS" : "HTTP";

  Deno.test(`${scheme}: a connection dribbling its header is closed by the server after the header timeout`, async () => {
    const s = await startFakeApiServer({ anonymousAdmin: true, tls, deadlines: DEADLINES });
    try {
      const conn = await connectRaw({ port: Number(new URL(s.url).port), caPEM: s.caPEM });
      await writeRaw(conn, "GET /version HTTP/1.1\r\nX-Slow: ");
      // The traffic of the attack, not synchronisation: one more header byte every 50 ms until the server hangs up.
      const dribble = setInterval(() => void writeRaw(conn, "a"), 50);
      const answer = await readUntilClosed(conn, { deadlineMs: 15_000 });
      clearInterval(dribble);
      assert.ok(answer.closedByServer, "the server never closed a connection whose header never ended");
      assert.equal(answer.status, 0);

      const silent = await connectRaw({ port: Number(new URL(s.url).port), caPEM: s.caPEM });
      const nothing = await readUntilClosed(silent, { deadlineMs: 15_000 });
      assert.ok(nothing.closedByServer, "the server never closed a connection that sent nothing");
    } finally {
      await s.stop();
    }
  });

  Deno.test(`${scheme}: an idle keep-alive connection is closed; a watch outlives both deadlines`, async () => {
    const s = await startFakeApiServer({ anonymousAdmin: true, tls, deadlines: DEADLINES });
    const client = tls ? Deno.createHttpClient({ caCerts: [s.caPEM!] }) : undefined;
    try {
      const watch = await fetch(`${s.url}${CM}?watch=true`, { client });
      assert.equal(watch.status, 200);
      // Opened after the watch: once the server closes it as idle, the watch has been open longer than the deadlines.
      const idle = await connectRaw({ port: Number(new URL(s.url).port), caPEM: s.caPEM });
      await writeRaw(idle, "GET /version HTTP/1.1\r\nHost: fake\r\n\r\n");
      const answer = await readUntilClosed(idle, { deadlineMs: 15_000 });
      assert.equal(answer.status, 200);
      assert.ok(answer.closedByServer, "the server never closed an idle keep-alive connection");

      s.store.create({ group: "", version: "v1", plural: "configmaps" }, {
        metadata: { name: "late", namespace: "default" },
      });
      const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      while (!seen.includes('"late"')) {
        const { done, value } = await reader.read();
        if (done) break;
        seen += value;
      }
      await reader.cancel();
      assert.match(seen, /"type":"ADDED".*"name":"late"/s, "the watch was cut");
    } finally {
      client?.close();
      await s.stop();
    }
  });

  Deno.test(`${scheme}: a POST declaring 1 GiB gets 413 at once and the connection closes unread`, async () => {
    const s = await startFakeApiServer({ anonymousAdmin: true, tls });
    try {
      const conn = await connectRaw({ port: Number(new URL(s.url).port), caPEM: s.caPEM });
      await writeRaw(
        conn,
        `POST ${CM} HTTP/1.1\r\nHost: fake\r\nContent-Type: application/json\r\nContent-Length: ${
          1024 ** 3
        }\r\n\r\n{"a":`,
      );
      const answer = await readUntilClosed(conn);
      assert.equal(answer.status, 413, answer.text.slice(0, 200));
      assert.match(answer.text, /"reason":"RequestEntityTooLarge"/);
      assert.ok(answer.closedByServer);
    } finally {
      await s.stop();
    }
  });
}

Deno.test("JSON nested 100 000 levels deep gets 400 BadRequest on every write, not 500", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const object = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${deep}}`;
    const created = await fetch(`${s.url}${CM}`, {
      method: "POST",
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"}}`,
      headers: { "content-type": "application/json" },
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    for (
      const [method, path, type, body] of [
        ["POST", CM, "application/json", object],
        ["PUT", `${CM}/deep`, "application/json", object],
        ["PATCH", `${CM}/deep`, "application/merge-patch+json", object],
        ["PATCH", `${CM}/deep`, "application/strategic-merge-patch+json", object],
        ["PATCH", `${CM}/deep`, "application/json-patch+json", `[{"op":"add","path":"/x","value":${deep}}]`],
        ["PATCH", `${CM}/deep?fieldManager=t`, "application/apply-patch+yaml", object],
      ]
    ) {
      const res = await fetch(`${s.url}${path}`, { method, body, headers: { "content-type": type } });
      const status = await res.json();
      assert.equal(res.status, 400, `${method} ${type}: ${JSON.stringify(status).slice(0, 300)}`);
      assert.equal(status.kind, "Status");
      assert.equal(status.reason, "BadRequest");
      assert.match(status.message, /max depth/, `${method} ${type}`);
    }
  } finally {
    await s.stop();
  }
});

Deno.test("nesting at the limit (1 000) is served; one level more is 400, never 500", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const nest = (n: number) => "[".repeat(n) + "]".repeat(n);
    // "x" sits one level inside the object: depth(x) + 1 is the document's depth.
    const at = await fetch(`${s.url}${CM}`, {
      method: "POST",
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"at"},"x":${nest(999)}}`,
      headers: { "content-type": "application/json" },
    });
    assert.equal(at.status, 201, (await at.text()).slice(0, 300));
    const over = await fetch(`${s.url}${CM}`, {
      method: "POST",
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"over"},"x":${nest(1000)}}`,
      headers: { "content-type": "application/json" },
    });
    assert.equal(over.status, 400);
    assert.match((await over.json()).message, /invalid character '\[' exceeded max depth/);
  } finally {
    await s.stop();
  }
});
