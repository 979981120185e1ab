// Informers against a REAL kube-apiserver (scripts/k8s-bin.sh): WatchList or list, events, watch restart
// without relist, metadata-only, label selectors, InformerRegistry; and the list fallback with the WatchList gate off.
import assert from "node:assert/strict";
import { Informer } from "../../runtime/cache/cache.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { InformerRegistry } from "../../runtime/cache/informers.ts";
import { loadKubeconfigFile, parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { Metrics } from "../../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import { connectProxy } from "../support/connect_proxy.ts";
import {
  binDirWithApiServerFlags,
  cacheView,
  configMap,
  createNamespace,
  freshList,
  poll,
  quietLogger,
  RecordingMetrics,
  rewriteKubeconfig,
  run,
  sameMap,
  seededRandom,
  startTcpProxy,
  withRealCluster,
} from "./support_real.ts";

const binDir = await realClusterBinDir();

/** A ConfigMap informer on `ns` through `client`, its metrics recorded, its logs quiet. */
const configMapInformer = (client: KubeClient, ns: string, metrics: RecordingMetrics) =>
  new Informer({ client, resource: CoreTypes.ConfigMap, namespace: ns, metrics, logger: quietLogger });

Deno.test({
  name: "real cluster: runtime informers against kube-apiserver",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await withRealCluster({
      binDir: binDir!,
      namespaces: ["informer-burst", "informer-cut", "informer-proxy", "informer-meta", "informer-label"],
    }, async ({ cluster, client }) => {
      await t.step("informer: initial sync, create/update/delete events, store equals a fresh list", async () => {
        const ns = "informer-burst";
        await createNamespace(client, ns);
        for (let i = 0; i < 5; i++) await client.create(CoreTypes.ConfigMap, configMap(ns, `pre-${i}`, "0"));
        const metrics = new RecordingMetrics();
        const informer = new Informer({
          client,
          resource: CoreTypes.ConfigMap,
          namespace: ns,
          metrics,
          logger: quietLogger,
        });
        // A mirror built only from handler calls proves the events themselves arrive (not just the store).
        const mirror = new Map<string, string>();
        const seen = { added: 0, modified: 0, deleted: 0, synced: 0 };
        const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
        informer.addHandler({
          added: (o) => void (seen.added++, mirror.set(key(o), o.metadata.resourceVersion!)),
          modified: (_old, o) => void (seen.modified++, mirror.set(key(o), o.metadata.resourceVersion!)),
          deleted: (o) => void (seen.deleted++, mirror.delete(key(o))),
          synced: () => void seen.synced++,
        });
        const stop = run(informer);
        try {
          await poll("initial sync", () => informer.hasSynced());
          assert.equal(informer.store.size, 5);
          assert.equal(seen.synced, 1);
          const path = metrics.relists.includes("watchlist-fallback") ? "list (WatchList refused)" : "WatchList";
          console.log(`  initial sync path on the real server: ${path}; relists: [${metrics.relists.join(",")}]`);
          // From v1.34 kube-apiserver serves WatchList by default (BETA, default on): the informer syncs from the
          // watch's initial events with no list. The list fallback is proven below with the gate off.
          assert.deepEqual(metrics.relists, [], `unexpected relists: ${metrics.relists.join(",")}`);
          const relistsAfterSync = metrics.relists.length;

          // A burst of random writes with a fixed seed: creates, updates and deletes over 12 names.
          const random = seededRandom(20261123);
          const live = new Set(Array.from({ length: 5 }, (_, i) => `pre-${i}`));
          const counts = { create: 0, update: 0, delete: 0 };
          for (let i = 0; i < 80; i++) {
            const name = `pre-${Math.floor(random() * 12)}`;
            if (!live.has(name)) {
              await client.create(CoreTypes.ConfigMap, configMap(ns, name, String(i)));
              live.add(name);
              counts.create++;
            } else if (random() < 0.7) {
              const current = await client.get<KubeObject>(CoreTypes.ConfigMap, name, { namespace: ns });
              await client.update(CoreTypes.ConfigMap, { ...current, data: { value: String(i) } });
              counts.update++;
            } else {
              await client.delete(CoreTypes.ConfigMap, name, { namespace: ns });
              live.delete(name);
              counts.delete++;
            }
          }
          const expected = await freshList(client, ns);
          await poll(
            "cache and handler mirror equal a fresh list",
            () => sameMap(cacheView(informer), expected) && sameMap(mirror, expected),
          );
          assert.equal(expected.size, live.size);
          assert.ok(seen.added >= 5 + counts.create, `added ${seen.added} < ${5 + counts.create}`);
          assert.ok(seen.deleted >= counts.delete, `deleted ${seen.deleted} < ${counts.delete}`);
          assert.ok(seen.modified >= 1 && counts.update >= 1);
          const health = informer.health();
          assert.equal(health.state, "Watching");
          assert.equal(health.synced, true);
          assert.equal(health.consecutiveFailures, 0);
          assert.equal(metrics.relists.length, relistsAfterSync, "no relist during the burst");
        } finally {
          await stop();
        }
      });

      await t.step("informer: a cut watch resumes from its resourceVersion without a relist", async () => {
        const ns = "informer-cut";
        await createNamespace(client, ns);
        await client.create(CoreTypes.ConfigMap, configMap(ns, "before", "1"));
        const port = Number(new URL(cluster.url).port);
        const proxy = startTcpProxy({ hostname: "127.0.0.1", port });
        const viaProxy = new KubeClient({
          config: await parseKubeconfig(
            rewriteKubeconfig(cluster.kubeconfig, { server: `https://127.0.0.1:${proxy.port}` }),
          ),
        });
        const metrics = new RecordingMetrics();
        const informer = configMapInformer(viaProxy, ns, metrics);
        const stop = run(informer);
        try {
          await poll("sync through the proxy", () => informer.hasSynced() && informer.health().state === "Watching");
          const relistsBefore = metrics.relists.length;
          // Cut until the watch has noticed (its stream connection may be re-established in between).
          await poll("watch restart after the cut", () => {
            proxy.cutAll();
            return metrics.restarts.length > 0;
          }, { deadlineMs: 20_000, intervalMs: 200 });
          // Writes made while the watch is down arrive once it resumes at the remembered RV.
          await client.create(CoreTypes.ConfigMap, configMap(ns, "during", "2"));
          const expected = await freshList(client, ns);
          await poll("cache caught up after the restart", () => sameMap(cacheView(informer), expected), {
            deadlineMs: 30_000,
          });
          await poll("watching again", () => informer.health().state === "Watching", { deadlineMs: 30_000 });
          console.log(`  watch restarts after cutting the connection: [${metrics.restarts.join(",")}]`);
          assert.equal(metrics.relists.length, relistsBefore, `resumed without relist: ${metrics.relists.join(",")}`);
        } finally {
          await stop();
          viaProxy.close();
          await proxy.close();
        }
      });

      await t.step(
        "informer: through an HTTPS_PROXY tunnel every event arrives on one watch (no gzip cut)",
        async () => {
          // kube-apiserver gzips a watch for a client that asks (writes over its 128 KiB threshold), one gzip member
          // per flush; Deno's fetch (the proxied transport) ended such a body after its first member, so the watch
          // was re-opened after it. The ConfigMaps are large enough to be compressed.
          const large = (i: number) => `${i}`.padEnd(150 * 1024, "x");
          const ns = "informer-proxy";
          await createNamespace(client, ns);
          const proxy = connectProxy();
          const viaProxy = new KubeClient({
            config: await parseKubeconfig(cluster.kubeconfig),
            proxyEnv: { get: (k) => ({ HTTPS_PROXY: proxy.url })[k] },
          });
          const metrics = new RecordingMetrics();
          const informer = configMapInformer(viaProxy, ns, metrics);
          for (let i = 0; i < 3; i++) await client.create(CoreTypes.ConfigMap, configMap(ns, `pre-${i}`, large(i)));
          const stop = run(informer);
          try {
            await poll("sync through the CONNECT proxy", () => informer.hasSynced());
            for (let i = 0; i < 20; i++) await client.create(CoreTypes.ConfigMap, configMap(ns, `cm-${i}`, large(i)));
            const expected = await freshList(client, ns);
            await poll("every event through the tunnel", () => sameMap(cacheView(informer), expected));
            assert.ok(proxy.tunnels.length > 0, "the informer went through the proxy");
            // A WatchList cut before its initial-events-end bookmark falls back to a list (cause watchlist-fallback).
            assert.deepEqual(metrics.relists, [], "the WatchList delivered the initial state whole");
            const restarts = metrics.restarts.filter((r) => r !== "window-end"); // the 15–22 s window may pass
            assert.deepEqual(restarts, [], "one watch carried every event");
            assert.equal(informer.health().state, "Watching");
          } finally {
            await stop();
            viaProxy.close();
            await proxy.close();
          }
        },
      );

      await t.step("metadata-only informer stores PartialObjectMetadata from the real server", async () => {
        const ns = "informer-meta";
        await createNamespace(client, ns);
        await client.create(CoreTypes.Secret, {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "s1", namespace: ns, labels: { app: "x" } },
          stringData: { password: "not-in-the-cache" },
        });
        const informer = new Informer({
          client,
          resource: CoreTypes.Secret,
          namespace: ns,
          metadataOnly: true,
          logger: quietLogger,
        });
        const stop = run(informer);
        try {
          await poll("metadata informer sync", () => informer.hasSynced());
          const s1 = informer.store.get(`${ns}/s1`);
          assert.ok(s1);
          assert.equal(s1.kind, "PartialObjectMetadata");
          assert.equal(s1.apiVersion, "meta.k8s.io/v1");
          assert.deepEqual(s1.metadata.labels, { app: "x" });
          assert.equal((s1 as KubeObject & { data?: unknown }).data, undefined);
          const created = await client.create<KubeObject>(CoreTypes.Secret, {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "s2", namespace: ns },
          });
          assert.ok(
            await informer.waitForResourceVersion(`${ns}/s2`, created.metadata.resourceVersion!, { timeoutMs: 10_000 }),
          );
          assert.equal(informer.store.get(`${ns}/s2`)?.kind, "PartialObjectMetadata");
          await client.delete(CoreTypes.Secret, "s1", { namespace: ns });
          assert.ok(await informer.waitForDeletion(s1.metadata.uid!, { timeoutMs: 10_000 }));
        } finally {
          await stop();
        }
      });

      await t.step("InformerRegistry: shared informers sync and report health", async () => {
        const metrics = new Metrics();
        const registry = new InformerRegistry({ client, metrics, logger: quietLogger });
        const namespaces = registry.get(CoreTypes.Namespace);
        assert.equal(registry.get(CoreTypes.Namespace), namespaces, "one informer per resource and scope");
        registry.get(CoreTypes.ConfigMap, { namespace: "informer-burst" });
        const stop = run(registry);
        try {
          await registry.waitForSync(20_000);
          assert.ok(registry.hasSynced());
          assert.ok(namespaces.store.get("kube-system"));
          const late = registry.get(CoreTypes.Lease, { namespace: "kube-system" });
          await poll("late informer sync", () => late.hasSynced());
          const health = registry.health();
          assert.equal(health.length, 3);
          assert.ok(health.every((h) => h.synced && h.consecutiveFailures === 0), JSON.stringify(health));
        } finally {
          await stop();
        }
      });

      await t.step(
        "label-selected informer: an object relabelled out of the selector is deleted from the cache",
        async () => {
          const ns = "informer-label";
          await createNamespace(client, ns);
          await client.create(CoreTypes.ConfigMap, configMap(ns, "in", "1", { tier: "a" }));
          await client.create(CoreTypes.ConfigMap, configMap(ns, "out", "1", { tier: "b" }));
          const informer = new Informer({
            client,
            resource: CoreTypes.ConfigMap,
            namespace: ns,
            labelSelector: "tier=a",
            logger: quietLogger,
          });
          const deleted: string[] = [];
          const added: string[] = [];
          informer.addHandler({
            added: (o) => void added.push(o.metadata.name!),
            deleted: (o) => void deleted.push(o.metadata.name!),
          });
          const stop = run(informer);
          try {
            await poll("label informer sync", () => informer.hasSynced());
            assert.deepEqual(informer.store.keys(), [`${ns}/in`]);
            await client.patch(CoreTypes.ConfigMap, "in", { metadata: { labels: { tier: "b" } } }, {
              namespace: ns,
              type: "merge",
            });
            await client.patch(CoreTypes.ConfigMap, "out", { metadata: { labels: { tier: "a" } } }, {
              namespace: ns,
              type: "merge",
            });
            await poll(
              "selector membership swapped",
              () => informer.store.keys().join() === `${ns}/out` && deleted.includes("in") && added.includes("out"),
            );
          } finally {
            await stop();
          }
        },
      );
    });
  },
});

