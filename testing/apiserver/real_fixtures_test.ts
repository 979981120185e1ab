/**
 * table.ts, schema.ts and patch/apply.ts against answers recorded from a real kube-apiserver v1.37
 * (testdata/capture_real.ts → testdata/real/fixtures.json): same Table columns and cells, same 422 causes and
 * messages, same managedFields and conflict bodies.
 */
import assert from "node:assert/strict";
import { ApiError, type StatusCause } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { recordUpdateManagedFields, serverSideApply } from "./patch/apply.ts";
import { applyMergePatch } from "../../runtime/apimachinery/merge_patch.ts";
import { applyStrategicMergePatch } from "./patch/strategic.ts";
import { type PrintColumn, type ResourceDef, resourceDefFor } from "./resource_def.ts";
import { invalidStatus, validateAndDefault } from "./schema.ts";
import { toTable } from "./table.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const fixtures: Record<string, Any> = JSON.parse(
  await Deno.readTextFile(new URL("./testdata/real/fixtures.json", import.meta.url)),
);

const def = resourceDefFor;

const crdVersion = fixtures.crd.spec.versions[0];
const FOO = def("example.com", "Foo", {
  custom: true,
  printColumns: crdVersion.additionalPrinterColumns as PrintColumn[],
  schema: crdVersion.schema.openAPIV3Schema,
  subresources: ["status"],
});
const TABLES: [string, ResourceDef][] = [
  ["configmaps", def("", "ConfigMap")],
  ["secrets", def("", "Secret")],
  ["services", def("", "Service")],
  ["pods", def("", "Pod")],
  ["serviceaccounts", def("", "ServiceAccount")],
  ["leases", def("coordination.k8s.io", "Lease")],
  ["deployments", def("apps", "Deployment")],
  ["events", def("", "Event")],
  ["namespaces", def("", "Namespace", { namespaced: false })],
  ["foos", FOO],
  ["customresourcedefinitions", def("apiextensions.k8s.io", "CustomResourceDefinition", { namespaced: false })],
];

/** Age cells may differ by the second the real server took between reading the clock and sending the Date. */
function sameCell(got: unknown, want: unknown): boolean {
  if (got === want) return true;
  if (typeof got === "string" && typeof want === "string" && /^\d+s$/.test(got) && /^\d+s$/.test(want)) {
    return Math.abs(parseInt(got) - parseInt(want)) <= 2;
  }
  return false;
}

for (const [name, resource] of TABLES) {
  Deno.test(`Table for ${name} matches kube-apiserver: column definitions and cells`, () => {
    const { date, table } = fixtures[`table:${name}`];
    const objects = table.rows.map((r: Any) => r.object as KubeObject);
    const ours = toTable(objects, resource, {
      nowMs: Date.parse(date),
      includeColumns: true,
      listMeta: table.metadata,
      includeObject: "Object",
    });
    assert.deepEqual(ours.columnDefinitions, table.columnDefinitions);
    assert.deepEqual(ours.metadata, table.metadata);
    table.rows.forEach((row: Any, i: number) => {
      const cells = ours.rows[i].cells;
      assert.equal(cells.length, row.cells.length);
      row.cells.forEach((want: unknown, j: number) => {
        assert.ok(
          sameCell(cells[j], want),
          `${name} row ${i} cell ${j} (${table.columnDefinitions[j].name}): ${JSON.stringify(cells[j])} vs ${
            JSON.stringify(want)
          }`,
        );
      });
      assert.deepEqual(ours.rows[i].conditions, row.conditions);
    });
  });
}

for (const key of Object.keys(fixtures).filter((k) => k.startsWith("invalid:"))) {
  Deno.test(`CRD schema ${key}: same causes and message as kube-apiserver`, () => {
    const { spec, status, body } = fixtures[key];
    assert.equal(status, 422);
    const obj = { apiVersion: "example.com/v1", kind: "Foo", metadata: { name: body.details.name }, spec };
    const { causes } = validateAndDefault(obj, FOO.schema!);
    const sortCauses = (list: StatusCause[]) =>
      [...list].sort((a, b) => `${a.field}${a.message}`.localeCompare(`${b.field}${b.message}`));
    assert.deepEqual(sortCauses(causes), sortCauses(body.details.causes));
    // The real server walks properties in Go map order, so only the set of message parts is stable.
    const parts = (m: string) => m.replace(/^.*? is invalid: \[?|\]$/g, "").split(/, (?=spec\.)/).sort();
    const ours = invalidStatus("Foo", body.details.name, "example.com", causes);
    assert.deepEqual(parts(ours.message!), parts(body.message));
    assert.equal(
      ours.message!.startsWith(`Foo.example.com "${body.details.name}" is invalid: ${causes.length > 1 ? "[" : ""}`),
      true,
    );
  });
}

