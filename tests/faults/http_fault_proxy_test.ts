import assert from "node:assert/strict";
import { startFakeApiServer } from "../../testing/mod.ts";
import { createServerPki } from "../../testing/apiserver/server_pki.ts";
import { HttpFaultProxy, verbOf } from "./http_fault_proxy.ts";

const UA = "http-fault-proxy-test";

/** A TLS fake server behind an HttpFaultProxy, and a fetch client that trusts the proxy's certificate. */
async function setup() {
  const server = await startFakeApiServer({ tls: true, token: "t0ken" });
  const pki = await createServerPki();
  const proxy = HttpFaultProxy.start({
    upstream: server.url,
    caCert: server.caPEM!,
    cert: pki.serving.certPEM,
    key: pki.serving.keyPEM,
    countUserAgent: UA,
  });
  const client = Deno.createHttpClient({ caCerts: [pki.caPEM] });
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`https://127.0.0.1:${proxy.port}${path}`, {
      ...init,
      client,
      headers: { authorization: "Bearer t0ken", "user-agent": UA, "content-type": "application/json" },
    });
  return {
    server,
    proxy,
    call,
    async close() {
      client.close();
      await proxy.close();
      await server.stop();
    },
  };
}

Deno.test("verbOf names kube's verbs from method and watch parameter", () => {
  const u = (q: string) => new URL(`https://x/api/v1/pods${q}`);
  assert.equal(verbOf("GET", u("?watch=true")), "watch");
  assert.equal(verbOf("GET", u("")), "get");
  assert.equal(verbOf("PUT", u("")), "update");
  assert.equal(verbOf("PATCH", u("")), "patch");
});

Deno.test("HttpFaultProxy forwards and counts, answers injected faults with kube's Status, then forwards again", async () => {
  const env = await setup();
  try {
    const ok = await env.call("/api/v1/namespaces/default");
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).metadata.name, "default");
    env.proxy.inject({ code: 429, retryAfterSeconds: 1 });
    const throttled = await env.call("/api/v1/namespaces/default");
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get("retry-after"), "1");
    assert.equal((await throttled.json()).reason, "TooManyRequests");
    env.proxy.clear();
    env.proxy.inject({ verb: "update", code: 409 });
    const ns = await (await env.call("/api/v1/namespaces/default")).json();
    const conflict = await env.call("/api/v1/namespaces/default", { method: "PUT", body: JSON.stringify(ns) });
    assert.equal(conflict.status, 409);
    assert.equal((await conflict.json()).reason, "Conflict");
    env.proxy.clear();
    assert.equal(env.proxy.calls, 4);
    assert.equal(env.proxy.callsByVerb.get("update"), 1);
  } finally {
    await env.close();
  }
});

Deno.test("HttpFaultProxy.expireWatches ends open watches and answers an older re-watch with a 410 ERROR event", async () => {
  const env = await setup();
  try {
    const list = await (await env.call("/api/v1/namespaces")).json();
    const rv = Number(list.metadata.resourceVersion);
    const watch = await env.call(`/api/v1/namespaces?watch=true&resourceVersion=${rv}`);
    assert.equal(watch.status, 200);
    const drained = watch.body!.pipeTo(new WritableStream()); // ends when the proxy ends the stream
    env.server.store.create({ group: "", version: "v1", plural: "namespaces" }, { metadata: { name: "bump" } });
    assert.equal(env.proxy.expireWatches(rv + 1), 1);
    await drained;
    const again = await env.call(`/api/v1/namespaces?watch=true&resourceVersion=${rv}`);
    const frame = JSON.parse((await again.text()).trim());
    assert.equal(frame.type, "ERROR");
    assert.equal(frame.object.code, 410);
    assert.equal(frame.object.reason, "Expired");
    assert.equal(env.proxy.expired, 1);
  } finally {
    await env.close();
  }
});
