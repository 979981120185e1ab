import assert from "node:assert/strict";
import { CHILD_WRITE_REJECTED } from "../../runtime/controller/child_write_failure.ts";
import type { InformerSource, WatchScope } from "../../runtime/controller/controller.ts";
import { ApiError, failureStatus, TerminalError } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { FakeCluster } from "../../testing/mod.ts";
import {
  FINALIZER,
  INVALID_SELECTOR,
  OWNER_NAME,
  OWNER_NAMESPACE,
  OWNER_UID,
  reconcileMultiSecret,
} from "./controller.ts";
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

/** `ctx.client` whose Secret writes in `namespace` fail with `code` (the rest goes to the cluster). */
function failingIn(cluster: FakeCluster, namespace: string, code: number, reason: string) {
  const ctx = cluster.context(MultiSecretType, "default/ms");
  const client = new Proxy(cluster.client, {
    get(target, prop, receiver) {
      const real = Reflect.get(target, prop, receiver);
      if (prop !== "create" && prop !== "update") return typeof real === "function" ? real.bind(target) : real;
      return (rt: ResourceType, obj: KubeObject, opts: { namespace?: string }) => {
        if (rt === CoreTypes.Secret && (opts?.namespace ?? obj.metadata.namespace) === namespace) {
          const status = failureStatus(code, reason, `refused in ${namespace}`);
          throw new ApiError(status, { verb: String(prop), resource: "secrets", namespace, name: "ms" });
        }
        return real.call(target, rt, obj, opts);
      };
    },
  });
  return () => reconcileMultiSecret({ ...ctx, client });
}

Deno.test("an immutable child does not block the others: two data changes reach every namespace, status advances", async () => {
  const { cluster, run, ms, children } = setup({ data: { k: "djE=" } });
  await run();
  cluster.patch(CoreTypes.Secret, "team-a/ms", { immutable: true });
  for (const value of ["djI=", "djM="]) {
    cluster.patch(MultiSecretType, "default/ms", { spec: { data: { k: value } } });
    await run();
    await run();
    assert.deepEqual(children().map((s) => `${s.metadata.namespace}=${s.data.k}`).sort(), [
      `default=${value}`,
      `team-a=${value}`,
      `team-b=${value}`,
    ]);
    assert.equal(ms().status?.observedGeneration, ms().metadata.generation);
    assert.equal(ms().status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
  }
  assert.equal(cluster.get(CoreTypes.Secret, "team-a/ms")?.immutable, true, "replaced, immutable again");
});

Deno.test("a child refused for good in one namespace: the rest converge, failedNamespaces + Degraded + Warning, terminal", async () => {
  const { cluster, ms } = setup({ data: { k: "djE=" } });
  const run = failingIn(cluster, "team-a", 422, "Invalid");
  await assert.rejects(run(), (err: unknown) => {
    assert.ok(err instanceof TerminalError);
    assert.match(err.message, /team-a/);
    return true;
  });
  assert.ok(cluster.get(CoreTypes.Secret, "default/ms") && cluster.get(CoreTypes.Secret, "team-b/ms"));
  assert.equal(cluster.get(CoreTypes.Secret, "team-a/ms"), undefined);
  const status = ms().status!;
  assert.deepEqual(status.failedNamespaces, ["team-a"]);
  assert.equal(status.wanted, 3);
  assert.equal(status.created, 2);
  assert.equal(status.observedGeneration, ms().metadata.generation);
  const degraded = status.conditions?.find((c) => c.type === "Degraded");
  assert.equal(degraded?.status, "True");
  assert.equal(degraded?.reason, CHILD_WRITE_REJECTED);
  assert.match(degraded?.message ?? "", /team-a \(create Secret team-a\/ms refused: 422 Invalid: refused in team-a\)/);
  assert.equal(status.conditions?.find((c) => c.type === "Ready")?.status, "False");
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && /team-a/.test(e.input.note ?? "")));
  // A transient failure (500) is retried with backoff (a plain error), the rest still converge.
  cluster.patch(MultiSecretType, "default/ms", { spec: { data: { k: "djI=" } } });
  await assert.rejects(failingIn(cluster, "team-b", 500, "InternalError")(), (err: unknown) => {
    assert.ok(!(err instanceof TerminalError));
    return true;
  });
  assert.equal(cluster.get(CoreTypes.Secret, "team-a/ms")?.data.k, "djI=");
  assert.equal(cluster.get(CoreTypes.Secret, "team-b/ms")?.data.k, "djE=");
  assert.deepEqual(ms().status?.failedNamespaces, ["team-b"]);
  assert.equal(ms().status?.conditions?.find((c) => c.type === "Degraded")?.reason, "SecretWriteFailed");
  await reconcileMultiSecret(cluster.context(MultiSecretType, "default/ms"));
  assert.equal(ms().status?.failedNamespaces, undefined, "cleared once every namespace converged");
  assert.equal(ms().status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
});

