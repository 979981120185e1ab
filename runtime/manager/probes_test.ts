import assert from "node:assert/strict";
import tls from "node:tls";
import { eventually } from "../../testing/eventually.ts";
import { Metrics } from "../observe/metrics.ts";
import { createCA } from "../http/pki.ts";
import { type EndpointsOptions, EndpointsServer, parseBindAddress, type ProbeReport } from "./probes.ts";
import { startRunnable } from "./runnable.ts";

/** Starts an endpoints server and waits until it listens; `shutdown()` aborts it and waits for it to stop. */
async function serve(opts: EndpointsOptions) {
  const server = new EndpointsServer(opts);
  const stop = new AbortController();
  const run = startRunnable(server, stop.signal);
  await run.ready;
  return {
    url: server.url!,
    addr: server.addr!,
    async shutdown() {
      stop.abort();
      await run.done;
    },
  };
}

Deno.test("bind addresses: ':port' means all interfaces, '0' disables, garbage is rejected", () => {
  assert.deepEqual(parseBindAddress(":8081"), { hostname: "0.0.0.0", port: 8081 });
  assert.deepEqual(parseBindAddress("127.0.0.1:0"), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseBindAddress("[::1]:8080"), { hostname: "::1", port: 8080 });
  assert.deepEqual(parseBindAddress("localhost:9090"), { hostname: "localhost", port: 9090 });
  assert.equal(parseBindAddress("0"), undefined);
  assert.equal(parseBindAddress(""), undefined);
  for (const bad of ["8080", "host:", ":99999", "a:b", "1.2.3.4:80:90"]) {
    assert.throws(() => parseBindAddress(bad), /invalid bind address/, bad);
  }
});

Deno.test("an endpoints server refuses the '0' (disabled) bind address", () => {
  assert.throws(() => new EndpointsServer({ bindAddress: "0", liveness: true }), /bind address "0"/);
});

