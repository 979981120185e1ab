// Protobuf over real HTTP on the fake API server: bodies client-go encodes (Go-written fixtures) for kinds the old
// hand-kept table lacked, and custom resources, which kube-apiserver never encodes as protobuf.
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";

const FIXTURES = new URL("../testing/apiserver/testdata/protobuf/", import.meta.url);
const PROTOBUF = "application/vnd.kubernetes.protobuf";

Deno.test("protobuf: a Go-encoded ControllerRevision and EndpointSlice are created (kube-controller-manager's writes)", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    // deno-lint-ignore no-explicit-any
    const answers: any[] = [];
    for (
      const [fixture, path] of [
        ["go-controllerrevision.pb", "/apis/apps/v1/namespaces/default/controllerrevisions"],
        ["go-endpointslice.pb", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"],
      ]
    ) {
      const body = await Deno.readFile(new URL(fixture, FIXTURES));
      const created = await call(s.url, "POST", path, body, {
        "content-type": PROTOBUF,
        accept: `${PROTOBUF}, application/json`,
      });
      assert.equal(created.status, 201, `${fixture}: ${JSON.stringify(created.body)}`);
      answers.push(created.body);
    }
    // (Their owner does not exist, so the garbage collector may remove them at once: the answers are what is checked.)
    const [revision, slice] = answers;
    assert.equal(revision.revision, 1);
    assert.deepEqual(revision.data.spec.template.metadata, { labels: { app: "web" } });
    assert.equal(revision.metadata.ownerReferences[0].kind, "StatefulSet");
    assert.match(slice.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.deepEqual(slice.endpoints, [{
      addresses: ["10.244.0.5"],
      conditions: { ready: true },
      nodeName: "fake-node",
    }]);
  } finally {
    await s.stop();
  }
});

Deno.test("protobuf: a custom resource is answered as JSON when JSON is also acceptable, 406 when only protobuf is", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const crd = await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        }],
      },
    });
    assert.equal(crd.status, 201);
    const widgets = "/apis/example.com/v1/namespaces/default/widgets";
    assert.equal(
      (await call(s.url, "POST", widgets, { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1" } }))
        .status,
      201,
    );
    for (const path of [`${widgets}/w1`, widgets]) {
      const only = await call(s.url, "GET", path, undefined, { accept: PROTOBUF });
      assert.equal(only.status, 406, path);
      assert.equal(
        only.body.message,
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
      );
      const fallback = await call(s.url, "GET", path, undefined, { accept: `${PROTOBUF}, application/json` });
      assert.equal(fallback.status, 200, path);
      assert.match(fallback.headers.get("content-type") ?? "", /^application\/json/);
    }
    // Metadata-only (the garbage collector's metadata informers) is a built-in kind: not refused.
    const partial = await call(s.url, "GET", `${widgets}/w1`, undefined, {
      accept: `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json`,
    });
    assert.equal(partial.status, 200);
    // A built-in kind asked for in protobuf only is not refused.
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/default", undefined, { accept: PROTOBUF })).status, 200);
  } finally {
    await s.stop();
  }
});
