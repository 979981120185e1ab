// Server-side apply field ownership on the farm API (apiservice/field_ownership.ts), over HTTP with the fake API
// server behind the farm server: managedFields per manager, 409 conflicts as kube answers them, force, shared
// fields, fields an applier drops, and updates taking fields over without conflicts.
import assert from "node:assert/strict";
import { LLAMAS, postLlama, startFarmOnFake } from "./support/farm_on_fake.ts";

type Entry = { manager: string; operation: string; apiVersion: string; fieldsV1: Record<string, unknown> };
type Llama = { metadata: { labels?: Record<string, string>; managedFields?: Entry[] }; spec: Record<string, number> };

function apply(config: Record<string, unknown>): RequestInit {
  return {
    method: "PATCH",
    headers: { "content-type": "application/apply-patch+yaml" },
    body: JSON.stringify({ apiVersion: "farm.example.com/v1alpha", kind: "Llama", ...config }),
  };
}

const fieldsOf = (l: Llama, manager: string, operation: string) =>
  l.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation)?.fieldsV1;

Deno.test("server-side apply: managedFields per manager, 409 on another's field, force, sharing, drops, updates", async () => {
  const env = await startFarmOnFake();
  const [fx] = env.replicas;
  try {
    const created = await fx.call(`${LLAMAS}?fieldManager=creator`, postLlama("kuzco"));
    assert.equal(created.status, 201);
    const c = await created.json() as Llama;
    assert.deepEqual(c.metadata.managedFields?.map((e) => [e.manager, e.operation, e.apiVersion]), [[
      "creator",
      "Update",
      "farm.example.com/v1alpha",
    ]]);
    assert.deepEqual(fieldsOf(c, "creator", "Update"), { "f:spec": { "f:height": {}, "f:weight": {} } });

    // Changing a field another manager owns: kube's 409.
    const conflict = await fx.call(
      `${LLAMAS}/kuzco?fieldManager=alice`,
      apply({ metadata: { name: "kuzco" }, spec: { weight: 50 } }),
    );
    assert.equal(conflict.status, 409);
    const status = await conflict.json();
    assert.equal(status.reason, "Conflict");
    assert.equal(
      status.message,
      'Apply failed with 1 conflict: conflict with "creator" using farm.example.com/v1alpha: .spec.weight',
    );
    assert.deepEqual(status.details.causes, [{
      reason: "FieldManagerConflict",
      message: 'conflict with "creator" using farm.example.com/v1alpha',
      field: ".spec.weight",
    }]);

    // The same value is shared; new labels are alice's.
    const shared = await fx.call(
      `${LLAMAS}/kuzco?fieldManager=alice`,
      apply({ metadata: { name: "kuzco", labels: { team: "a", extra: "x" } }, spec: { weight: 10 } }),
    );
    assert.equal(shared.status, 200);
    const s = await shared.json() as Llama;
    assert.deepEqual(fieldsOf(s, "alice", "Apply"), {
      "f:metadata": { "f:labels": { "f:extra": {}, "f:team": {} } },
      "f:spec": { "f:weight": {} },
    });
    assert.deepEqual(fieldsOf(s, "creator", "Update"), { "f:spec": { "f:height": {}, "f:weight": {} } }, "shared");

    const bob = await fx.call(
      `${LLAMAS}/kuzco?fieldManager=bob`,
      apply({ metadata: { name: "kuzco", labels: { team: "b" } } }),
    );
    assert.equal(bob.status, 409);
    assert.equal(
      (await bob.json()).message,
      'Apply failed with 1 conflict: conflict with "alice": .metadata.labels.team',
    );
    const forced = await fx.call(
      `${LLAMAS}/kuzco?fieldManager=bob&force=true`,
      apply({ metadata: { name: "kuzco", labels: { team: "b" } } }),
    );
    assert.equal(forced.status, 200);
    const f = await forced.json() as Llama;
    assert.equal(f.metadata.labels?.team, "b");
    assert.deepEqual(fieldsOf(f, "alice", "Apply"), {
      "f:metadata": { "f:labels": { "f:extra": {} } },
      "f:spec": { "f:weight": {} },
    });

    // alice drops her labels: `extra` (hers alone) goes, `team` (bob's now) stays.
    const dropped = await (await fx.call(
      `${LLAMAS}/kuzco?fieldManager=alice`,
      apply({ metadata: { name: "kuzco" }, spec: { weight: 10 } }),
    )).json() as Llama;
    assert.deepEqual(dropped.metadata.labels, { team: "b" });

    // An update never conflicts: it takes the fields it changes from everyone.
    const patched = await fx.call(`${LLAMAS}/kuzco?fieldManager=editor`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { weight: 11 } }),
    });
    assert.equal(patched.status, 200);
    const p = await patched.json() as Llama;
    assert.deepEqual(fieldsOf(p, "editor", "Update"), { "f:spec": { "f:weight": {} } });
    assert.deepEqual(fieldsOf(p, "creator", "Update"), { "f:spec": { "f:height": {} } });
    assert.equal(fieldsOf(p, "alice", "Apply"), undefined, "alice's entry lost its last field and is dropped");

    const noManager = await fx.call(`${LLAMAS}/kuzco`, apply({ metadata: { name: "kuzco" } }));
    assert.equal(noManager.status, 422);
    assert.equal((await noManager.json()).details.causes[0].field, "fieldManager");
    const withFields = await fx.call(
      `${LLAMAS}/kuzco?fieldManager=x`,
      apply({ metadata: { name: "kuzco", managedFields: [] } }),
    );
    assert.equal(withFields.status, 400);
    await withFields.body?.cancel();

    // An apply that creates: the applier owns its configuration.
    const made = await fx.call(
      `${LLAMAS}/pacha?fieldManager=alice`,
      apply({ metadata: { name: "pacha" }, spec: { weight: 70, height: 1.6 } }),
    );
    assert.equal(made.status, 201);
    assert.deepEqual(fieldsOf(await made.json(), "alice", "Apply"), { "f:spec": { "f:height": {}, "f:weight": {} } });
  } finally {
    await env.close();
  }
});
