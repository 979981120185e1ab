/**
 * One transport decision for unary calls and watches: with `HTTPS_PROXY` set, a watch reaches the API server through
 * the proxy's CONNECT tunnel as a GET does; with the server in `NO_PROXY`, both dial directly. The proxy variables
 * come from the client's `proxyEnv`, not the process environment (other test files run in this process).
 */
import assert from "node:assert/strict";
import { KubeClient } from "./client.ts";
import { createCA } from "../http/pki.ts";
import { CoreTypes, type WatchEvent } from "../types.ts";
import { connectProxy } from "../../tests/support/connect_proxy.ts";

/** An HTTPS API server stub on 127.0.0.1: a GET answers an object, a watch two events and the end of the stream. */
async function tlsApiServer() {
  const ca = await createCA({ commonName: "proxy-test-ca" });
  const leaf = await ca.issue({ commonName: "127.0.0.1", hosts: ["127.0.0.1"], usage: "server" });
  const requests: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: leaf.certPEM, key: leaf.keyPEM, onListen() {} },
    (req) => {
      const url = new URL(req.url);
      requests.push(`${req.method} ${url.pathname}${url.searchParams.has("watch") ? "?watch" : ""}`);
      if (!url.searchParams.has("watch")) return Response.json({ metadata: { name: "a", namespace: "ns" } });
      if (url.searchParams.get("labelSelector") === "hang") {
        // One event, then nothing until the client goes away.
        const first = JSON.stringify({ type: "ADDED", object: { metadata: { name: "h", resourceVersion: "1" } } });
        return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(first + "\n")) }));
      }
      const lines = ["1", "2"].map((rv) =>
        JSON.stringify({ type: "ADDED", object: { metadata: { name: `cm${rv}`, resourceVersion: rv } } }) + "\n"
      );
      return new Response(new Blob(lines).stream(), { headers: { "content-type": "application/json" } });
    },
  );
  return { url: `https://127.0.0.1:${server.addr.port}`, caPEM: ca.certPEM, requests, close: () => server.shutdown() };
}

async function watchAll(client: KubeClient): Promise<string[]> {
  const names: string[] = [];
  await client.watchStream(CoreTypes.ConfigMap, { namespace: "ns" }, (e: WatchEvent) => {
    names.push(`${e.type} ${e.object.metadata.name}`);
  });
  return names;
}

Deno.test("a watch goes through the HTTPS_PROXY tunnel like a unary call; NO_PROXY sends both direct", async () => {
  const api = await tlsApiServer();
  const proxy = connectProxy();
  const origin = api.url.replace("https://", "");
  const config = { server: api.url, caPEM: api.caPEM };
  const proxied = new KubeClient({ config, proxyEnv: { get: (k) => ({ HTTPS_PROXY: proxy.url })[k] } });
  const direct = new KubeClient({
    config,
    proxyEnv: { get: (k) => ({ HTTPS_PROXY: proxy.url, NO_PROXY: "localhost,127.0.0.1" })[k] },
  });
  try {
    assert.deepEqual(await watchAll(proxied), ["ADDED cm1", "ADDED cm2"]);
    assert.deepEqual(proxy.tunnels, [origin], "the watch went through the proxy");
    await proxied.get(CoreTypes.ConfigMap, "a", { namespace: "ns" });
    assert.ok(proxy.tunnels.length >= 1 && proxy.tunnels.every((t) => t === origin));
    const viaProxy = proxy.tunnels.length;

    assert.deepEqual(await watchAll(direct), ["ADDED cm1", "ADDED cm2"]);
    await direct.get(CoreTypes.ConfigMap, "a", { namespace: "ns" });
    assert.equal(proxy.tunnels.length, viaProxy, "NO_PROXY: neither the watch nor the GET used the proxy");
    assert.deepEqual(api.requests.filter((r) => r.endsWith("?watch")).length, 2);

    // Aborting a proxied watch ends it with the abort's reason, as on a direct connection.
    const stop = new AbortController();
    const seen = Promise.withResolvers<void>();
    const watching = proxied.watchStream(
      CoreTypes.ConfigMap,
      { namespace: "ns", labelSelector: "hang", signal: stop.signal },
      () => seen.resolve(),
    );
    await seen.promise;
    stop.abort(new Error("stopped by the test"));
    await assert.rejects(watching, /stopped by the test/);
  } finally {
    proxied.close();
    direct.close();
    await proxy.close();
    await api.close();
  }
});
