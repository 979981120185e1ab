import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

function crd(scope: "Namespaced" | "Cluster", plural = "widgets", kind = "Widget") {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: "example.com",
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: ["wd"], categories: ["all"] },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
        schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } },
      }],
    },
  };
}

Deno.test("a namespaced CRD is Established at once and serves its kind, discovery included", async () => {
  const s = await startFakeApiServer();
  try {
    const created = await call(s.url, "POST", CRDS, crd("Namespaced"));
    assert.equal(created.status, 201);
    const conds = created.body.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`);
    assert.deepEqual(conds, ["NamesAccepted=True", "Established=True"]);
    assert.equal(created.body.status.acceptedNames.kind, "Widget");
    const groups = await call(s.url, "GET", "/apis");
    const group = groups.body.groups.find((g: { name: string }) => g.name === "example.com");
    assert.equal(group.preferredVersion.groupVersion, "example.com/v1");
    const resources = await call(s.url, "GET", "/apis/example.com/v1");
    const widgets = resources.body.resources.find((r: { name: string }) => r.name === "widgets");
    assert.deepEqual(widgets.shortNames, ["wd"]);
    assert.equal(widgets.namespaced, true);
    assert.ok(resources.body.resources.some((r: { name: string }) => r.name === "widgets/status"));
    const W = "/apis/example.com/v1/namespaces/default/widgets";
    const w = await call(s.url, "POST", W, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: { size: 1 },
      status: { ok: true },
    });
    assert.equal(w.status, 201);
    assert.equal(w.body.metadata.generation, 1);
    assert.equal(w.body.status, undefined, "status is dropped on create with a status subresource");
    const spec = await call(s.url, "PUT", `${W}/w`, { ...w.body, spec: { size: 2 } });
    assert.equal(spec.body.metadata.generation, 2);
    const st = await call(s.url, "PUT", `${W}/w/status`, { ...spec.body, status: { ok: true } });
    assert.equal(st.body.metadata.generation, 2, "status changes leave generation alone");
    const meta = await call(s.url, "PUT", `${W}/w`, {
      ...st.body,
      metadata: { ...st.body.metadata, labels: { a: "b" } },
    });
    assert.equal(meta.body.metadata.generation, 2, "metadata changes leave generation alone");
    const noRv = await call(s.url, "PUT", `${W}/w`, { ...meta.body, metadata: { name: "w", namespace: "default" } });
    assert.equal(noRv.status, 422, "custom resources require a resourceVersion on update");
    const table = await fetch(`${s.url}${W}`, {
      headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" },
    })
      .then((r) => r.json());
    assert.equal(table.kind, "Table");
    assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), ["Name", "Size"]);
    assert.deepEqual(table.rows[0].cells, ["w", 2]);
  } finally {
    await s.stop();
  }
});

Deno.test("a cluster-scoped CRD serves cluster objects; deleting the CRD stops serving", async () => {
  const s = await startFakeApiServer();
  try {
    await call(s.url, "POST", CRDS, crd("Cluster", "gadgets", "Gadget"));
    const g = await call(s.url, "POST", "/apis/example.com/v1/gadgets", {
      apiVersion: "example.com/v1",
      kind: "Gadget",
      metadata: { name: "g" },
    });
    assert.equal(g.status, 201);
    assert.equal(g.body.metadata.namespace, undefined);
    assert.equal((await call(s.url, "GET", "/apis/example.com/v1/gadgets/g")).status, 200);
    const del = await call(s.url, "DELETE", `${CRDS}/gadgets.example.com`);
    assert.equal(del.status, 200);
    assert.equal((await call(s.url, "GET", "/apis/example.com/v1/gadgets")).status, 404);
    assert.equal((await call(s.url, "GET", "/apis/example.com/v1")).status, 404);
  } finally {
    await s.stop();
  }
});

Deno.test("a CRD whose name is not plural.group is Invalid", async () => {
  const s = await startFakeApiServer();
  try {
    const bad = crd("Namespaced");
    bad.metadata.name = "wrong.example.com";
    const res = await call(s.url, "POST", CRDS, bad);
    assert.equal(res.status, 422);
    assert.equal(res.body.details.causes[0].field, "metadata.name");
  } finally {
    await s.stop();
  }
});

Deno.test("discovery: /api, /api/v1, /apis/<group>, /version", async () => {
  const s = await startFakeApiServer();
  try {
    assert.deepEqual((await call(s.url, "GET", "/api?timeout=32s")).body.versions, ["v1"]);
    const v1 = await call(s.url, "GET", "/api/v1");
    const pods = v1.body.resources.find((r: { name: string }) => r.name === "pods");
    assert.equal(pods.kind, "Pod");
    assert.ok(pods.verbs.includes("watch"));
    const coord = await call(s.url, "GET", "/apis/coordination.k8s.io");
    assert.equal(coord.body.kind, "APIGroup");
    assert.equal(coord.body.preferredVersion.version, "v1");
    const version = await call(s.url, "GET", "/version");
    assert.equal(version.body.minor, "33");
  } finally {
    await s.stop();
  }
});
