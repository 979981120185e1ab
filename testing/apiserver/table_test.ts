import assert from "node:assert/strict";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { ResourceDef } from "./resource_def.ts";
import { evalJsonPath, toTable } from "./table.ts";

const NOW = Date.parse("2025-01-01T01:00:00Z");

function def(over: Partial<ResourceDef>): ResourceDef {
  return {
    group: "",
    version: "v1",
    plural: "x",
    singular: "x",
    kind: "X",
    listKind: "XList",
    namespaced: true,
    verbs: [],
    subresources: [],
    tracksGeneration: false,
    custom: false,
    ...over,
  };
}

const FOO = def({
  group: "example.com",
  plural: "foos",
  kind: "Foo",
  custom: true,
  printColumns: [
    { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
    { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: "First", type: "string", jsonPath: ".spec.items[0]" },
    { name: "Phase", type: "string", jsonPath: ".status.phase", priority: 1 },
    { name: "Since", type: "date", jsonPath: ".status.since" },
    { name: "On", type: "boolean", jsonPath: ".spec.on" },
    { name: "Meta", type: "string", jsonPath: ".spec.meta" },
  ],
});

const foo: KubeObject = {
  apiVersion: "example.com/v1",
  kind: "Foo",
  metadata: { name: "foo-a", namespace: "default", creationTimestamp: "2025-01-01T00:55:00Z", labels: { app: "x" } },
  spec: { replicas: 3, items: ["a", "b"], on: true, meta: { k: "v" } },
  status: {
    conditions: [{ type: "Synced", status: "False" }, { type: "Ready", status: "True" }],
    since: "2025-01-01T00:57:57Z",
  },
};

Deno.test("CRD table: printer columns, JSONPath filters and indexes, type conversion, PartialObjectMetadata rows", () => {
  const t = toTable([foo], FOO, { nowMs: NOW, includeColumns: true, listMeta: { resourceVersion: "42" } });
  assert.equal(t.kind, "Table");
  assert.equal(t.apiVersion, "meta.k8s.io/v1");
  assert.deepEqual(t.metadata, { resourceVersion: "42" });
  assert.deepEqual(t.columnDefinitions.map((c) => [c.name, c.type, c.priority]), [
    ["Name", "string", 0],
    ["Replicas", "integer", 0],
    ["Ready", "string", 0],
    ["First", "string", 0],
    ["Phase", "string", 1],
    ["Since", "date", 0],
    ["On", "boolean", 0],
    ["Meta", "string", 0],
  ]);
  assert.equal(
    t.columnDefinitions[1].description,
    "Custom resource definition column (in JSONPath format): .spec.replicas",
  );
  assert.deepEqual(t.rows[0].cells, ["foo-a", 3, "True", "a", null, "2m3s", true, '{"k":"v"}']);
  assert.deepEqual(t.rows[0].object, {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: foo.metadata,
  });
});

Deno.test("CRD table: default Age column; definitions identical across calls; watch events omit them", () => {
  const plain = def({ group: "example.com", kind: "Bar", custom: true });
  const a = toTable([foo], plain, { nowMs: NOW, includeColumns: true });
  const b = toTable([], plain, { nowMs: NOW, includeColumns: true });
  assert.deepEqual(a.columnDefinitions.map((c) => [c.name, c.type]), [["Name", "string"], ["Age", "date"]]);
  assert.deepEqual(a.columnDefinitions, b.columnDefinitions);
  assert.deepEqual(a.rows[0].cells, ["foo-a", "5m"]);
  assert.deepEqual(b.rows, []);
  assert.deepEqual(toTable([foo], plain, { nowMs: NOW, includeColumns: false }).columnDefinitions, []);
});

Deno.test("includeObject=Object carries the full object with kind and apiVersion", () => {
  const t = toTable([{ metadata: { name: "a" }, spec: { x: 1 } }], FOO, {
    nowMs: NOW,
    includeColumns: true,
    includeObject: "Object",
  });
  const obj = t.rows[0].object as KubeObject;
  assert.equal(obj.kind, "Foo");
  assert.equal(obj.apiVersion, "example.com/v1");
  assert.deepEqual(obj.spec, { x: 1 });
});

Deno.test("pod printer: READY, STATUS from waiting reason, RESTARTS with last restart, wide IP/NODE", () => {
  const pod: KubeObject = {
    metadata: { name: "p", creationTimestamp: "2025-01-01T00:00:00Z" },
    spec: { nodeName: "fake-node", containers: [{ name: "a" }, { name: "b" }] },
    status: {
      phase: "Running",
      podIP: "10.244.0.5",
      containerStatuses: [
        { name: "a", ready: true, restartCount: 0, state: { running: {} } },
        {
          name: "b",
          ready: false,
          restartCount: 2,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { finishedAt: "2025-01-01T00:55:00Z" } },
        },
      ],
    },
  };
  const t = toTable([pod], def({ kind: "Pod" }), { nowMs: NOW, includeColumns: true });
  assert.deepEqual(t.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name), [
    "Name",
    "Ready",
    "Status",
    "Restarts",
    "Age",
  ]);
  assert.deepEqual(t.rows[0].cells.slice(0, 7), [
    "p",
    "1/2",
    "CrashLoopBackOff",
    "2 (5m ago)",
    "60m",
    "10.244.0.5",
    "fake-node",
  ]);
  const done = toTable(
    [{ metadata: { name: "d" }, spec: { containers: [{ name: "a" }] }, status: { phase: "Succeeded" } }],
    def({ kind: "Pod" }),
    { nowMs: NOW, includeColumns: true },
  );
  assert.equal(done.rows[0].cells[2], "Succeeded");
  assert.equal(done.rows[0].conditions?.[0].type, "Completed");
});

