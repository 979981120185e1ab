// Hostile clients against the operator's own servers on 127.0.0.1 — the health probe server, the metrics server
// (plain HTTP and --metrics-secure HTTPS) and the webhook server: a connection that dribbles its header or says
// nothing is closed after the header timeout, an idle keep-alive connection after the idle timeout; normal requests
// (and metrics auth) still work, and a scrape in progress is never cut.
import assert from "node:assert/strict";
import type { ConnectionDeadlines } from "../runtime/http/http_deadlines.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { type CertAuthority, type CertKeyPEM, createCA } from "../runtime/http/pki.ts";
import { EndpointsServer, type MetricsSource } from "../runtime/manager/probes.ts";
import { startRunnable } from "../runtime/manager/runnable.ts";
import { WebhookServer } from "../runtime/webhook/server.ts";
import { connectRaw, readUntilClosed, writeRaw } from "./support/raw_http.ts";

const DEADLINES: ConnectionDeadlines = { headerTimeoutMs: 300, idleTimeoutMs: 300 };
/** Far above the deadlines: a server that never hangs up fails the test instead of hanging it. */
const READ_DEADLINE_MS = 10_000;
/**
 * Below the 5 s keep-alive timeout node:http applies on its own (which would close an idle connection without the
 * fix, too), still more than ten times the injected idle deadline.
 */
const IDLE_READ_DEADLINE_MS = 4_000;
const TOKEN = "Bearer good-token";

let authority: { ca: CertAuthority; leaf: CertKeyPEM } | undefined;
async function serving() {
  if (!authority) {
    const ca = await createCA({ commonName: "servers-hostile-ca" });
    authority = { ca, leaf: await ca.issue({ commonName: "operator", hosts: ["127.0.0.1"], usage: "server" }) };
  }
  return authority;
}

interface Target {
  port: number;
  caPEM?: string;
  /** A complete request the server answers 200 and keeps the connection open after. */
  goodRequest: string;
  /** Checks that ordinary requests are served as before. */
  checkNormal(): Promise<void>;
  stop(): Promise<void>;
}

async function runUntilStopped(runnable: EndpointsServer | WebhookServer) {
  const stop = new AbortController();
  const run = startRunnable(runnable, stop.signal);
  await run.ready;
  return async () => {
    stop.abort();
    await run.done;
  };
}

