import assert from "node:assert/strict";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { KubeClient } from "./client.ts";
import type { Clock } from "../clock.ts";
import { ApiError, isConflict, isNotFound } from "./errors.ts";
import { CoreTypes, type WatchEvent } from "../types.ts";

/** A clock whose sleeps return at once and are recorded. */
class RecordingClock implements Clock {
  slept: number[] = [];
  now(): number {
    return 1_000_000;
  }
  nowMonotonic(): number {
    return 0;
  }
  sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    return Promise.resolve();
  }
  setTimer(): () => void {
    return () => {};
  }
}

async function withServer(
  handler: (req: Request) => Response | Promise<Response>,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

Deno.test("client: errors carry the server's Status and the call; non-Status bodies become a Status", async () => {
  await withServer((req) => {
    const path = new URL(req.url).pathname;
    if (path.endsWith("/missing")) {
      return json({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "NotFound",
        code: 404,
        message: "gone",
      }, 404);
    }
    if (req.method === "POST") {
      return json({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Conflict",
        code: 409,
        message: "stale",
      }, 409);
    }
    return new Response("<html>bad gateway</html>", { status: 502 });
  }, async (url) => {
    const counted: string[] = [];
    const metrics = {
      restClientRequests: { inc: (l: { code: string; method: string }) => void counted.push(`${l.method} ${l.code}`) },
    };
    const client = new KubeClient({ config: { server: url }, clock: new RecordingClock(), metrics });
    try {
      const notFound = await client.get(CoreTypes.Pod, "missing", { namespace: "ns" }).catch((e) => e);
      assert.ok(isNotFound(notFound));
      assert.equal(notFound.call.verb, "get");
      assert.equal(notFound.call.resource, "pods");
      assert.equal(notFound.call.namespace, "ns");
      assert.equal(notFound.call.name, "missing");
      assert.match(notFound.message, /get pods ns\/missing: 404 NotFound: gone/);
      const conflict = await client.create(CoreTypes.ConfigMap, { metadata: { name: "c", namespace: "ns" } }).catch((
        e,
      ) => e);
      assert.ok(isConflict(conflict));
      const proxy = await client.get(CoreTypes.Pod, "x", { namespace: "ns" }).catch((e) => e);
      assert.ok(proxy instanceof ApiError);
      assert.equal(proxy.code, 502);
      assert.equal(proxy.status.kind, "Status");
      assert.match(proxy.status.message!, /bad gateway/);
      assert.deepEqual(counted, ["GET 404", "POST 409", "GET 502"]);
    } finally {
      client.close();
    }
  });
});

Deno.test("client: 429 with Retry-After is retried after the advertised delay, bounded", async () => {
  let calls = 0;
  await withServer((req) => {
    calls++;
    if (new URL(req.url).pathname.endsWith("/always")) return json({}, 429, { "retry-after": "2" });
    if (calls < 3) return json({ kind: "Status", code: 429, reason: "TooManyRequests" }, 429, { "retry-after": "3" });
    return json({ kind: "Pod", metadata: { name: "p" } });
  }, async (url) => {
    const clock = new RecordingClock();
    const client = new KubeClient({ config: { server: url }, clock, maxRetries: 4 });
    try {
      const pod = await client.get(CoreTypes.Pod, "p", { namespace: "ns" });
      assert.equal(pod.metadata.name, "p");
      assert.deepEqual(clock.slept, [3_000, 3_000]);
      calls = 0;
      clock.slept = [];
      const err = await client.get(CoreTypes.Pod, "always", { namespace: "ns" }).catch((e) => e);
      assert.equal(err.code, 429);
      assert.equal(err.retryAfterSeconds, 2);
      assert.equal(calls, 5);
    } finally {
      client.close();
    }
  });
});

Deno.test("client: listAll follows continue tokens with limit 500 and keeps the snapshot's RV", async () => {
  const seen: string[] = [];
  await withServer((req) => {
    const q = new URL(req.url).searchParams;
    seen.push(`${q.get("limit")}:${q.get("continue") ?? ""}`);
    const page = Number(q.get("continue") ?? "0");
    return json({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: "77", continue: page < 2 ? String(page + 1) : undefined },
      items: [{ metadata: { name: `p${page}` } }],
    });
  }, async (url) => {
    const client = new KubeClient({ config: { server: url } });
    try {
      const list = await client.listAll(CoreTypes.Pod, { namespace: "ns" });
      assert.deepEqual(list.items.map((p) => p.metadata.name), ["p0", "p1", "p2"]);
      assert.equal(list.metadata.resourceVersion, "77");
      assert.deepEqual(seen, ["500:", "500:1", "500:2"]);
    } finally {
      client.close();
    }
  });
});