Deno.test("namespace, secret, configmap, service, lease printers", () => {
  const opts = { nowMs: NOW, includeColumns: true };
  const created = "2025-01-01T00:00:00Z";
  assert.deepEqual(
    toTable(
      [{ metadata: { name: "ns", creationTimestamp: created }, status: { phase: "Terminating" } }],
      def({ kind: "Namespace" }),
      opts,
    ).rows[0].cells,
    ["ns", "Terminating", "60m"],
  );
  assert.deepEqual(
    toTable(
      [{ metadata: { name: "s", creationTimestamp: created }, type: "kubernetes.io/tls", data: { a: "", b: "" } }],
      def({ kind: "Secret" }),
      opts,
    ).rows[0].cells,
    ["s", "kubernetes.io/tls", 2, "60m"],
  );
  assert.deepEqual(
    toTable([{ metadata: { name: "c" }, data: { a: "" }, binaryData: { b: "" } }], def({ kind: "ConfigMap" }), opts)
      .rows[0].cells,
    ["c", 2, "<unknown>"],
  );
  const svc = {
    metadata: { name: "web", creationTimestamp: created },
    spec: {
      type: "NodePort",
      clusterIP: "10.96.0.10",
      ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }, { port: 53, protocol: "UDP" }],
      selector: { b: "2", a: "1" },
    },
  };
  assert.deepEqual(toTable([svc], def({ kind: "Service" }), opts).rows[0].cells, [
    "web",
    "NodePort",
    "10.96.0.10",
    "<none>",
    "80:30080/TCP,53/UDP",
    "60m",
    "a=1,b=2",
  ]);
  const lease = { metadata: { name: "l", creationTimestamp: created }, spec: { holderIdentity: "me" } };
  assert.deepEqual(toTable([lease], def({ group: "coordination.k8s.io", kind: "Lease" }), opts).rows[0].cells, [
    "l",
    "me",
    "60m",
  ]);
});

Deno.test("built-in kinds without a printer (e.g. ClusterRoles) get Name and Created At (RFC3339)", () => {
  const role = { metadata: { name: "reader", creationTimestamp: "2025-01-01T00:00:00Z" } };
  const t = toTable([role], def({ group: "rbac.authorization.k8s.io", kind: "ClusterRole" }), {
    nowMs: NOW,
    includeColumns: true,
  });
  assert.deepEqual(t.columnDefinitions.map((c) => c.name), ["Name", "Created At"]);
  assert.deepEqual(t.rows[0].cells, ["reader", "2025-01-01T00:00:00Z"]);
});

Deno.test("CRD printer (v1.37): scope, served versions sorted with the storage one marked, wide group/kind/short names", () => {
  const crd = {
    metadata: { name: "foos.example.com", creationTimestamp: "2025-01-01T00:00:00Z" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { kind: "Foo", shortNames: ["fo", "f"] },
      versions: [{ name: "v2", served: true }, { name: "v1", served: true, storage: true }, { name: "v0" }],
    },
    status: { conditions: [{ type: "Established", status: "True" }] },
  };
  const t = toTable([crd], def({ group: "apiextensions.k8s.io", kind: "CustomResourceDefinition" }), {
    nowMs: NOW,
    includeColumns: true,
  });
  assert.deepEqual(t.rows[0].cells, [
    "foos.example.com",
    "Namespaced",
    "v1(storage),v2",
    "2025-01-01T00:00:00Z",
    "example.com",
    "Foo",
    "fo,f",
    true,
  ]);
});

Deno.test("event printer: LAST SEEN, OBJECT from involvedObject or regarding", () => {
  const ev = {
    metadata: { name: "e1" },
    type: "Normal",
    reason: "Created",
    involvedObject: { kind: "Pod", name: "p" },
    message: "hi",
    lastTimestamp: "2025-01-01T00:59:00Z",
    count: 2,
  };
  const t = toTable([ev], def({ kind: "Event" }), { nowMs: NOW, includeColumns: true });
  assert.deepEqual(t.rows[0].cells.slice(0, 4), ["60s", "Normal", "Created", "pod/p"]);
  assert.equal(t.rows[0].cells[6], "hi");
});

Deno.test("JSONPath: escaped dots, quoted keys, wildcards, missing keys", () => {
  const o = { metadata: { annotations: { "a.b/c": "x" } }, list: [{ n: 1 }, { n: 2 }] };
  assert.deepEqual(evalJsonPath(o, ".metadata.annotations.a\\.b/c"), ["x"]);
  assert.deepEqual(evalJsonPath(o, ".metadata.annotations['a.b/c']"), ["x"]);
  assert.deepEqual(evalJsonPath(o, "{.list[*].n}"), [1, 2]);
  assert.deepEqual(evalJsonPath(o, ".list[-1].n"), [2]);
  assert.deepEqual(evalJsonPath(o, ".nope.deeper"), []);
});
