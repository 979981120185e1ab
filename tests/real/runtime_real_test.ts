// The runtime against a REAL kube-apiserver v1.33 (scripts/k8s-bin.sh): informers (WatchList or list, events,
// watch restart without relist, metadata-only), InformerRegistry, Lease leader election, events.k8s.io recorder.
import assert from "node:assert/strict";
import { Informer, type InformerMetrics } from "../../runtime/cache.ts";
import { KubeClient } from "../../runtime/client.ts";
import { RealClock } from "../../runtime/clock.ts";
import { ApiError, isAlreadyExists, isConflict, isForbidden, isInvalid, isNotFound } from "../../runtime/errors.ts";
import { KubeEventRecorder } from "../../runtime/events.ts";
import { InformerRegistry } from "../../runtime/informers.ts";
import { loadKubeconfigFile, parseKubeconfig } from "../../runtime/kubeconfig.ts";
import { LeaderElector } from "../../runtime/leader.ts";
import { kubeLeaseLock } from "../../runtime/lease_lock.ts";
import { Metrics } from "../../runtime/metrics.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type RealCluster, realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import { binDirWithApiServerFlags, poll, rewriteKubeconfig, seededRandom, startTcpProxy } from "./support_real.ts";

const binDir = await realClusterBinDir();
const quietLogger = { debug() {}, info() {}, warn() {} };

class RecordingMetrics implements InformerMetrics {
  restarts: string[] = [];
  relists: string[] = [];
  watchRestarts = { inc: (l: { reason: string }) => void this.restarts.push(l.reason) };
  watchRelists = { inc: (l: { cause: string }) => void this.relists.push(l.cause) };
}

function configMap(ns: string, name: string, value: string, labels?: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, labels }, data: { value } };
}

async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(CoreTypes.Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

/** key → resourceVersion of every ConfigMap in `ns`, from a fresh list. */
async function freshList(client: KubeClient, ns: string): Promise<Map<string, string>> {
  const list = await client.listAll(CoreTypes.ConfigMap, { namespace: ns });
  return new Map(list.items.map((o) => [`${ns}/${o.metadata.name}`, o.metadata.resourceVersion ?? ""]));
}

function cacheView(informer: Informer): Map<string, string> {
  return new Map(
    informer.store.list().map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion ?? ""]),
  );
}

function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Runs `informer` until the returned stop function is called. */
function run(informer: { start(signal: AbortSignal): Promise<void> }): () => Promise<void> {
  const ctrl = new AbortController();
  const running = informer.start(ctrl.signal);
  return async () => {
    ctrl.abort();
    await running;
  };
}

