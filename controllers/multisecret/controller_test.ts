import assert from "node:assert/strict";
import { TerminalError } from "../../runtime/errors.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { FakeCluster } from "../../testing/mod.ts";
import { FINALIZER, OWNER_NAME, OWNER_NAMESPACE, OWNER_UID, reconcileMultiSecret } from "./controller.ts";
import { type MultiSecret, multiSecretCrds, MultiSecretType } from "./schema.ts";

/** A cluster with the MultiSecret `default/ms`; `namespaces` exist besides `default` (its own). */
function setup(spec: MultiSecret["spec"], namespaces = ["team-a", "team-b"]) {
  const cluster = new FakeCluster({ crds: multiSecretCrds(), namespaces: ["default", ...namespaces] });
  cluster.create(MultiSecretType, {
    metadata: {
      name: "ms",
      namespace: "default",
      annotations: {
        "kubectl.kubernetes.io/last-applied-configuration": '{"spec":{"stringData":{"password":"s3cr3t"}}}',
      },
    },
    spec,
  });
  const run = () => reconcileMultiSecret(cluster.context(MultiSecretType, "default/ms"));
  const ms = () => cluster.get(MultiSecretType, "default/ms") as MultiSecret;
  const children = () => cluster.list(CoreTypes.Secret).filter((s) => s.metadata.name === "ms");
  return { cluster, run, ms, children };
}

Deno.test("a Secret per namespace with owner annotations, stringData folded into data, no last-applied copied", async () => {
  const { run, ms, children } = setup({ data: { username: "YWRtaW4=" }, stringData: { password: "s3cr3t" } });
  await run();
  assert.equal(children().length, 3);
  for (const s of children()) {
    assert.equal(s.metadata.annotations![OWNER_NAME], "ms");
    assert.equal(s.metadata.annotations![OWNER_NAMESPACE], "default");
    assert.equal(s.metadata.annotations![OWNER_UID], ms().metadata.uid);
    assert.equal(s.metadata.annotations!["kubectl.kubernetes.io/last-applied-configuration"], undefined);
    assert.equal(s.stringData, undefined);
    assert.deepEqual(s.data, { username: "YWRtaW4=", password: btoa("s3cr3t") });
    assert.equal(s.type, "Opaque");
  }
  assert.ok(ms().metadata.finalizers?.includes(FINALIZER));
  await run();
  assert.equal(ms().status?.wanted, 3);
  assert.equal(ms().status?.created, 3);
  assert.ok(ms().status?.change_time);
});

Deno.test("new namespace gets it, deleted child re-created, spec change propagated, type change re-creates", async () => {
  const { cluster, run, children } = setup({ data: { k: "djE=" } });
  await run();
  cluster.create(CoreTypes.Namespace, { metadata: { name: "late" } });
  cluster.delete(CoreTypes.Secret, "team-a/ms");
  await run();
  assert.deepEqual(children().map((s) => s.metadata.namespace).sort(), ["default", "late", "team-a", "team-b"]);
  cluster.patch(MultiSecretType, "default/ms", { spec: { data: { k: "djI=" } } });
  await run();
  assert.ok(children().every((s) => s.data.k === "djI="));
  const uidBefore = cluster.get(CoreTypes.Secret, "team-b/ms")!.metadata.uid;
  cluster.patch(MultiSecretType, "default/ms", { spec: { type: "example.com/custom" } });
  await run();
  await run();
  const after = cluster.get(CoreTypes.Secret, "team-b/ms")!;
  assert.equal(after.type, "example.com/custom");
  assert.notEqual(after.metadata.uid, uidBefore);
});

Deno.test("selector, Terminating namespaces skipped; a foreign same-named Secret is left alone and reported", async () => {
  const { cluster, run, ms } = setup({ data: {}, namespaceSelector: { matchLabels: { team: "x" } } }, []);
  cluster.create(CoreTypes.Namespace, { metadata: { name: "a", labels: { team: "x" } } });
  cluster.create(CoreTypes.Namespace, { metadata: { name: "b", labels: { team: "y" } } });
  // A namespace is Terminating once deleted, until its content and finalizers are gone (the server sets the phase).
  cluster.create(CoreTypes.Namespace, {
    metadata: { name: "dying", labels: { team: "x" }, finalizers: ["test/hold"] },
  });
  cluster.delete(CoreTypes.Namespace, "dying");
  assert.equal(cluster.get(CoreTypes.Namespace, "dying")?.status?.phase, "Terminating");
  cluster.create(CoreTypes.Namespace, { metadata: { name: "c", labels: { team: "x" } } });
  cluster.create(CoreTypes.Secret, { metadata: { name: "ms", namespace: "c" }, data: { mine: "eA==" } });
  await run();
  assert.ok(cluster.get(CoreTypes.Secret, "a/ms"));
  assert.equal(cluster.get(CoreTypes.Secret, "b/ms"), undefined);
  assert.equal(cluster.get(CoreTypes.Secret, "dying/ms"), undefined);
  assert.deepEqual(cluster.get(CoreTypes.Secret, "c/ms")!.data, { mine: "eA==" }, "foreign Secret untouched");
  const degraded = ms().status?.conditions?.find((c) => c.type === "Degraded");
  assert.equal(degraded?.status, "True");
  assert.equal(degraded?.reason, "SecretConflict");
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && e.input.reason === "SecretConflict"));
  assert.equal(ms().status?.wanted, 2);
  assert.equal(ms().status?.created, 1);
});

Deno.test("deleting the MultiSecret deletes only its children, then the finalizer goes; no values in Events", async () => {
  const { cluster, run, ms } = setup({ stringData: { password: "hunter2-secret" } });
  await run();
  cluster.create(CoreTypes.Secret, { metadata: { name: "unrelated", namespace: "team-a" }, data: {} });
  cluster.delete(MultiSecretType, "default/ms");
  assert.ok(ms().metadata.deletionTimestamp);
  await run();
  assert.equal(cluster.get(MultiSecretType, "default/ms"), undefined, "finalizer removed, object gone");
  const left = cluster.list(CoreTypes.Secret) as KubeObject[];
  assert.deepEqual(left.map((s) => `${s.metadata.namespace}/${s.metadata.name}`), ["team-a/unrelated"]);
  const text = JSON.stringify(cluster.events);
  assert.ok(!text.includes("hunter2") && !text.includes(btoa("hunter2-secret")));
});

Deno.test("namespaceSelector: matchExpressions select namespaces; an invalid selector is a TerminalError", async () => {
  const { cluster, run, children } = setup({
    data: {},
    namespaceSelector: { matchExpressions: [{ key: "team", operator: "In", values: ["a"] }] },
  }, []);
  cluster.create(CoreTypes.Namespace, { metadata: { name: "team-a", labels: { team: "a" } } });
  cluster.create(CoreTypes.Namespace, { metadata: { name: "team-b", labels: { team: "b" } } });
  await run();
  assert.deepEqual(children().map((s) => s.metadata.namespace), ["team-a"]);
  cluster.patch(MultiSecretType, "default/ms", {
    spec: { namespaceSelector: { matchExpressions: [{ key: "bad key", operator: "Exists" }] } },
  });
  await assert.rejects(run, (err: unknown) => {
    assert.ok(err instanceof TerminalError);
    assert.match(err.message, /MultiSecret default\/ms: spec.namespaceSelector: key: Invalid value: "bad key"/);
    return true;
  });
});
