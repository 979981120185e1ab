import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client/client.ts";
import { Manager } from "../runtime/manager/manager.ts";
import type { ResourceType } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";

const configMaps: ResourceType = {
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};

/** A server that answers lists empty and holds watches open (WatchList ones after the initial-events-end bookmark). */
function recordingServer() {
  const urls: URL[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    urls.push(url);
    if (url.searchParams.get("watch") !== "true") {
      return Response.json({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "5" }, items: [] });
    }
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        if (url.searchParams.get("sendInitialEvents") === "true") {
          const bookmark = {
            type: "BOOKMARK",
            object: {
              kind: "ConfigMap",
              apiVersion: "v1",
              metadata: { resourceVersion: "5", annotations: { "k8s.io/initial-events-end": "true" } },
            },
          };
          c.enqueue(new TextEncoder().encode(JSON.stringify(bookmark) + "\n"));
        }
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  return { urls, server, url: `http://127.0.0.1:${server.addr.port}` };
}

for (const watchList of [undefined, false] as const) {
  Deno.test(`Manager watchList ${watchList ?? "default"}: the caches start with ${watchList === false ? "a list" : "WatchList"}`, async () => {
    const s = recordingServer();
    const client = new KubeClient({ config: { server: s.url } });
    const manager = new Manager({ client, watchList, healthProbeBindAddress: "0", metricsBindAddress: "0" });
    manager.informers.get(configMaps);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await eventually("the caches to sync", () => manager.readiness().ok);
      const first = s.urls.find((u) => u.pathname === "/api/v1/configmaps")!;
      if (watchList === false) {
        assert.equal(first.searchParams.get("watch"), null, "a list first");
        assert.equal(first.searchParams.get("limit"), "500");
      } else {
        assert.equal(first.searchParams.get("watch"), "true");
        assert.equal(first.searchParams.get("sendInitialEvents"), "true");
      }
    } finally {
      stop.abort();
      await running;
      client.close();
      await s.server.shutdown();
    }
  });
}