Deno.test({
  name: "real cluster: runtime informers, leader election and events against kube-apiserver",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster: RealCluster = await startRealCluster({ binDir });
    const client = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath) });
    try {
      await t.step(
        "KubeClient verbs: pages, patches, apply conflicts, dry run, preconditions, typed errors",
        async () => {
          const ns = "client-verbs";
          await createNamespace(client, ns);
          for (let i = 0; i < 23; i++) await client.create(CoreTypes.ConfigMap, configMap(ns, `page-${i}`, String(i)));
          const firstPage = await client.list(CoreTypes.ConfigMap, { namespace: ns, limit: 5 });
          assert.equal(firstPage.items.length, 5);
          assert.ok(firstPage.metadata?.continue, "the real server paginates");
          const all = await client.listAll(CoreTypes.ConfigMap, { namespace: ns, limit: 5 });
          assert.equal(all.items.filter((o) => o.metadata.name!.startsWith("page-")).length, 23);
          assert.equal(new Set(all.items.map((o) => o.metadata.name)).size, all.items.length, "no duplicates");
          assert.match(all.metadata?.resourceVersion ?? "", /^\d+$/);
          const meta = await client.list(CoreTypes.ConfigMap, { namespace: ns, metadataOnly: true, limit: 1 });
          assert.equal(meta.kind, "PartialObjectMetadataList");

          type Cm = KubeObject & { data?: Record<string, string> };
          const merged = await client.patch<Cm>(CoreTypes.ConfigMap, "page-0", { data: { extra: "m" } }, {
            namespace: ns,
            type: "merge",
          });
          assert.deepEqual(merged.data, { value: "0", extra: "m" });
          const strategic = await client.patch<Cm>(CoreTypes.ConfigMap, "page-0", { data: { s: "1" } }, {
            namespace: ns,
            type: "strategic",
          });
          assert.equal(strategic.data?.s, "1");
          const json = await client.patch<Cm>(CoreTypes.ConfigMap, "page-0", [{ op: "remove", path: "/data/extra" }], {
            namespace: ns,
            type: "json",
          });
          assert.deepEqual(json.data, { value: "0", s: "1" });

          const applied = {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "ssa", namespace: ns },
            data: { k: "a" },
          };
          const ssa = await client.patch<Cm>(CoreTypes.ConfigMap, "ssa", applied, { namespace: ns, type: "apply" });
          assert.equal(ssa.data?.k, "a");
          const other = new KubeClient({
            config: await loadKubeconfigFile(cluster.kubeconfigPath),
            fieldManager: "other",
          });
          try {
            const conflict = await other.patch(CoreTypes.ConfigMap, "ssa", { ...applied, data: { k: "b" } }, {
              namespace: ns,
              type: "apply",
            }).catch((e) => e);
            assert.ok(isConflict(conflict), `apply conflict: ${conflict}`);
            assert.equal((conflict as ApiError).call.name, "ssa");
            const forced = await other.patch<Cm>(CoreTypes.ConfigMap, "ssa", { ...applied, data: { k: "b" } }, {
              namespace: ns,
              type: "apply",
              force: true,
            });
            assert.equal(forced.data?.k, "b");
          } finally {
            other.close();
          }

          await client.create(CoreTypes.ConfigMap, configMap(ns, "dry", "1"), { dryRun: true });
          assert.ok(isNotFound(await client.get(CoreTypes.ConfigMap, "dry", { namespace: ns }).catch((e) => e)));
          assert.ok(
            isAlreadyExists(await client.create(CoreTypes.ConfigMap, configMap(ns, "page-1", "x")).catch((e) => e)),
          );
          const stale = { ...all.items.find((o) => o.metadata.name === "page-0")!, data: { value: "stale" } };
          assert.ok(isConflict(await client.update(CoreTypes.ConfigMap, stale).catch((e) => e)), "stale RV → 409");
          const wrongUid = await client.delete(CoreTypes.ConfigMap, "page-2", {
            namespace: ns,
            preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
          }).catch((e) => e);
          assert.ok(isConflict(wrongUid), `uid precondition → 409: ${wrongUid}`);
          const invalid = await client.create(CoreTypes.ConfigMap, configMap(ns, "Not_A_Name", "x")).catch((e) => e);
          assert.ok(isInvalid(invalid), `invalid name → 422: ${invalid}`);
          const anonymous = new KubeClient({
            config: { server: cluster.url, caPEM: await Deno.readTextFile(`${cluster.dir}/ca.crt`), token: "wrong" },
          });
          try {
            const denied = await anonymous.get(CoreTypes.ConfigMap, "page-3", { namespace: ns }).catch((e) => e);
            assert.ok(denied instanceof ApiError && (denied.code === 401 || isForbidden(denied)), `${denied}`);
          } finally {
            anonymous.close();
          }
        },
      );

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
        const informer = new Informer({
          client: viaProxy,
          resource: CoreTypes.ConfigMap,
          namespace: ns,
          metrics,
          logger: quietLogger,
        });
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

      await t.step("Lease leader election: two electors, one leads, the other takes over on release", async () => {
        const ns = "leader";
        await createNamespace(client, ns);
        const lock = kubeLeaseLock({ client, namespace: ns, name: "kubeop-real" });
        const durations = { leaseSeconds: 4, renewDeadlineSeconds: 3, retryPeriodSeconds: 1 };
        const leading = new Set<string>();
        const electors = ["alpha", "beta"].map((identity) =>
          new LeaderElector({
            lock,
            identity,
            ...durations,
            clock: new RealClock(),
            onStartedLeading: () => void leading.add(identity),
            onStoppedLeading: () => void leading.delete(identity),
          })
        );
        const ctrls = electors.map(() => new AbortController());
        const runs = electors.map((e, i) => e.run(ctrls[i].signal));
        try {
          await poll("a leader", () => leading.size === 1, { deadlineMs: 20_000 });
          const first = electors.find((e) => e.isLeader())!;
          const other = electors.find((e) => e !== first)!;
          assert.equal(other.isLeader(), false);
          const lease = await client.get<KubeObject & { spec: Record<string, unknown> }>(
            CoreTypes.Lease,
            "kubeop-real",
            { namespace: ns },
          );
          assert.equal(lease.spec.holderIdentity, first.identity);
          assert.equal(lease.spec.leaseDurationSeconds, 4);
          const i = electors.indexOf(first);
          ctrls[i].abort();
          assert.equal(await runs[i], "released");
          await poll("hand-over to the other elector", () => other.isLeader(), { deadlineMs: 20_000 });
          const after = await client.get<KubeObject & { spec: Record<string, unknown> }>(
            CoreTypes.Lease,
            "kubeop-real",
            { namespace: ns },
          );
          assert.equal(after.spec.holderIdentity, other.identity);
          assert.ok(Number(after.spec.leaseTransitions ?? 0) >= 1, JSON.stringify(after.spec));
        } finally {
          for (const c of ctrls) c.abort();
          await Promise.all(runs);
        }
      });

      await t.step("Lease leader election: a leader cut off from the server loses, the other takes over", async () => {
        const ns = "leader-loss";
        await createNamespace(client, ns);
        const port = Number(new URL(cluster.url).port);
        const proxy = startTcpProxy({ hostname: "127.0.0.1", port });
        const viaProxy = new KubeClient({
          config: await parseKubeconfig(
            rewriteKubeconfig(cluster.kubeconfig, { server: `https://127.0.0.1:${proxy.port}` }),
          ),
          maxRetries: 0,
        });
        const durations = { leaseSeconds: 4, renewDeadlineSeconds: 3, retryPeriodSeconds: 1 };
        const stopped: string[] = [];
        const make = (identity: string, c: KubeClient) =>
          new LeaderElector({
            lock: kubeLeaseLock({ client: c, namespace: ns, name: "loss" }),
            identity,
            ...durations,
            clock: new RealClock(),
            onStoppedLeading: () => void stopped.push(identity),
          });
        const cutOff = make("cut-off", viaProxy);
        const healthy = make("healthy", client);
        const ctrls = [new AbortController(), new AbortController()];
        const runs: Promise<string>[] = [cutOff.run(ctrls[0].signal)];
        let proxyClosed = false;
        try {
          await poll("cut-off leads first", () => cutOff.isLeader(), { deadlineMs: 20_000 });
          runs.push(healthy.run(ctrls[1].signal));
          await poll("healthy observes the leader", () => healthy.observedLeader === "cut-off", { deadlineMs: 20_000 });
          await proxy.close();
          proxyClosed = true;
          assert.equal(await runs[0], "lost");
          assert.deepEqual(stopped, ["cut-off"]);
          await poll("healthy takes over after the lease expires", () => healthy.isLeader(), { deadlineMs: 20_000 });
          const lease = await client.get<KubeObject & { spec: Record<string, unknown> }>(CoreTypes.Lease, "loss", {
            namespace: ns,
          });
          assert.equal(lease.spec.holderIdentity, "healthy");
        } finally {
          for (const c of ctrls) c.abort();
          await Promise.all(runs);
          viaProxy.close();
          if (!proxyClosed) await proxy.close();
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

      await t.step("KubeEventRecorder: events.k8s.io/v1 Events accepted, series patches accepted", async () => {
        const ns = "events";
        await createNamespace(client, ns);
        const regarding = await client.create<KubeObject>(CoreTypes.ConfigMap, configMap(ns, "subject", "1"));
        const metrics = new Metrics();
        const recorder = new KubeEventRecorder({
          sink: client,
          clock: new RealClock(),
          reportingController: "kubeop.dev/real-test",
          reportingInstance: "real-test-0",
          metrics,
        });
        const input = { type: "Normal" as const, reason: "Tested", action: "Test", note: "first event" };
        recorder.event(regarding, input);
        await recorder.flush();
        // A cluster-scoped object: the Event goes to "default".
        const namespaceObj = await client.get<KubeObject>(CoreTypes.Namespace, ns);
        recorder.event(namespaceObj, { type: "Warning", reason: "Checked", action: "Check", note: "cluster scoped" });
        await recorder.flush();
        assert.equal(await metrics.value("kubeop_events_dropped_total", { reason: "error" }), 0);
        type Ev = KubeObject & Record<string, unknown> & { series?: { count: number; lastObservedTime: string } };
        const events = await client.list<Ev>(CoreTypes.Event, { namespace: ns });
        assert.equal(events.items.length, 1);
        const ev = events.items[0];
        assert.equal(ev.reason, "Tested");
        assert.equal(ev.action, "Test");
        assert.equal(ev.type, "Normal");
        assert.equal(ev.note, "first event");
        assert.equal(ev.reportingController, "kubeop.dev/real-test");
        assert.equal(ev.reportingInstance, "real-test-0");
        assert.match(String(ev.eventTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        assert.deepEqual((ev.regarding as Record<string, unknown>).uid, regarding.metadata.uid);
        const defaults = await client.list<Ev>(CoreTypes.Event, { namespace: "default" });
        assert.ok(
          defaults.items.some((e) => e.reason === "Checked" && (e.regarding as { kind: string }).kind === "Namespace"),
        );

        recorder.event(regarding, input);
        recorder.event(regarding, input);
        await recorder.close();
        assert.equal(await metrics.value("kubeop_events_dropped_total", { reason: "error" }), 0);
        const updated = await client.get<Ev>(CoreTypes.Event, ev.metadata.name!, { namespace: ns });
        assert.ok(updated.series, JSON.stringify(updated));
        assert.equal(updated.series.count, 3);
        assert.match(updated.series.lastObservedTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        assert.equal((await client.list(CoreTypes.Event, { namespace: ns })).items.length, 1, "one Event per series");
      });
    } finally {
      for (
        const ns of [
          "informer-burst",
          "informer-cut",
          "informer-meta",
          "informer-label",
          "leader",
          "leader-loss",
          "events",
        ]
      ) {
        await client.delete(CoreTypes.Namespace, ns).catch((err) => {
          if (!isNotFound(err)) throw err;
        });
      }
      client.close();
      await cluster.stop();
    }
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