Deno.test("a selector `In` without values: Degraded InvalidSelector with kube's message, not Ready, terminal", async () => {
  const { cluster, run, ms, children } = setup({
    data: {},
    namespaceSelector: { matchExpressions: [{ key: "team", operator: "In", values: [] }] },
  });
  await assert.rejects(run(), TerminalError);
  assert.equal(children().length, 0);
  const ready = ms().status?.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.status, "False");
  assert.equal(ready?.reason, INVALID_SELECTOR);
  const degraded = ms().status?.conditions?.find((c) => c.type === "Degraded");
  assert.equal(degraded?.status, "True");
  assert.match(degraded?.message ?? "", /for 'in', 'notin' operators, values set can't be empty/);
  assert.equal(ms().status?.observedGeneration, ms().metadata.generation);
  await run();
  assert.equal(cluster.events.filter((e) => e.input.reason === INVALID_SELECTOR).length, 1, "no repeat");
  cluster.patch(MultiSecretType, "default/ms", { spec: { namespaceSelector: null } });
  await run();
  assert.equal(children().length, 3, "a spec change tries again");
});

/** The MultiSecret gone from the API server behind the operator's back (as after the server lost its state). */
function loseOwner(cluster: FakeCluster) {
  cluster.patch(MultiSecretType, "default/ms", { metadata: { finalizers: null } });
  cluster.delete(MultiSecretType, "default/ms");
}

Deno.test("state loss: children of a MultiSecret that is gone (uncached GET 404) are swept; others untouched", async () => {
  const { cluster, run, children } = setup({ data: { k: "djE=" } });
  await run();
  assert.equal(children().length, 3);
  cluster.create(CoreTypes.Secret, {
    metadata: { name: "other", namespace: "team-a", labels: { [OWNER_UID]: "uid-of-other" } },
    data: {},
  });
  loseOwner(cluster);
  await run();
  assert.equal(children().length, 0, "orphans deleted");
  assert.ok(cluster.get(CoreTypes.Secret, "team-a/other"), "a Secret that names another owner is left alone");
  assert.ok(cluster.calls.some((c) => c.verb === "get" && c.resource === "multisecrets"), "owner checked uncached");
});