Deno.test("/readyz fails with kube-style reasons until ready; /healthz answers while alive", async () => {
  let report: ProbeReport = {
    ok: false,
    checks: [
      { name: "ping", ok: true },
      { name: "informer-sync", ok: false, reason: "not synced: pods ns=default" },
    ],
  };
  const server = await serve({ bindAddress: "127.0.0.1:0", liveness: true, readiness: () => report });
  try {
    assert.notEqual(server.addr.port, 0);
    const notReady = await fetch(`${server.url}/readyz`);
    assert.equal(notReady.status, 500);
    assert.equal(
      await notReady.text(),
      "[+]ping ok\n[-]informer-sync failed: not synced: pods ns=default\nreadyz check failed\n",
    );

    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), "ok");

    report = { ok: true, checks: [{ name: "ping", ok: true }, { name: "informer-sync", ok: true }] };
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(await ready.text(), "ok");
    const verbose = await fetch(`${server.url}/readyz?verbose`);
    assert.equal(await verbose.text(), "[+]ping ok\n[+]informer-sync ok\nreadyz check passed\n");

    const metrics = await fetch(`${server.url}/metrics`);
    assert.equal(metrics.status, 404, "metrics are not served where no registry was given");
    await metrics.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("a readiness callback that throws reports not ready instead of crashing", async () => {
  const server = await serve({
    bindAddress: "127.0.0.1:0",
    readiness: () => {
      throw new Error("boom");
    },
  });
  try {
    const res = await fetch(`${server.url}/readyz`);
    assert.equal(res.status, 500);
    assert.match(await res.text(), /\[-\]probe failed: Error: boom/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("/metrics serves the registry's text format with its content type", async () => {
  const metrics = new Metrics();
  metrics.leaderElectionMasterStatus.set({ name: "kubeop" }, 1);
  const server = await serve({ bindAddress: "127.0.0.1:0", metrics });
  try {
    const res = await fetch(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), metrics.contentType);
    assert.match(await res.text(), /^leader_election_master_status\{name="kubeop"\} 1$/m);
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 404);
    await health.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("listening on a taken port fails with the address in the error", async () => {
  const first = await serve({ bindAddress: "127.0.0.1:0", liveness: true });
  try {
    const second = new EndpointsServer({
      bindAddress: `127.0.0.1:${first.addr.port}`,
      liveness: true,
      name: "health probe",
    });
    const run = startRunnable(second, new AbortController().signal);
    await assert.rejects(run.ready, /health probe server: cannot listen on 127\.0\.0\.1:\d+/);
    await assert.rejects(run.done, /health probe server: cannot listen/, "start() fails with the same error");
  } finally {
    await first.shutdown();
  }
});

Deno.test("a server stopped while its certificate is being made ends instead of hanging", async () => {
  let certAsked!: () => void;
  const asked = new Promise<void>((resolve) => certAsked = resolve);
  let giveCert!: () => void;
  const server = new EndpointsServer({
    bindAddress: "127.0.0.1:0",
    metrics: new Metrics(),
    name: "metrics",
    tls: () => {
      certAsked();
      // The certificate arrives only after the stop (slow key generation on a loaded machine).
      return new Promise((resolve) => giveCert = () => resolve({ certPEM: "unused", keyPEM: "unused" }));
    },
  });
  const stop = new AbortController();
  const run = startRunnable(server, stop.signal);
  await asked;
  stop.abort();
  giveCert();
  await run.done; // before the fix: Deno.serve got an already-aborted signal and `finished` never settled
  assert.equal(server.url, undefined, "it never listened");
});

Deno.test("HEAD answers without a body; other methods get 405 and a body sent with them is never read", async () => {
  const server = await serve({ bindAddress: "127.0.0.1:0", liveness: true });
  try {
    const head = await fetch(`${server.url}/healthz`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const post = await fetch(`${server.url}/healthz`, { method: "POST", body: "x".repeat(100_000) });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("connection"), "close");
    assert.equal(await post.text(), "method not allowed\n");
    const again = await fetch(`${server.url}/livez`);
    assert.equal(again.status, 200);
    assert.equal(await again.text(), "ok");
  } finally {
    await server.shutdown();
  }
});

Deno.test("metrics over HTTPS speak TLS 1.2 and 1.3 and nothing older is configured", async () => {
  const ca = await createCA({ commonName: "metrics-test-ca" });
  const leaf = await ca.issue({ commonName: "metrics", hosts: ["127.0.0.1"], usage: "server" });
  const server = await serve({ bindAddress: "127.0.0.1:0", metrics: new Metrics(), tls: () => Promise.resolve(leaf) });
  try {
    assert.match(server.url, /^https:/);
    const negotiate = (maxVersion: "TLSv1.2" | "TLSv1.3") =>
      new Promise<string>((resolve) => {
        const socket = tls.connect({ host: "127.0.0.1", port: server.addr.port, maxVersion, ca: [ca.certPEM] });
        socket.once("secureConnect", () => {
          resolve(String(socket.getProtocol()));
          socket.destroy();
        });
        socket.once("error", (err) => resolve(`refused: ${err.message}`));
      });
    assert.equal(await negotiate("TLSv1.2"), "TLSv1.2");
    assert.equal(await negotiate("TLSv1.3"), "TLSv1.3");
  } finally {
    await server.shutdown();
  }
});

Deno.test("stopping lets a scrape in flight finish, then refuses connections", async () => {
  let rendering!: () => void;
  const started = new Promise<void>((resolve) => rendering = resolve);
  let finish!: (text: string) => void;
  const server = await serve({
    bindAddress: "127.0.0.1:0",
    metrics: {
      contentType: "text/plain",
      render: () => {
        rendering();
        return new Promise<string>((resolve) => finish = resolve);
      },
    },
  });
  const scrape = fetch(`${server.url}/metrics`);
  scrape.catch(() => {}); // awaited below
  await started;
  const stopped = server.shutdown();
  let done = false;
  void stopped.then(() => done = true);
  await eventually("the listener to refuse new connections", async () => {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port })).close();
      return false;
    } catch {
      return true;
    }
  });
  assert.equal(done, false, "stop did not wait for the scrape in flight");
  finish("slow_metric 1\n");
  const res = await scrape;
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "slow_metric 1\n");
  await stopped;
});
