/**
 * MultiSecret against the fake API server: children per namespace, new namespaces, re-creation, propagation,
 * conflicts, finalizer — and no Secret value in logs or Events.
 */

import assert from "node:assert/strict";
import { FINALIZER, OWNER_NAME, OWNER_NAMESPACE, OWNER_UID } from "../controllers/multisecret/controller.ts";
import { type MultiSecret, MultiSecretType } from "../controllers/multisecret/schema.ts";
import { captureSink, configureLogging } from "../runtime/observe/log.ts";
import type { Secret } from "../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { type ControllerEnv, getOrUndefined, startEnv, waitFor } from "./controllers_env.ts";

const SECRET_VALUE = "correct-horse-battery-staple";

async function ms(env: ControllerEnv): Promise<MultiSecret> {
  return await env.client.get<MultiSecret>(MultiSecretType, "shared", { namespace: "default" });
}

async function children(env: ControllerEnv): Promise<Secret[]> {
  return (await env.client.list<Secret>(CoreTypes.Secret)).items.filter((s) => s.metadata.name === "shared");
}

Deno.test("a Secret in every namespace; new namespace; re-creation; propagation; conflicts; finalizer; no values leak", async () => {
  const capture = captureSink();
  await configureLogging({ sink: capture.sink, level: "debug" });
  const env = await startEnv({ controllers: ["multisecret"] });
  try {
    for (const name of ["team-a", "team-b"]) await env.client.create(CoreTypes.Namespace, { metadata: { name } });
    await env.client.create(CoreTypes.Secret, {
      metadata: { name: "shared", namespace: "team-b" },
      data: { theirs: "eA==" },
    });
    await env.client.create(CoreTypes.Secret, { metadata: { name: "unrelated", namespace: "team-a" }, data: {} });
    await env.client.create(MultiSecretType, {
      metadata: {
        name: "shared",
        annotations: {
          "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({
            spec: { stringData: { password: SECRET_VALUE } },
          }),
        },
      },
      spec: { data: { user: "YWRtaW4=" }, stringData: { password: SECRET_VALUE } },
    }, { namespace: "default" });
    const namespaces = (await env.client.list(CoreTypes.Namespace)).items.map((n) => n.metadata.name!);
    const expected = namespaces.filter((n) => n !== "team-b").sort();
    await waitFor(
      "children everywhere but the conflict",
      async () =>
        JSON.stringify(
          (await children(env)).filter((s) => s.metadata.annotations?.[OWNER_UID]).map((s) => s.metadata.namespace)
            .sort(),
        ) ===
          JSON.stringify(expected),
    );
    const owner = await ms(env);
    assert.ok(owner.metadata.finalizers?.includes(FINALIZER));
    for (const s of (await children(env)).filter((s) => s.metadata.namespace !== "team-b")) {
      assert.equal(s.metadata.annotations?.[OWNER_NAME], "shared");
      assert.equal(s.metadata.annotations?.[OWNER_NAMESPACE], "default");
      assert.equal(s.metadata.annotations?.[OWNER_UID], owner.metadata.uid);
      assert.equal(s.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"], undefined);
      assert.equal(s.stringData, undefined);
      assert.deepEqual(s.data, { user: "YWRtaW4=", password: btoa(SECRET_VALUE) });
    }
    assert.deepEqual((await getOrUndefined(env.client, CoreTypes.Secret, "shared", "team-b"))?.data, {
      theirs: "eA==",
    });
    const status = await waitFor("status", async () => {
      const s = (await ms(env)).status;
      return s?.wanted === namespaces.length && s.created === namespaces.length - 1 && s;
    });
    assert.ok(status.change_time);
    assert.equal(status.conditions?.find((c) => c.type === "Degraded")?.reason, "SecretConflict");
    await waitFor(
      "conflict Event",
      async () =>
        (await env.client.list(CoreTypes.Event, { namespace: "default" })).items.some((e) =>
          e.reason === "SecretConflict"
        ),
    );

    // a new namespace gets it; a deleted child comes back; a spec change reaches every child
    await env.client.create(CoreTypes.Namespace, { metadata: { name: "late" } });
    await waitFor("late child", () => getOrUndefined(env.client, CoreTypes.Secret, "shared", "late"));
    await env.client.delete(CoreTypes.Secret, "shared", { namespace: "team-a" });
    await waitFor("re-created", () => getOrUndefined(env.client, CoreTypes.Secret, "shared", "team-a"));
    await env.client.patch(MultiSecretType, "shared", { spec: { data: { user: "cm9vdA==" } } }, {
      namespace: "default",
      type: "merge",
    });
    await waitFor(
      "propagated",
      async () =>
        (await children(env)).filter((s) => s.metadata.annotations?.[OWNER_UID]).every((s) =>
          s.data?.user === "cm9vdA=="
        ),
    );

    // delete: only our children go, then the finalizer, then the MultiSecret
    await env.client.delete(MultiSecretType, "shared", { namespace: "default" });
    await waitFor("MultiSecret gone", async () => !(await getOrUndefined(env.client, MultiSecretType, "shared")));
    assert.deepEqual((await children(env)).map((s) => s.metadata.namespace), ["team-b"]);
    assert.ok(await getOrUndefined(env.client, CoreTypes.Secret, "unrelated", "team-a"));

    // nothing about the value in logs or Events
    const events = JSON.stringify((await env.client.list(CoreTypes.Event)).items);
    const logs = capture.lines().join("\n");
    assert.ok(capture.records.length > 0, "logs were captured");
    for (const text of [events, logs]) {
      assert.ok(!text.includes(SECRET_VALUE) && !text.includes(btoa(SECRET_VALUE)), "no secret value");
    }
  } finally {
    await env.close();
    await configureLogging({ write: () => {} });
  }
});

