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
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["size"],
                properties: {
                  size: { type: "integer", minimum: 0, maximum: 10 },
                  mode: { type: "string", enum: ["fast", "slow"], default: "slow" },
                },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      }],
    },
  };
}

Deno.test("a namespaced CRD is Established right after its create and serves its kind, discovery included", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const created = await call(s.url, "POST", CRDS, crd("Namespaced"));
    assert.equal(created.status, 201);
    assert.equal(
      created.body.status.conditions,
      null,
      "kube answers a create before establishing: no conditions yet (null)",
    );
    const established = await call(s.url, "GET", `${CRDS}/${created.body.metadata.name}`);
    const conds = established.body.status.conditions.map((c: { type: string; status: string }) =>
      `${c.type}=${c.status}`
    );
    assert.deepEqual(conds, ["NamesAccepted=True", "Established=True"]);
    assert.equal(established.body.status.acceptedNames.kind, "Widget");
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
  const s = await startFakeApiServer({ anonymousAdmin: true });
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
  const s = await startFakeApiServer({ anonymousAdmin: true });
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
  const s = await startFakeApiServer({ anonymousAdmin: true });
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
    assert.equal(version.body.minor, "37");
  } finally {
    await s.stop();
  }
});

Deno.test("CRD schema: defaults applied, 422 with the field path on a violation, Strict refuses unknown fields", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", CRDS, crd("Namespaced"));
    const W = "/apis/example.com/v1/namespaces/default/widgets";
    const ok = await call(s.url, "POST", W, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "a" },
      spec: { size: 1 },
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.spec.mode, "slow", "default applied");
    const big = await call(s.url, "POST", W, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "b" },
      spec: { size: 50 },
    });
    assert.equal(big.status, 422);
    assert.equal(big.body.details.causes[0].field, "spec.size");
    assert.match(big.body.message, /spec\.size/);
    const missing = await call(s.url, "POST", W, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "c" },
      spec: {},
    });
    assert.equal(missing.status, 422);
    assert.match(missing.body.message, /spec\.size: Required value/);
    const strict = await call(s.url, "POST", `${W}?fieldValidation=Strict`, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "d" },
      spec: { size: 1, extra: true },
    });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /unknown field "spec\.extra"/);
    const pruned = await call(s.url, "POST", W, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "e" },
      spec: { size: 1, extra: true },
    });
    assert.equal(pruned.status, 201);
    assert.equal(pruned.body.spec.extra, undefined);
  } finally {
    await s.stop();
  }
});

Deno.test("patches: merge, JSON, strategic (core only, 415 on CRs) and server-side apply with conflicts", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", CRDS, crd("Namespaced"));
    const W = "/apis/example.com/v1/namespaces/default/widgets";
    await call(s.url, "POST", W, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "a" },
      spec: { size: 1 },
    });
    const merge = await call(s.url, "PATCH", `${W}/a`, { spec: { size: 2 } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(merge.body.spec.size, 2);
    const json = await call(s.url, "PATCH", `${W}/a`, [{ op: "replace", path: "/spec/size", value: 3 }], {
      "content-type": "application/json-patch+json",
    });
    assert.equal(json.body.spec.size, 3);
    const smp = await call(s.url, "PATCH", `${W}/a`, { spec: { size: 4 } }, {
      "content-type": "application/strategic-merge-patch+json",
    });
    assert.equal(smp.status, 415);
    const POD = "/api/v1/namespaces/default/pods";
    await call(s.url, "POST", POD, {
      metadata: { name: "p" },
      spec: { containers: [{ name: "a", image: "x" }, { name: "b", image: "y" }] },
    });
    const podPatch = await call(s.url, "PATCH", `${POD}/p`, { spec: { containers: [{ name: "b", image: "z" }] } }, {
      "content-type": "application/strategic-merge-patch+json",
    });
    assert.deepEqual(podPatch.body.spec.containers.map((c: { image: string }) => c.image), ["x", "z"]);
    const applyHeaders = { "content-type": "application/apply-patch+yaml" };
    const applied = await call(s.url, "PATCH", `${W}/b?fieldManager=alice`, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "b" },
      spec: { size: 5 },
    }, applyHeaders);
    assert.equal(applied.status, 201, "apply creates");
    assert.equal(applied.body.metadata.managedFields[0].manager, "alice");
    const clash = await call(s.url, "PATCH", `${W}/b?fieldManager=bob`, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "b" },
      spec: { size: 6 },
    }, applyHeaders);
    assert.equal(clash.status, 409);
    const forced = await call(s.url, "PATCH", `${W}/b?fieldManager=bob&force=true`, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "b" },
      spec: { size: 6 },
    }, applyHeaders);
    assert.equal(forced.status, 200);
    assert.equal(forced.body.spec.size, 6);
    const noManager = await call(s.url, "PATCH", `${W}/b`, { spec: { size: 1 } }, applyHeaders);
    assert.equal(noManager.status, 422);
  } finally {
    await s.stop();
  }
});

Deno.test("OpenAPI v3: index lists core and CRD group-versions, the hash changes with the CRD", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const before = await call(s.url, "GET", "/openapi/v3");
    assert.ok(before.body.paths["api/v1"]);
    assert.equal(before.body.paths["apis/example.com/v1"], undefined);
    await call(s.url, "POST", CRDS, crd("Namespaced"));
    const after = await call(s.url, "GET", "/openapi/v3");
    const entry = after.body.paths["apis/example.com/v1"];
    assert.match(entry.serverRelativeURL, /hash=/);
    const doc = await call(s.url, "GET", entry.serverRelativeURL);
    assert.equal(doc.status, 200);
    assert.ok(doc.body.paths);
    // v2 holds the CRD too (tests/conformance/openapi_v2.ts pins the rest).
    const v2 = await call(s.url, "GET", "/openapi/v2");
    assert.equal(v2.status, 200);
    assert.ok(Object.keys(v2.body.paths).some((p) => p.startsWith("/apis/example.com/v1/")));
  } finally {
    await s.stop();
  }
});

Deno.test("PartialObjectMetadata for get, list and watch", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const CM = "/api/v1/namespaces/default/configmaps";
  try {
    await call(s.url, "POST", CM, { metadata: { name: "a" }, data: { secret: "x" } });
    const accept = { accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json" };
    const list = await call(s.url, "GET", CM, undefined, accept);
    assert.equal(list.body.kind, "PartialObjectMetadataList");
    assert.equal(list.body.items[0].data, undefined);
    const one = await call(s.url, "GET", `${CM}/a`, undefined, {
      accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    });
    assert.equal(one.body.kind, "PartialObjectMetadata");
    const res = await fetch(`${s.url}${CM}?watch=1`, { headers: accept });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    const frame = JSON.parse(new TextDecoder().decode(value));
    assert.equal(frame.object.kind, "PartialObjectMetadata");
    await reader.cancel();
  } finally {
    await s.stop();
  }
});
