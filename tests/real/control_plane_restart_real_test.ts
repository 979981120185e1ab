/**
 * RealControlPlane.restart({ wipeEtcd: true }) as the fault matrix's `restart-state-loss` uses it: the new store's
 * revision must be bumped past every resourceVersion a client saw before the crash, so that a client resuming a
 * watch from one gets 410 Expired and relists (etcd's restore procedure). Writes that land right before the kill are
 * the case that matters: a bump computed before them would fall short, and a watch resumed from their revision would
 * be accepted by the new watch cache and silently miss the state loss (issue 28).
 */
import assert from "node:assert/strict";
import { KubeClient } from "../../runtime/client/client.ts";
import { parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject, type WatchEvent } from "../../runtime/types.ts";
import { startRealControlPlane } from "../../testing/envtest/real_control_plane.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real control plane: after a state loss, a watch from the last revision written before the kill gets 410",
  ignore: !binDir,
  sanitizeResources: false, // kube-apiserver's child processes and their pipes
  sanitizeOps: false,
  async fn() {
    const plane = await startRealControlPlane({ binDir });
    const client = new KubeClient({ config: await parseKubeconfig(plane.kubeconfig), userAgent: "restart-test" });
    try {
      const namespace = "restart-state-loss";
      await client.create(CoreTypes.Namespace, { metadata: { name: namespace } });
      let lastRv = "";
      await plane.restart({
        wipeEtcd: true,
        beforeKill: async () => {
          // A busy cluster up to the crash: each write's revision is newer than any read before it.
          for (let i = 0; i < 50; i++) {
            const cm: KubeObject = { metadata: { name: `cm-${i}`, namespace } };
            lastRv = (await client.create(CoreTypes.ConfigMap, cm, { namespace })).metadata.resourceVersion!;
          }
        },
      });
      const gone = await client.get(CoreTypes.Namespace, namespace).then(() => false, () => true);
      assert.ok(gone, "the namespace survived a wiped etcd");
      // The server ends the watch after timeoutSeconds: a watch accepted from a revision the new store has not passed
      // stays silent until then, and the assertion below names what came instead of the 410.
      const events: WatchEvent<unknown>[] = [];
      await client.watchStream(CoreTypes.ConfigMap, { resourceVersion: lastRv, timeoutSeconds: 20 }, (e) => {
        events.push(e);
      }).catch((err) => events.push({ type: "ERROR", object: { code: err?.code, message: String(err) } }));
      const first = events[0] as { type: string; object: { code?: number; message?: string } } | undefined;
      assert.equal(
        first?.type === "ERROR" ? first.object.code : undefined,
        410,
        `watch from resourceVersion ${lastRv} after the state loss: want ERROR 410, got ${JSON.stringify(events)}`,
      );
    } finally {
      client.close();
      await plane.stop();
    }
  },
});

Deno.test({
  name: "real control plane: a kube-apiserver that exits at start fails the start at once, naming the exit and its log",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // Before, the harness polled /readyz of a dead process for 120 s and reported only a timeout (issue 28: a port
    // taken under kube-apiserver). An unknown flag makes it exit at once, as a bind failure does.
    const err = await startRealControlPlane({ binDir, apiserverArgs: ["--no-such-flag=1"] }).then(
      () => assert.fail("a kube-apiserver with an unknown flag became ready"),
      (e: Error) => e,
    );
    assert.match(err.message, /kube-apiserver exited \(code 1/);
    assert.match(err.message, /unknown flag: --no-such-flag/);
  },
});