Deno.test("CRD create: pruning and defaulting match kube-apiserver", () => {
  const created = fixtures.createdFoo;
  const sent = {
    apiVersion: "example.com/v1",
    kind: "Foo",
    metadata: { name: "a" },
    spec: { size: 3, tags: ["x", "y"], ratio: 0.5, on: true, extra: 1 },
  };
  const { object, pruned } = validateAndDefault(sent, FOO.schema!);
  assert.deepEqual((object as Any).spec, created.spec);
  assert.deepEqual(pruned, ["spec.extra"]);
});

function stripTimes(entries: Any[]): Any[] {
  return entries.map(({ time: _time, ...rest }: Any) => rest);
}

Deno.test("server-side apply: managedFields, conflicts and removals match kube-apiserver step by step", () => {
  const CONFIGMAP = def("", "ConfigMap");
  const now = "2026-01-01T00:00:00Z";
  const body = (data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "ssa", namespace: "cap", labels: { app: "x" } },
    data,
  });
  const apply = (current: KubeObject | undefined, manager: string, data: Record<string, string>) =>
    serverSideApply(current, body(data) as KubeObject, {
      fieldManager: manager,
      force: false,
      nowIso: now,
      def: CONFIGMAP,
    });

  let obj = apply(undefined, "alpha", { a: "1", b: "1" });
  assert.deepEqual(
    stripTimes(obj.metadata.managedFields!),
    stripTimes(fixtures["ssa:create"].body.metadata.managedFields),
  );
  obj = apply(obj, "beta", { c: "1" });
  assert.deepEqual(obj.data, fixtures["ssa:beta"].body.data);
  assert.deepEqual(
    stripTimes(obj.metadata.managedFields!),
    stripTimes(fixtures["ssa:beta"].body.metadata.managedFields),
  );
  for (const [step, data] of [["ssa:conflict1", { a: "2" }], ["ssa:conflict2", { a: "2", c: "2" }]] as const) {
    const want = fixtures[step].body;
    assert.throws(() => apply(obj, "gamma", data), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.deepEqual({ ...err.status, metadata: {} }, { ...want, metadata: {} });
      return true;
    }, step);
  }
  const patched = applyMergePatch(obj, { data: { b: "9" } }) as KubeObject;
  obj = recordUpdateManagedFields(obj, patched, "editor", now, "Update", { def: CONFIGMAP });
  assert.deepEqual(
    stripTimes(obj.metadata.managedFields!),
    stripTimes(fixtures["ssa:update"].body.metadata.managedFields),
  );
  const wantUpdateConflict = fixtures["ssa:conflictUpdate"].body;
  assert.throws(() => apply(obj, "alpha", { a: "1", b: "1" }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    const normalise = (s: string) => s.replace(/ at \d{4}-\d\d-\d\dT[\d:]+Z/g, " at <time>");
    assert.equal(normalise(err.status.message!), normalise(wantUpdateConflict.message));
    return true;
  });
  obj = apply(obj, "alpha", { a: "1" });
  assert.deepEqual(obj.data, fixtures["ssa:drop"].body.data);
  assert.deepEqual(
    stripTimes(obj.metadata.managedFields!),
    stripTimes(fixtures["ssa:drop"].body.metadata.managedFields),
  );
});

Deno.test("server-side apply of a Deployment: fieldsV1 matches kube-apiserver's", () => {
  const real = fixtures["ssa:deployment"].body;
  const sent = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "ssa-dep", namespace: "cap" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "s" } },
      template: {
        metadata: { labels: { app: "s" } },
        spec: {
          containers: [{
            name: "web",
            image: "nginx",
            ports: [{ containerPort: 80 }],
            env: [{ name: "A", value: "1" }],
          }],
          volumes: [{ name: "v", emptyDir: {} }],
        },
      },
    },
  };
  const ours = serverSideApply(undefined, sent as KubeObject, {
    fieldManager: "kubectl",
    force: false,
    nowIso: "2026-01-01T00:00:00Z",
    def: def("apps", "Deployment", { subresources: ["status", "scale"] }),
  });
  assert.deepEqual((ours.metadata.managedFields as Any)[0].fieldsV1, real.metadata.managedFields[0].fieldsV1);
});

for (const name of ["apply-deployment", "apply-configmap", "edit-deployment"]) {
  Deno.test(`strategic merge patch ${name}: same result as kube-apiserver on the same object`, async () => {
    const { before, after, status } = fixtures[`smp:${name}`];
    assert.equal(status, 200);
    const f = JSON.parse(await Deno.readTextFile(new URL(`./testdata/patches/${name}.json`, import.meta.url)));
    const resource = before.kind === "Deployment"
      ? def("apps", "Deployment", { subresources: ["status", "scale"] })
      : def("", "ConfigMap");
    const ours = applyStrategicMergePatch(before, f.patch, resource) as Any;
    assert.deepEqual(ours.spec, after.spec);
    assert.deepEqual(ours.data, after.data);
    assert.deepEqual(ours.metadata.labels, after.metadata.labels);
    assert.deepEqual(ours.metadata.annotations, after.metadata.annotations);
  });
}