async function probeServer(deadlines: ConnectionDeadlines): Promise<Target> {
  const server = new EndpointsServer({
    bindAddress: "127.0.0.1:0",
    liveness: true,
    readiness: () => ({ ok: true, checks: [{ name: "ping", ok: true }] }),
    name: "health probe",
    deadlines,
  });
  const stop = await runUntilStopped(server);
  return {
    port: server.addr!.port,
    goodRequest: "GET /healthz HTTP/1.1\r\nHost: probe\r\n\r\n",
    async checkNormal() {
      const ready = await fetch(`${server.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.equal(await ready.text(), "ok");
      const missing = await fetch(`${server.url}/nope`);
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
    },
    stop,
  };
}

async function metricsServer(
  deadlines: ConnectionDeadlines,
  secure: boolean,
  source: MetricsSource = new Metrics(),
): Promise<Target & { url: string; client?: Deno.HttpClient }> {
  const { ca, leaf } = await serving();
  const server = new EndpointsServer({
    bindAddress: "127.0.0.1:0",
    metrics: source,
    name: "metrics",
    deadlines,
    ...(secure
      ? {
        tls: () => Promise.resolve(leaf),
        authorizeMetrics: (req: Request) =>
          Promise.resolve(
            req.headers.get("authorization") === TOKEN ? undefined : new Response("no\n", { status: 401 }),
          ),
      }
      : {}),
  });
  const stop = await runUntilStopped(server);
  const client = secure ? Deno.createHttpClient({ caCerts: [ca.certPEM] }) : undefined;
  return {
    url: server.url!,
    client,
    port: server.addr!.port,
    caPEM: secure ? ca.certPEM : undefined,
    goodRequest: `GET /metrics HTTP/1.1\r\nHost: metrics\r\nAuthorization: ${TOKEN}\r\n\r\n`,
    async checkNormal() {
      const scrape = await fetch(`${server.url}/metrics`, { client, headers: { authorization: TOKEN } });
      assert.equal(scrape.status, 200);
      assert.equal(scrape.headers.get("content-type"), source.contentType);
      await scrape.body?.cancel();
      if (secure) {
        const anonymous = await fetch(`${server.url}/metrics`, { client });
        assert.equal(anonymous.status, 401, "metrics auth still guards /metrics");
        await anonymous.body?.cancel();
      }
    },
    async stop() {
      client?.close();
      await stop();
    },
  };
}

async function webhookServer(deadlines: ConnectionDeadlines): Promise<Target> {
  const { ca, leaf } = await serving();
  const server = new WebhookServer({
    bindAddress: "127.0.0.1:0",
    certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
    routes: [{ path: "/echo", serve: (body) => Promise.resolve({ status: 200, body }) }],
    deadlines,
  });
  const stop = await runUntilStopped(server);
  const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
  const body = '{"a":1}';
  return {
    port: Number(new URL(server.url!).port),
    caPEM: ca.certPEM,
    goodRequest:
      `POST /echo HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    async checkNormal() {
      const res = await fetch(`${server.url}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        client,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { a: 1 });
    },
    async stop() {
      client.close();
      await stop();
    },
  };
}

const TARGETS: [string, (d: ConnectionDeadlines) => Promise<Target>][] = [
  ["health probe server", probeServer],
  ["metrics server (HTTP)", (d) => metricsServer(d, false)],
  ["metrics server (--metrics-secure HTTPS)", (d) => metricsServer(d, true)],
  ["webhook server (HTTPS)", webhookServer],
];

for (const [name, start] of TARGETS) {
  Deno.test(`${name}: a connection dribbling its header, or saying nothing, is closed after the header timeout`, async () => {
    const target = await start(DEADLINES);
    try {
      const conn = await connectRaw(target);
      await writeRaw(conn, "GET /healthz HTTP/1.1\r\nX-Slow: ");
      // The traffic of the attack, not synchronisation: one more header byte every 50 ms until the server hangs up.
      const dribble = setInterval(() => void writeRaw(conn, "a"), 50);
      const answer = await readUntilClosed(conn, { deadlineMs: READ_DEADLINE_MS });
      clearInterval(dribble);
      assert.ok(answer.closedByServer, "the server never closed a connection whose header never ended");
      assert.equal(answer.status, 0);

      const silent = await connectRaw(target);
      const nothing = await readUntilClosed(silent, { deadlineMs: READ_DEADLINE_MS });
      assert.ok(nothing.closedByServer, "the server never closed a connection that sent nothing");
    } finally {
      await target.stop();
    }
  });

  Deno.test(`${name}: an idle keep-alive connection is closed after the idle timeout; requests are served`, async () => {
    const target = await start(DEADLINES);
    try {
      await target.checkNormal();
      const idle = await connectRaw(target);
      await writeRaw(idle, target.goodRequest);
      const answer = await readUntilClosed(idle, { deadlineMs: IDLE_READ_DEADLINE_MS });
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      assert.doesNotMatch(answer.text, /connection: close/i, "the answer itself keeps the connection open");
      assert.ok(answer.closedByServer, "the server never closed an idle keep-alive connection");
      await target.checkNormal();
    } finally {
      await target.stop();
    }
  });
}

for (const secure of [false, true]) {
  Deno.test(`metrics server (${secure ? "HTTPS" : "HTTP"}): a scrape in progress outlives both deadlines`, async () => {
    let rendering!: () => void;
    const started = new Promise<void>((resolve) => rendering = resolve);
    let finish!: (text: string) => void;
    const slow: MetricsSource = {
      contentType: "text/plain; version=0.0.4; charset=utf-8",
      render: () => {
        rendering();
        return new Promise<string>((resolve) => finish = resolve);
      },
    };
    const target = await metricsServer(DEADLINES, secure, slow);
    try {
      const scrape = fetch(`${target.url}/metrics`, { client: target.client, headers: { authorization: TOKEN } });
      scrape.catch(() => {}); // awaited below; a server that cut it must fail the test there, not as an unhandled error
      await started;
      // Opened after the scrape began: once the server closes it, the scrape's connection is past the deadlines.
      const silent = await connectRaw(target);
      const nothing = await readUntilClosed(silent, { deadlineMs: READ_DEADLINE_MS });
      assert.ok(nothing.closedByServer, "the server never closed a connection that sent nothing");
      finish("slow_metric 1\n");
      const res = await scrape;
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "slow_metric 1\n", "the scrape was cut");
    } finally {
      finish?.("");
      await target.stop();
    }
  });
}

Deno.test("health probe server: a request target starting with '//' is a path, not a host: it reaches no route", async () => {
  const target = await probeServer(DEADLINES);
  try {
    const conn = await connectRaw(target);
    await writeRaw(conn, "GET //evil/healthz HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n");
    const answer = await readUntilClosed(conn, { deadlineMs: READ_DEADLINE_MS });
    assert.equal(answer.status, 404, answer.text.slice(0, 200));
  } finally {
    await target.stop();
  }
});
