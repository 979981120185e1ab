import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
import { FakeCluster } from "./fake_cluster.ts";

Deno.test("a fresh cluster has the server's default namespaces, or the ones asked for", () => {
  const names = (c: FakeCluster) => c.list(CoreTypes.Namespace).map((n) => n.metadata.name);
  assert.deepEqual(names(new FakeCluster()), ["default", "kube-node-lease", "kube-public", "kube-system"]);
  assert.deepEqual(names(new FakeCluster({ namespaces: ["team-a"] })), ["team-a"]);
});

Deno.test("test-side deletes settle: dependents are collected and an emptied namespace is gone when delete returns", () => {
  const cluster = new FakeCluster({ namespaces: ["default", "doomed"] });
  const owner = cluster.create(CoreTypes.ConfigMap, { metadata: { name: "owner", namespace: "default" } });
  cluster.create(CoreTypes.Secret, {
    metadata: {
      name: "child",
      namespace: "default",
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "owner",
        uid: owner.metadata.uid!,
        controller: true,
      }],
    },
  });
  cluster.create(CoreTypes.Secret, { metadata: { name: "s", namespace: "doomed" } });
  cluster.delete(CoreTypes.ConfigMap, "default/owner");
  assert.equal(cluster.get(CoreTypes.Secret, "default/child"), undefined);
  cluster.delete(CoreTypes.Namespace, "doomed");
  assert.equal(cluster.get(CoreTypes.Namespace, "doomed"), undefined);
  assert.equal(cluster.get(CoreTypes.Secret, "doomed/s"), undefined);
  assert.deepEqual(cluster.calls, [], "test-side calls are not recorded");
});

Deno.test("a context carries the cached object frozen, the recording client, recorder and the virtual clock", async () => {
  const cluster = new FakeCluster({ startMs: Date.UTC(2030, 0, 1) });
  cluster.create(CoreTypes.ConfigMap, { metadata: { name: "cfg", namespace: "default" }, data: { a: "1" } });
  const ctx = cluster.context(CoreTypes.ConfigMap, "default/cfg");
  assert.equal(ctx.namespace, "default");
  assert.equal(ctx.name, "cfg");
  assert.equal(ctx.object?.data.a, "1");
  assert.throws(() => {
    ctx.object!.data.a = "2";
  }, TypeError);
  assert.equal(ctx.clock.now(), Date.UTC(2030, 0, 1));
  ctx.recorder.event(ctx.object!, { type: "Normal", reason: "Seen", action: "Reconcile", note: "hello" });
  assert.deepEqual(cluster.events.map((e) => `${e.regarding} ${e.input.reason}`), ["default/cfg Seen"]);
  await ctx.client.delete(CoreTypes.ConfigMap, "cfg", { namespace: "default" });
  assert.deepEqual(cluster.writes(), [{ verb: "delete", resource: "configmaps", key: "default/cfg" }]);
  assert.equal(cluster.context(CoreTypes.ConfigMap, "default/cfg").object, undefined);
});