Deno.test("state loss: a re-applied MultiSecret adopts the children its predecessor left (no 'not ours')", async () => {
  const { cluster, run, ms, children } = setup({ data: { k: "djE=" } });
  await run();
  const oldUid = ms().metadata.uid;
  loseOwner(cluster);
  cluster.create(MultiSecretType, { metadata: { name: "ms", namespace: "default" }, spec: { data: { k: "djI=" } } });
  assert.notEqual(ms().metadata.uid, oldUid);
  await run();
  await run();
  assert.deepEqual(children().map((s) => s.metadata.annotations?.[OWNER_UID]), Array(3).fill(ms().metadata.uid));
  assert.deepEqual(children().map((s) => s.metadata.labels?.[OWNER_UID]), Array(3).fill(ms().metadata.uid));
  assert.ok(children().every((s) => s.data.k === "djI="));
  assert.equal(ms().status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
  assert.ok(!cluster.events.some((e) => e.input.reason === "SecretConflict"));
});

Deno.test("a MultiSecret the cache still shows but the API server does not have gets no children", async () => {
  const { cluster, ms } = setup({ data: { k: "djE=" } });
  const stale: MultiSecret = { ...ms(), metadata: { ...ms().metadata, finalizers: [FINALIZER] } };
  loseOwner(cluster);
  const ctx = cluster.context(MultiSecretType, "default/ms");
  const informers: InformerSource = {
    get: <T extends KubeObject>(rt: ResourceType, scope?: WatchScope) => {
      const informer = cluster.informers.get<T>(rt, scope);
      if (rt !== MultiSecretType) return informer;
      const store = new Proxy(informer.store, {
        get: (target, prop, receiver) =>
          prop === "get" ? () => stale : prop === "list" ? () => [stale] : Reflect.get(target, prop, receiver),
      });
      return { ...informer, store };
    },
  };
  await reconcileMultiSecret({ ...ctx, informers });
  assert.equal(cluster.list(CoreTypes.Secret).filter((s) => s.metadata.name === "ms").length, 0);
  assert.ok(!cluster.writes().some((c) => c.verb === "create"), "nothing created for an unconfirmed owner");
});

Deno.test("a child the cache still shows but the API server lost is re-created, not updated forever (404)", async () => {
  const { cluster, run } = setup({ data: { k: "djE=" } }, ["team-a"]);
  await run();
  const cachedChild = cluster.get(CoreTypes.Secret, "team-a/ms")!;
  cluster.delete(CoreTypes.Secret, "team-a/ms"); // gone on the server; the cache below still shows it
  const current = cluster.get(MultiSecretType, "default/ms") as MultiSecret;
  cluster.update(MultiSecretType, { ...current, spec: { data: { k: "djI=" } } });
  const ctx = cluster.context(MultiSecretType, "default/ms");
  const informers: InformerSource = {
    ...ctx.informers,
    get: <T extends KubeObject>(rt: ResourceType, scope?: WatchScope) => {
      const informer = cluster.informers.get<T>(rt, scope);
      if (rt !== CoreTypes.Secret) return informer;
      const store = new Proxy(informer.store, {
        get: (target, prop, receiver) =>
          prop === "get"
            ? (key: string) => key === "team-a/ms" ? cachedChild : target.get(key)
            : Reflect.get(target, prop, receiver),
      });
      return { ...informer, store };
    },
  };
  await reconcileMultiSecret({ ...ctx, informers });
  assert.deepEqual(cluster.get(CoreTypes.Secret, "team-a/ms")?.data, { k: "djI=" });
});

Deno.test("a same-named Secret of another MultiSecret: left alone while it exists, adopted once an uncached GET says it is gone", async () => {
  const { cluster, run, ms } = setup({ data: { k: "djE=" } }, ["team-a"]);
  cluster.create(MultiSecretType, { metadata: { name: "other", namespace: "default" }, spec: { secretName: "ms" } });
  const other = cluster.get(MultiSecretType, "default/other")!;
  const owned = (uid: string) => ({
    labels: { [OWNER_UID]: uid },
    annotations: { [OWNER_NAME]: "other", [OWNER_NAMESPACE]: "default", [OWNER_UID]: uid },
  });
  cluster.create(CoreTypes.Secret, { metadata: { name: "ms", namespace: "team-a", ...owned(other.metadata.uid!) } });
  await run();
  assert.equal(cluster.get(CoreTypes.Secret, "team-a/ms")!.metadata.labels![OWNER_UID], other.metadata.uid);
  assert.equal(ms().status?.conditions?.find((c) => c.type === "Degraded")?.reason, "SecretConflict");
  cluster.delete(MultiSecretType, "default/other");
  await run();
  assert.equal(cluster.get(CoreTypes.Secret, "team-a/ms")!.metadata.labels![OWNER_UID], ms().metadata.uid);
  assert.equal(cluster.get(CoreTypes.Secret, "team-a/ms")!.data.k, "djE=");
  assert.equal(ms().status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
});

Deno.test("253-character names: a MultiSecret and a secretName of 253 characters reach every namespace", async () => {
  const name = "s".repeat(252) + "z";
  const cluster = new FakeCluster({ crds: multiSecretCrds(), namespaces: ["default", "team-a"] });
  cluster.create(MultiSecretType, { metadata: { name, namespace: "default" }, spec: { data: { k: "djE=" } } });
  const run = () => reconcileMultiSecret(cluster.context(MultiSecretType, `default/${name}`));
  await run();
  await run();
  for (const ns of ["default", "team-a"]) {
    const child = cluster.get(CoreTypes.Secret, `${ns}/${name}`)!;
    assert.equal(child.metadata.annotations![OWNER_NAME], name);
    assert.deepEqual(child.data, { k: "djE=" });
  }
  const secretName = "x".repeat(252) + "y";
  cluster.patch(MultiSecretType, `default/${name}`, { spec: { secretName } });
  await run();
  await run();
  assert.ok(cluster.get(CoreTypes.Secret, `team-a/${secretName}`), "renamed child");
  assert.equal(cluster.get(CoreTypes.Secret, `team-a/${name}`), undefined, "old child found by name and removed");
  const ms = cluster.get(MultiSecretType, `default/${name}`) as MultiSecret;
  assert.equal(ms.status?.created, 2);
});