Deno.test({
  name:
    "real cluster with --feature-gates=WatchList=false: sendInitialEvents is refused, the informer falls back to one list",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const bin = await binDirWithApiServerFlags(binDir!, ["--feature-gates=WatchList=false"]);
    const cluster = await startRealCluster({ binDir: bin.dir });
    const client = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath) });
    try {
      const ns = "watchlist";
      await createNamespace(client, ns);
      for (let i = 0; i < 30; i++) await client.create(CoreTypes.ConfigMap, configMap(ns, `cm-${i}`, String(i)));
      const metrics = new RecordingMetrics();
      const informer = new Informer({
        client,
        resource: CoreTypes.ConfigMap,
        namespace: ns,
        metrics,
        logger: quietLogger,
      });
      const synced: number[] = [];
      informer.addHandler({ synced: () => void synced.push(informer.store.size) });
      const stop = run(informer);
      try {
        await poll("list fallback sync", () => informer.hasSynced());
        assert.deepEqual(metrics.relists, ["watchlist-fallback"], "WatchList refused: exactly one fallback list");
        assert.deepEqual(synced, [30], "synced once, after every initial event");
        assert.equal(informer.health().state, "Watching");
        await client.delete(CoreTypes.ConfigMap, "cm-0", { namespace: ns });
        await client.create(CoreTypes.ConfigMap, configMap(ns, "late", "x"));
        const expected = await freshList(client, ns);
        await poll("cache equals a fresh list", () => sameMap(cacheView(informer), expected));
        assert.deepEqual(metrics.relists, ["watchlist-fallback"], "no further relist once watching");
        assert.deepEqual(metrics.restarts, []);
      } finally {
        await stop();
      }
    } finally {
      client.close();
      await cluster.stop();
      await bin.remove();
    }
  },
});