Deno.test("client: a rotated token file is re-read after a 401", async () => {
  const dir = await Deno.makeTempDir();
  const tokenFile = `${dir}/token`;
  let accepted = "first";
  await Deno.writeTextFile(tokenFile, "first\n");
  await withServer((req) => {
    if (req.headers.get("authorization") !== `Bearer ${accepted}`) {
      return json({ kind: "Status", code: 401, reason: "Unauthorized", message: "who are you" }, 401);
    }
    return json({ metadata: { name: "ok" } });
  }, async (url) => {
    const client = new KubeClient({ config: { server: url, tokenFile } });
    try {
      assert.equal((await client.get(CoreTypes.Namespace, "x")).metadata.name, "ok");
      accepted = "second";
      await Deno.writeTextFile(tokenFile, "second\n");
      assert.equal((await client.get(CoreTypes.Namespace, "x")).metadata.name, "ok");
      accepted = "third"; // file not rotated: the 401 surfaces after one re-read
      const err = await client.get(CoreTypes.Namespace, "x").catch((e) => e);
      assert.equal(err.code, 401);
    } finally {
      client.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("client: exec credential plugin runs once, is cached until expiry, and re-runs on 401", async () => {
  const dir = await Deno.makeTempDir();
  const script = `${dir}/plugin.sh`;
  const counter = `${dir}/runs`;
  await Deno.writeTextFile(
    script,
    `#!/bin/sh
echo x >> "${counter}"
n=$(wc -l < "${counter}")
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-%s","expirationTimestamp":"2999-01-01T00:00:00Z"}}' "$(echo $n | tr -d ' ')"
`,
  );
  await Deno.chmod(script, 0o755);
  let accepted = "tok-1";
  await withServer((req) => {
    if (req.headers.get("authorization") !== `Bearer ${accepted}`) return json({ kind: "Status", code: 401 }, 401);
    return json({ metadata: { name: "ok" } });
  }, async (url) => {
    const client = new KubeClient({ config: { server: url, exec: { command: script } } });
    try {
      await client.get(CoreTypes.Namespace, "a");
      await client.get(CoreTypes.Namespace, "b");
      assert.equal((await Deno.readTextFile(counter)).trim().split("\n").length, 1);
      accepted = "tok-2";
      await client.get(CoreTypes.Namespace, "c");
      assert.equal((await Deno.readTextFile(counter)).trim().split("\n").length, 2);
    } finally {
      client.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("client: watchStream decodes events over the raw transport and turns a 410 into an ApiError", async () => {
  await withServer((req) => {
    const q = new URL(req.url).searchParams;
    if (q.get("resourceVersion") === "1") {
      return json({ kind: "Status", code: 410, reason: "Expired", message: "too old" }, 410);
    }
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(ctrl) {
        ctrl.enqueue(enc.encode(JSON.stringify({ type: "ADDED", object: { metadata: { name: "a" } } }) + "\n"));
        ctrl.enqueue(enc.encode('{"type":"MODIFIED","obj'));
        ctrl.enqueue(enc.encode('ect":{"metadata":{"name":"a"}}}\nnot json\n'));
        ctrl.close();
      },
    });
    assert.equal(q.get("watch"), "true");
    assert.equal(q.get("allowWatchBookmarks"), "true");
    return new Response(body, { headers: { "content-type": "application/json" } });
  }, async (url) => {
    const client = new KubeClient({ config: { server: url } });
    try {
      const events: WatchEvent[] = [];
      const bad: string[] = [];
      await client.watchStream(CoreTypes.Pod, {
        resourceVersion: "5",
        allowWatchBookmarks: true,
        onMalformed: (line) => bad.push(line),
      }, (e) => events.push(e));
      assert.deepEqual(events.map((e) => e.type), ["ADDED", "MODIFIED"]);
      assert.deepEqual(bad, ["not json"]);
      const err = await client.watchStream(CoreTypes.Pod, { resourceVersion: "1" }, () => {}).catch((e) => e);
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 410);
      assert.equal(err.call.verb, "watch");
    } finally {
      client.close();
    }
  });
});

async function makeCerts(dir: string): Promise<Record<string, string>> {
  const run = async (args: string[]) => {
    const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" }).output();
    if (!out.success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run(["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=test-ca"]);
  await Deno.writeTextFile(`${dir}/server.ext`, "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  await Deno.writeTextFile(`${dir}/client.ext`, "extendedKeyUsage=clientAuth\n");
  for (const [name, cn] of [["server", "127.0.0.1"], ["client", "kubeop-test"]]) {
    await run(["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`]);
    await run([
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      "1",
      "-extfile",
      `${name}.ext`,
    ]);
  }
  const read = (f: string) => Deno.readTextFile(`${dir}/${f}`);
  return {
    ca: await read("ca.crt"),
    serverCert: await read("server.crt"),
    serverKey: await read("server.key"),
    clientCert: await read("client.crt"),
    clientKey: await read("client.key"),
  };
}

Deno.test("client: client-certificate auth over TLS (kubeconfig or exec plugin) works for requests and for watches", async () => {
  const dir = await Deno.makeTempDir();
  const certs = await makeCerts(dir);
  const server = https.createServer({
    key: certs.serverKey,
    cert: certs.serverCert,
    ca: certs.ca,
    requestCert: true,
    rejectUnauthorized: true,
  }, (req, res) => {
    // deno-lint-ignore no-explicit-any
    const cn = (req.socket as any).getPeerCertificate?.()?.subject?.CN ?? "";
    if (req.url?.includes("watch=true")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(JSON.stringify({ type: "ADDED", object: { metadata: { name: cn } } }) + "\n");
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ metadata: { name: cn } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const server_url = `https://127.0.0.1:${port}`;
  const client = new KubeClient({
    config: { server: server_url, caPEM: certs.ca, certPEM: certs.clientCert, keyPEM: certs.clientKey },
  });
  const anonymous = new KubeClient({ config: { server: server_url, caPEM: certs.ca } });
  const credFile = `${dir}/cred.json`;
  await Deno.writeTextFile(
    credFile,
    JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { clientCertificateData: certs.clientCert, clientKeyData: certs.clientKey },
    }),
  );
  const viaExec = new KubeClient({
    config: { server: server_url, caPEM: certs.ca, exec: { command: "cat", args: [credFile] } },
  });
  try {
    const ns = await client.get(CoreTypes.Namespace, "whoami");
    assert.equal(ns.metadata.name, "kubeop-test");
    const events: WatchEvent[] = [];
    await client.watchStream(CoreTypes.Namespace, {}, (e) => events.push(e));
    assert.equal(events[0]?.object.metadata.name, "kubeop-test");
    await assert.rejects(() => anonymous.get(CoreTypes.Namespace, "whoami"));
    assert.equal((await viaExec.get(CoreTypes.Namespace, "whoami")).metadata.name, "kubeop-test");
    const execEvents: WatchEvent[] = [];
    await viaExec.watchStream(CoreTypes.Namespace, {}, (e) => execEvents.push(e));
    assert.equal(execEvents[0]?.object.metadata.name, "kubeop-test", "exec plugin certificate used for watches");
  } finally {
    client.close();
    anonymous.close();
    viaExec.close();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("client: watch() as an async iterable yields events in order and stops at the stream's end", async () => {
  await withServer(() => {
    const lines = ["a", "b", "c"].map((n) =>
      JSON.stringify({ type: "ADDED", object: { metadata: { name: n } } }) + "\n"
    );
    return new Response(lines.join(""), { headers: { "content-type": "application/json" } });
  }, async (url) => {
    const client = new KubeClient({ config: { server: url } });
    try {
      const names: string[] = [];
      for await (const e of client.watch(CoreTypes.Pod, { namespace: "ns", signal: AbortSignal.timeout(10_000) })) {
        names.push(e.object.metadata.name!);
      }
      assert.deepEqual(names, ["a", "b", "c"]);
    } finally {
      client.close();
    }
  });
});

Deno.test("client: patch content types, fieldManager/force, delete options and status subresource on the wire", async () => {
  const seen: { method: string; path: string; query: string; type: string | null; body: unknown }[] = [];
  await withServer(async (req) => {
    const url = new URL(req.url);
    const text = await req.text();
    seen.push({
      method: req.method,
      path: url.pathname,
      query: url.search,
      type: req.headers.get("content-type"),
      body: text ? (req.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text) : undefined,
    });
    return json({ metadata: { name: "m" } });
  }, async (url) => {
    const client = new KubeClient({ config: { server: url } });
    const Machine = { group: "example.com", version: "v1", plural: "machines", kind: "Machine", namespaced: true };
    try {
      await client.patch(Machine, "m", { spec: { a: 1 } }, { namespace: "ns", type: "merge" });
      await client.patch(Machine, "m", [{ op: "remove", path: "/spec/a" }], { namespace: "ns", type: "json" });
      await client.patch(Machine, "m", "apiVersion: example.com/v1\nkind: Machine\n", {
        namespace: "ns",
        type: "apply",
        force: true,
      });
      await client.updateStatus(Machine, {
        metadata: { name: "m", namespace: "ns", resourceVersion: "5" },
        status: {},
      });
      await client.delete(Machine, "m", {
        namespace: "ns",
        propagationPolicy: "Foreground",
        preconditions: { uid: "u1" },
      });
      assert.deepEqual(seen.map((s) => `${s.method} ${s.path}`), [
        "PATCH /apis/example.com/v1/namespaces/ns/machines/m",
        "PATCH /apis/example.com/v1/namespaces/ns/machines/m",
        "PATCH /apis/example.com/v1/namespaces/ns/machines/m",
        "PUT /apis/example.com/v1/namespaces/ns/machines/m/status",
        "DELETE /apis/example.com/v1/namespaces/ns/machines/m",
      ]);
      assert.deepEqual(seen.map((s) => s.type), [
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/apply-patch+yaml",
        "application/json",
        "application/json",
      ]);
      assert.equal(seen[2].query, "?fieldManager=kubeop&force=true");
      assert.equal(seen[0].query, "?fieldManager=kubeop");
      assert.deepEqual((seen[3].body as { apiVersion: string; kind: string }).kind, "Machine");
      assert.deepEqual(seen[4].body, {
        apiVersion: "v1",
        kind: "DeleteOptions",
        propagationPolicy: "Foreground",
        preconditions: { uid: "u1" },
      });
    } finally {
      client.close();
    }
  });
});

Deno.test("client: unary requests use HTTP/1.1 keep-alive even when the server offers h2 (ALPN)", async () => {
  const dir = await Deno.makeTempDir();
  const certs = await makeCerts(dir);
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: certs.serverCert,
    key: certs.serverKey,
    alpnProtocols: ["h2", "http/1.1"],
  });
  const protocols: (string | null)[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      (async () => {
        const { alpnProtocol } = await conn.handshake();
        protocols.push(alpnProtocol);
        const buf = new Uint8Array(16 * 1024);
        let head = "";
        for (;;) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) break;
          head += new TextDecoder().decode(buf.subarray(0, n));
          while (head.includes("\r\n\r\n")) {
            head = head.slice(head.indexOf("\r\n\r\n") + 4); // GETs only: no request body
            const body = JSON.stringify({ metadata: { name: "n" } });
            await conn.write(new TextEncoder().encode(
              `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
            ));
          }
        }
        conn.close();
      })().catch(() => {});
    }
  })().catch(() => {});
  const port = (listener.addr as Deno.NetAddr).port;
  const client = new KubeClient({ config: { server: `https://127.0.0.1:${port}`, caPEM: certs.ca } });
  try {
    assert.equal((await client.get(CoreTypes.Namespace, "a")).metadata.name, "n");
    assert.equal((await client.get(CoreTypes.Namespace, "b")).metadata.name, "n");
    assert.deepEqual(protocols, ["http/1.1"], "one HTTP/1.1 connection, reused");
  } finally {
    client.close();
    listener.close();
    await serving;
    await Deno.remove(dir, { recursive: true });
  }
});
