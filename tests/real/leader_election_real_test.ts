// Lease leader election against a REAL kube-apiserver (scripts/k8s-bin.sh): hand-over on release and on a
// leader cut off from the server.
import assert from "node:assert/strict";
import { KubeClient } from "../../runtime/client/client.ts";
import { RealClock } from "../../runtime/clock.ts";
import { parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { LeaderElector } from "../../runtime/leader/leader.ts";
import { kubeLeaseLock } from "../../runtime/leader/lease_lock.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";
import { createNamespace, poll, rewriteKubeconfig, startTcpProxy, withRealCluster } from "./support_real.ts";
import { Controller, done } from "../../runtime/controller/controller.ts";
import { Manager } from "../../runtime/manager/manager.ts";
import { FaultProxy } from "../faults/tcp_proxy.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: Lease leader election against kube-apiserver",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await withRealCluster(
      { binDir: binDir!, namespaces: ["leader", "leader-loss", "leader-transition"] },
      async ({ cluster, client }) => {
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

        await t.step(
          "graceful leader transition: a Manager cut off past its renew deadline stays up and leads again",
          async () => {
            const ns = "leader-transition";
            await createNamespace(client, ns);
            const port = Number(new URL(cluster.url).port);
            const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port } });
            const viaProxy = new KubeClient({
              config: await parseKubeconfig(
                rewriteKubeconfig(cluster.kubeconfig, { server: `https://127.0.0.1:${proxy.port}` }),
              ),
            });
            const seen = new Set<string>();
            const controller = new Controller({
              name: "configmaps",
              for: CoreTypes.ConfigMap,
              forOptions: { namespace: ns },
              reconcile: async (ctx) => {
                if (!ctx.object || !ctx.name.startsWith("t-")) return done();
                if (!ctx.object.metadata.annotations?.seen) {
                  await ctx.client.patch(
                    CoreTypes.ConfigMap,
                    ctx.name,
                    { metadata: { annotations: { seen: "yes" } } },
                    {
                      namespace: ns,
                      type: "merge",
                    },
                  );
                }
                seen.add(ctx.name);
                return done();
              },
            });
            const manager = new Manager({
              client: viaProxy,
              namespaces: [ns],
              leaderElection: {
                id: "transition",
                namespace: ns,
                leaseSeconds: 4,
                renewDeadlineSeconds: 3,
                retryPeriodSeconds: 1,
              },
            }).add(controller);
            const stop = new AbortController();
            let settled: string | undefined;
            const running = manager.start(stop.signal).then(() => settled = "resolved", (e) => settled = String(e));
            const annotated = async (name: string) =>
              (await client.get(CoreTypes.ConfigMap, name, { namespace: ns })).metadata.annotations?.seen === "yes";
            try {
              await poll("the manager to lead", () => manager.isLeader(), { deadlineMs: 30_000 });
              await client.create(CoreTypes.ConfigMap, { metadata: { name: "t-before", namespace: ns } });
              await poll("t-before reconciled", () => annotated("t-before"), { deadlineMs: 30_000 });

              proxy.stall(true); // nothing from kube-apiserver reaches the replica: renewals go unanswered
              await poll("the Lease to be lost", () => !manager.isLeader(), { deadlineMs: 30_000 });
              await client.create(CoreTypes.ConfigMap, { metadata: { name: "t-during", namespace: ns } });
              assert.equal(settled, undefined, "the manager exited on a lost Lease");

              proxy.stall(false);
              proxy.closeAll(); // the partition heals: the stalled connections die, new ones reach the server
              await poll("the manager to lead again", () => manager.isLeader(), { deadlineMs: 60_000 });
              await poll("t-during reconciled in the new term", () => annotated("t-during"), { deadlineMs: 60_000 });
              assert.equal(settled, undefined);
            } finally {
              stop.abort();
              await running;
              viaProxy.close();
              await proxy.close();
            }
            assert.equal(settled, "resolved");
          },
        );

        await t.step(
          "Lease leader election: a leader cut off from the server loses, the other takes over",
          async () => {
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
              await poll("healthy observes the leader", () => healthy.observedLeader === "cut-off", {
                deadlineMs: 20_000,
              });
              await proxy.close();
              proxyClosed = true;
              assert.equal(await runs[0], "lost");
              assert.deepEqual(stopped, ["cut-off"]);
              await poll("healthy takes over after the lease expires", () => healthy.isLeader(), {
                deadlineMs: 20_000,
              });
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
          },
        );
      },
    );
  },
});
