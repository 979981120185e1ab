/**
 * The patch engines on the exact bodies kubectl 1.32 sent (captured by testdata/capture_patches.ts): the result must
 * be what a real API server stores — the new manifest applied, server defaults and other fields kept.
 */
import assert from "node:assert/strict";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { type ResourceDef, resourceDefFor } from "../resource_def.ts";
import type { ManagedFieldsEntry } from "../../../runtime/apimachinery/managed_fields.ts";
import { recordUpdateManagedFields, serverSideApply } from "./apply.ts";
import { applyStrategicMergePatch } from "./strategic.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

const def = (group: string, kind: string, subresources: string[]): ResourceDef =>
  resourceDefFor(group, kind, { subresources, tracksGeneration: group === "apps" });
const DEPLOYMENT = def("apps", "Deployment", ["status", "scale"]);
const CONFIGMAP = def("", "ConfigMap", []);

async function fixture(
  name: string,
): Promise<{ contentType: string; query: string; live: Any; manifest?: Any; patch: Any }> {
  return JSON.parse(await Deno.readTextFile(new URL(`../testdata/patches/${name}.json`, import.meta.url)));
}

/** Every field of `want` is present in `got` with the same value (lists compared element-wise). */
function assertSubset(got: unknown, want: unknown, path = ""): void {
  if (Array.isArray(want)) {
    assert.ok(
      Array.isArray(got) && got.length === want.length,
      `${path}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`,
    );
    want.forEach((w, i) => assertSubset((got as unknown[])[i], w, `${path}[${i}]`));
  } else if (want && typeof want === "object") {
    assert.ok(got && typeof got === "object", `${path} missing`);
    for (const [k, v] of Object.entries(want)) assertSubset((got as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else {
    assert.equal(got, want, path);
  }
}

Deno.test("kubectl apply (3-way SMP) on a Deployment: manifest applied, removals done, defaults kept", async () => {
  const f = await fixture("apply-deployment");
  assert.equal(f.contentType, "application/strategic-merge-patch+json");
  const out = applyStrategicMergePatch(f.live, f.patch, DEPLOYMENT) as Any;
  assertSubset(out, f.manifest);
  const web = out.spec.template.spec.containers[0];
  assert.deepEqual(out.spec.template.spec.containers.map((c: Any) => c.name), ["web"]);
  assert.deepEqual(web.env, [{ name: "A", value: "1" }, { name: "B", value: "2" }]);
  assert.equal(web.terminationMessagePath, "/dev/termination-log", "server default kept");
  assert.deepEqual(web.ports, [{ containerPort: 80, protocol: "TCP" }]);
  assert.deepEqual(out.spec.strategy, { type: "Recreate" });
  assert.equal(out.spec.revisionHistoryLimit, 10);
  assert.equal(out.metadata.annotations["deployment.kubernetes.io/revision"], "1");
  assert.equal(out.metadata.annotations[LAST_APPLIED], f.patch.metadata.annotations[LAST_APPLIED]);
  assert.equal(out.metadata.uid, f.live.metadata.uid);
  assert.deepEqual(out.status, f.live.status);
});

Deno.test("kubectl apply (3-way SMP) on a ConfigMap: changed, added and dropped keys", async () => {
  const f = await fixture("apply-configmap");
  const out = applyStrategicMergePatch(f.live, f.patch, CONFIGMAP) as Any;
  assert.deepEqual(out.data, { keep: "1", change: "new", add: "y" });
  assertSubset(out, f.manifest);
  assert.equal(JSON.parse(out.metadata.annotations[LAST_APPLIED]).data.add, "y");
});

Deno.test("kubectl edit (2-way SMP with $setElementOrder) keeps the untouched container and its order", async () => {
  const f = await fixture("edit-deployment");
  assert.match(f.query, /fieldManager=kubectl-edit/);
  const out = applyStrategicMergePatch(f.live, f.patch, DEPLOYMENT) as Any;
  assert.equal(out.spec.replicas, 4);
  assert.deepEqual(out.spec.template.spec.containers.map((c: Any) => [c.name, c.image]), [["web", "nginx:1.26"], [
    "sidecar",
    "busybox:1.36",
  ]]);
  assert.deepEqual(out.spec.template.spec.containers[0].env, f.live.spec.template.spec.containers[0].env);
});

Deno.test("kubectl apply --server-side after client-side apply: no conflict, ownership moves to kubectl", async () => {
  const f = await fixture("ssa-deployment");
  assert.equal(f.contentType, "application/apply-patch+yaml");
  assert.match(f.query, /fieldManager=kubectl&.*force=false/);
  const live = recordUpdateManagedFields(
    undefined,
    f.live,
    "kubectl-client-side-apply",
    "2025-01-01T00:00:00Z",
    "Update",
    {
      statusSubresource: true,
    },
  );
  const out = serverSideApply(live, f.patch as KubeObject, {
    fieldManager: "kubectl",
    force: false,
    nowIso: "2025-01-01T00:05:00Z",
    def: DEPLOYMENT,
  });
  assert.equal(out.spec.replicas, 3);
  assert.equal(out.spec.template.spec.containers[0].image, "nginx:1.26");
  assert.deepEqual(out.metadata.labels, { app: "web", tier: "frontend" });
  const managers = (out.metadata.managedFields as ManagedFieldsEntry[]).map((e) => [e.manager, e.operation]);
  // kube sorts managedFields by operation (Apply before Update), then time (sortEncodedManagedFields).
  assert.deepEqual(managers, [["kubectl", "Apply"], ["kubectl-client-side-apply", "Update"]]);
  const csa = (out.metadata.managedFields as ManagedFieldsEntry[])[1].fieldsV1 as Any;
  assert.equal("f:replicas" in csa["f:spec"], false, "replicas now owned by kubectl only");
  // Fields only the client-side applier owned stay (a real server keeps them too).
  assert.deepEqual(out.spec.template.spec.containers.map((c: Any) => c.name), ["web", "sidecar"]);
  assert.equal(JSON.parse(out.metadata.annotations![LAST_APPLIED]).spec.replicas, 3, "last-applied synced");
});
