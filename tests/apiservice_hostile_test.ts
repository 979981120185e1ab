// Hostile clients against the farm aggregated API server over real TLS on 127.0.0.1: authentication before the body,
// the body limit for allowed callers, header-read and idle deadlines, deeply nested JSON.
import assert from "node:assert/strict";
import { readWatch, startFarmFixture } from "./support/farm_fixture.ts";
import { createCA } from "../runtime/http/pki.ts";
import { connectRaw, readUntilClosed, writeRaw } from "./support/raw_http.ts";

const NS = "/apis/farm.example.com/v1alpha/namespaces/default/llamas";
const GiB = 1024 ** 3;

function postHead(contentLength: number, extra = ""): string {
  return `POST ${NS} HTTP/1.1\r\nHost: farm\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n` +
    `${extra}\r\n`;
}

Deno.test("a refused POST declaring a huge body is answered at once (bad token 401, anonymous 403); the body is never read, the connection closes", async () => {
  const fx = await startFarmFixture();
  try {
    const port = Number(new URL(fx.farm.url).port);
    for (
      const [who, extra, code] of [["bad token", "Authorization: Bearer nope\r\n", 401], [
        "anonymous",
        "",
        403,
      ]] as const
    ) {
      for (const declared of [GiB, 50_000_000, 3 * 1024 * 1024]) {
        const conn = await connectRaw({ port, caPEM: fx.farm.caPEM });
        // Only a few bytes of the declared body are ever sent: a server that reads the body first never answers.
        await writeRaw(conn, postHead(declared, extra) + '{"metadata":');
        const answer = await readUntilClosed(conn);
        assert.equal(answer.status, code, `${who}, declared ${declared}: ${answer.text.slice(0, 200)}`);
        assert.match(
          answer.text,
          code === 401 ? /"reason":"Unauthorized"/ : /User \\"system:anonymous\\" cannot create/,
        );
        assert.ok(
          answer.closedByServer,
          `${who}, declared ${declared}: the server keeps the connection with an unread body`,
        );
      }
    }
    assert.ok(fx.cluster.reviews.every((r) => r.user.username === "system:anonymous"), "no review for a bad token");
  } finally {
    await fx.close();
  }
});

Deno.test("a denied caller's unfinished POST gets 403 before its body is read", async () => {
  const frontProxyCA = await createCA({ commonName: "front-proxy-ca" });
  const proxy = await frontProxyCA.issue({ commonName: "front-proxy-client", usage: "client" });
  const fx = await startFarmFixture({ frontProxyCA, authorize: (user) => user.username !== "mallory" });
  try {
    const port = Number(new URL(fx.farm.url).port);
    const conn = await connectRaw({ port, caPEM: fx.farm.caPEM, cert: proxy });
    await writeRaw(conn, postHead(GiB, "X-Remote-User: mallory\r\nX-Remote-Group: system:authenticated\r\n") + "{");
    const answer = await readUntilClosed(conn);
    assert.equal(answer.status, 403, answer.text.slice(0, 200));
    assert.ok(answer.closedByServer);
  } finally {
    await fx.close();
  }
});

Deno.test("an allowed caller's oversize body still gets 413 (declared or sent)", async () => {
  const frontProxyCA = await createCA({ commonName: "front-proxy-ca" });
  const proxy = await frontProxyCA.issue({ commonName: "front-proxy-client", usage: "client" });
  const fx = await startFarmFixture({ frontProxyCA });
  try {
    const port = Number(new URL(fx.farm.url).port);
    const conn = await connectRaw({ port, caPEM: fx.farm.caPEM, cert: proxy });
    await writeRaw(conn, postHead(GiB, "X-Remote-User: alice\r\nX-Remote-Group: system:authenticated\r\n") + "{");
    const declared = await readUntilClosed(conn);
    assert.equal(declared.status, 413, declared.text.slice(0, 200));
    assert.match(declared.text, /"reason":"RequestEntityTooLarge"/);
    assert.ok(declared.closedByServer);

    const big = JSON.stringify({ metadata: { name: "big" }, spec: { weight: 1, height: 1 }, pad: "x".repeat(4 << 20) });
    const sent = await fx.call(NS, { method: "POST", body: big, headers: { "content-type": "application/json" } });
    assert.equal(sent.status, 413);
    assert.equal((await sent.json()).reason, "RequestEntityTooLarge");
    assert.ok(fx.cluster.reviews.length >= 1, "authorized before the size check");
  } finally {
    await fx.close();
  }
});