Deno.test("namespaceSelector picks namespaces, Terminating ones are skipped, a type change re-creates the children", async () => {
  const env = await startEnv({ controllers: ["multisecret"] });
  try {
    await env.client.create(CoreTypes.Namespace, { metadata: { name: "pay-1", labels: { team: "payments" } } });
    await env.client.create(CoreTypes.Namespace, { metadata: { name: "web-1", labels: { team: "web" } } });
    await env.client.create(CoreTypes.Namespace, {
      metadata: { name: "pay-old", labels: { team: "payments" }, finalizers: ["example.com/hold"] },
    });
    await env.client.delete(CoreTypes.Namespace, "pay-old");
    await env.client.create(MultiSecretType, {
      metadata: { name: "shared" },
      spec: { stringData: { k: "v" }, namespaceSelector: { matchLabels: { team: "payments" } } },
    }, { namespace: "default" });
    await waitFor("status", async () => (await ms(env)).status?.created === 1);
    assert.deepEqual((await children(env)).map((s) => s.metadata.namespace), ["pay-1"]);
    assert.equal((await ms(env)).status?.wanted, 1, "Terminating pay-old and unselected web-1 are not wanted");

    const before = (await getOrUndefined(env.client, CoreTypes.Secret, "shared", "pay-1"))!;
    await env.client.patch(MultiSecretType, "shared", { spec: { type: "example.com/token" } }, {
      namespace: "default",
      type: "merge",
    });
    const after = await waitFor("re-created with the new type", async () => {
      const s = await getOrUndefined(env.client, CoreTypes.Secret, "shared", "pay-1");
      return s?.type === "example.com/token" && s;
    });
    assert.notEqual(after.metadata.uid, before.metadata.uid);

    // relabelling the namespace away deletes its child
    await env.client.patch(CoreTypes.Namespace, "pay-1", { metadata: { labels: { team: "web" } } }, { type: "merge" });
    await waitFor("child removed", async () => (await children(env)).length === 0);
  } finally {
    await env.close();
  }
});

Deno.test("an immutable child does not block the others; after the owner vanished a re-applied one adopts, a gone one is swept", async () => {
  const env = await startEnv({ controllers: ["multisecret"] });
  const patchMs = (body: unknown) =>
    env.client.patch(MultiSecretType, "shared", body, { namespace: "default", type: "merge" });
  const converged = (value: string, uid?: string) => async () => {
    const owner = await ms(env);
    const ready = owner.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" &&
      owner.status?.observedGeneration === owner.metadata.generation;
    const kids = await children(env);
    return ready && kids.length === 3 &&
      kids.every((s) => s.data?.k === value && s.metadata.labels?.[OWNER_UID] === (uid ?? owner.metadata.uid));
  };
  try {
    for (const name of ["team-a", "team-b", "team-c"]) {
      await env.client.create(CoreTypes.Namespace, { metadata: { name, labels: { copy: "yes" } } });
    }
    await env.client.create(MultiSecretType, {
      metadata: { name: "shared" },
      spec: { data: { k: "djE=" }, namespaceSelector: { matchLabels: { copy: "yes" } } },
    }, {
      namespace: "default",
    });
    await waitFor("children", converged("djE="));
    await env.client.patch(CoreTypes.Secret, "shared", { immutable: true }, { namespace: "team-a", type: "merge" });
    await patchMs({ spec: { data: { k: "djI=" } } });
    await waitFor("first change everywhere", converged("djI="));
    await patchMs({ spec: { data: { k: "djM=" } } });
    await waitFor("second change everywhere", converged("djM="));

    // The MultiSecret vanishes behind the operator's back (as when the server lost its state) and is re-applied.
    await env.stopManager();
    const oldUid = (await ms(env)).metadata.uid;
    await patchMs({ metadata: { finalizers: null } });
    await env.client.delete(MultiSecretType, "shared", { namespace: "default" });
    const fresh: KubeObject = await env.client.create(MultiSecretType, {
      metadata: { name: "shared" },
      spec: { data: { k: "djQ=" }, namespaceSelector: { matchLabels: { copy: "yes" } } },
    }, { namespace: "default" });
    assert.notEqual(fresh.metadata.uid, oldUid);
    env.startManager();
    await waitFor("adopted by the re-applied MultiSecret", converged("djQ=", fresh.metadata.uid));
    const events = (await env.client.list(CoreTypes.Event, { namespace: "default" })).items;
    assert.ok(!events.some((e) => e.reason === "SecretConflict"), "no 'not ours'");

    // Gone for good: its children are orphans and go.
    await env.stopManager();
    await patchMs({ metadata: { finalizers: null } });
    await env.client.delete(MultiSecretType, "shared", { namespace: "default" });
    env.startManager();
    await waitFor("orphans swept", async () => (await children(env)).length === 0);
  } finally {
    await env.close();
  }
});
