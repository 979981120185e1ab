/**
 * The controller end to end over real HTTP: KubeClient + InformerRegistry (list + watch) against a tiny configmap
 * server whose watch stream the test can hold back, to show the read-your-own-writes gate with a real cache.
 */
import assert from "node:assert/strict";
import { KubeClient } from "../client/client.ts";
import { RealClock } from "../clock.ts";
import type { ConfigMap } from "../builtin_types.ts";
import { Controller, done } from "./controller.ts";
import { InformerRegistry } from "../cache/informers.ts";
import { Metrics } from "../observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../types.ts";
import { eventually } from "../../testing/eventually.ts";

const enc = new TextEncoder();
const BASE = "/api/v1/namespaces/ns/configmaps";

/** Configmaps in namespace `ns` (listed and watched across namespaces too): list, watch (with history replay), get and PUT with RV precondition. */
class ConfigMapServer {
  objects = new Map<string, KubeObject>();
  history: { rv: number; frame: Uint8Array }[] = [];
  streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  held: Uint8Array[] = [];
  hold = false;
  rv = 10;
  server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => this.handle(req));

  get url() {
    return `http://127.0.0.1:${this.server.addr.port}`;
  }

  put(obj: KubeObject, type: "ADDED" | "MODIFIED") {
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(stored.metadata.name!, stored);
    const frame = enc.encode(JSON.stringify({ type, object: stored }) + "\n");
    this.history.push({ rv: this.rv, frame });
    if (this.hold) this.held.push(frame);
    else for (const s of this.streams) s.enqueue(frame);
    return stored;
  }

  release() {
    this.hold = false;
    for (const frame of this.held.splice(0)) for (const s of this.streams) s.enqueue(frame);
  }

  handle(req: Request): Response | Promise<Response> {
    const url = new URL(req.url);
    const collection = url.pathname === BASE || url.pathname === "/api/v1/configmaps";
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    if (collection && req.method === "GET" && url.searchParams.get("watch")) {
      const from = Number(url.searchParams.get("resourceVersion") ?? "0");
      let ctrl!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start: (c) => {
          ctrl = c;
          this.streams.add(c);
          for (const h of this.history) if (h.rv > from && !this.held.includes(h.frame)) c.enqueue(h.frame);
        },
        cancel: () => void this.streams.delete(ctrl),
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    }
    if (collection && req.method === "GET") {
      return json({
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: { resourceVersion: String(this.rv) },
        items: [...this.objects.values()],
      });
    }
    const name = url.pathname.slice(BASE.length + 1);
    if (req.method === "PUT") {
      return req.json().then((obj: KubeObject) => {
        const current = this.objects.get(name);
        if (!current || current.metadata.resourceVersion !== obj.metadata.resourceVersion) {
          return json({ kind: "Status", apiVersion: "v1", status: "Failure", code: 409, reason: "Conflict" }, 409);
        }
        return json(this.put(obj, "MODIFIED"));
      });
    }
    return json({ kind: "Status", apiVersion: "v1", status: "Failure", code: 404, reason: "NotFound" }, 404);
  }

  async stop() {
    for (const s of this.streams) {
      try {
        s.close();
      } catch { /* already closed */ }
    }
    await this.server.shutdown();
  }
}

Deno.test("over HTTP, the reconcile after our own write waits until the watch delivers it", async () => {
  const server = new ConfigMapServer();
  server.put({ metadata: { name: "cm", namespace: "ns", uid: "u1" }, data: {} }, "ADDED");
  const clock = new RealClock();
  const client = new KubeClient({ config: { server: server.url }, clock });
  const metrics = new Metrics();
  const informers = new InformerRegistry({ client, clock, watchList: false });
  const seen: (string | undefined)[] = [];
  const controller = new Controller<ConfigMap>({
    name: "stamp",
    for: CoreTypes.ConfigMap,
    reconcile: async (ctx) => {
      seen.push(ctx.object?.data?.stamp);
      if (ctx.object && !ctx.object.data?.stamp) {
        server.hold = true; // our write's watch event is held back
        await ctx.client.update(CoreTypes.ConfigMap, { ...ctx.object, data: { stamp: "1" } });
      }
      return done();
    },
    deps: { client, informers, clock, metrics, recorder: { event() {} } },
  });
  const ac = new AbortController();
  const running = Promise.all([informers.start(ac.signal), controller.start(ac.signal)]);
  try {
    await eventually("first reconcile and its write", () => seen.length === 1 && server.hold);
    controller.enqueue("ns/cm"); // something else asks for the key while the cache is stale
    const deadline = Date.now() + 300;
    await eventually("a chance to run early", () => seen.length > 1 || Date.now() > deadline);
    server.release();
    await eventually("second reconcile", () => seen.length >= 2);
    assert.deepEqual(seen.slice(0, 2), [undefined, "1"], "the second reconcile saw its own write");
    assert.equal(await metrics.value("kubeop_read_your_writes_timeouts_total"), 0);
    assert.equal(
      await metrics.value("controller_runtime_reconcile_total", { controller: "stamp", result: "success" }) >= 2,
      true,
    );
  } finally {
    ac.abort();
    await server.stop();
    await running;
    client.close();
  }
});