Deno.test("a connection dribbling its header is closed by the server after the header timeout", async () => {
  const fx = await startFarmFixture({ deadlines: { headerTimeoutMs: 300, idleTimeoutMs: 300 } });
  try {
    const port = Number(new URL(fx.farm.url).port);
    const conn = await connectRaw({ port, caPEM: fx.farm.caPEM });
    await writeRaw(conn, "GET /healthz HTTP/1.1\r\nX-Slow: ");
    // The traffic of the attack, not synchronisation: one more header byte every 50 ms until the server hangs up.
    const dribble = setInterval(() => void writeRaw(conn, "a"), 50);
    const answer = await readUntilClosed(conn, { deadlineMs: 15_000 });
    clearInterval(dribble);
    assert.ok(answer.closedByServer, "the server never closed a connection whose header never ended");
    assert.equal(answer.status, 0, "no response to an unfinished header");
  } finally {
    await fx.close();
  }
});

Deno.test("an idle keep-alive connection is closed; a watch outlives both deadlines", async () => {
  const fx = await startFarmFixture({ deadlines: { headerTimeoutMs: 300, idleTimeoutMs: 300 } });
  try {
    const port = Number(new URL(fx.farm.url).port);
    const watch = await fx.call(`${NS}?watch=true&resourceVersion=0`);
    assert.equal(watch.status, 200);
    // Opened after the watch: once the server closes it as idle, the watch has been open longer than the deadlines.
    const idle = await connectRaw({ port, caPEM: fx.farm.caPEM });
    await writeRaw(idle, "GET /healthz HTTP/1.1\r\nHost: farm\r\n\r\n");
    const answer = await readUntilClosed(idle, { deadlineMs: 15_000 });
    assert.equal(answer.status, 200);
    assert.ok(answer.closedByServer, "the server never closed an idle keep-alive connection");

    const created = await fx.call(NS, {
      method: "POST",
      body: JSON.stringify({ metadata: { name: "late" }, spec: { weight: 1, height: 1 } }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    const events = await readWatch(watch, (e) => e.some((x) => x.object.metadata?.name === "late"));
    assert.ok(events.some((e) => e.type === "ADDED" && e.object.metadata?.name === "late"));
  } finally {
    await fx.close();
  }
});

Deno.test("JSON nested 100 000 levels deep gets 400 BadRequest, not 500", async () => {
  const fx = await startFarmFixture();
  try {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    const body = `{"apiVersion":"farm.example.com/v1alpha","kind":"Llama","metadata":{"name":"deep"},` +
      `"spec":{"weight":1,"height":1,"x":${deep(100_000)}}}`;
    for (
      const [method, path, type] of [
        ["POST", NS, "application/json"],
        ["PUT", `${NS}/dolly`, "application/json"],
        ["PATCH", `${NS}/dolly`, "application/merge-patch+json"],
      ]
    ) {
      const res = await fx.call(path, { method, body, headers: { "content-type": type } });
      const status = await res.json();
      assert.equal(res.status, 400, `${method}: ${JSON.stringify(status)}`);
      assert.equal(status.reason, "BadRequest");
      assert.match(status.message, /exceeded max depth/);
    }
    // At the limit (1 000 levels) the body is decoded and answered — whatever the answer, never a 500.
    for (const type of ["application/merge-patch+json", "application/json-patch+json"]) {
      const res = await fx.call(`${NS}/dolly`, {
        method: "PATCH",
        body: deep(1000),
        headers: { "content-type": type },
      });
      assert.ok(res.status >= 400 && res.status < 500, `${type}: ${res.status}`);
      await res.body?.cancel();
    }
    const over = await fx.call(`${NS}/dolly`, {
      method: "PATCH",
      body: deep(1001),
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(over.status, 400);
    await over.body?.cancel();
    const ok = await fx.call(`${NS}/dolly`, {
      method: "PATCH",
      body: JSON.stringify({ metadata: { annotations: { a: "b" } } }),
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await fx.close();
  }
});
