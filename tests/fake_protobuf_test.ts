// Protobuf over real HTTP on the fake API server: bodies client-go encodes (Go-written fixtures) for kinds the old
// hand-kept table lacked, answers in protobuf to a client preferring it (get, list, watch, errors), and custom
// resources, which kube-apiserver never encodes as protobuf.
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { decodeKubernetesProtobuf } from "../testing/apiserver/protobuf.ts";

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
      const created = await fetch(s.url + path, {
        method: "POST",
        body,
        headers: { "content-type": PROTOBUF, accept: `${PROTOBUF}, application/json` },
      });
      // The answer is protobuf too, as kube-apiserver's to a client preferring it.
      assert.equal(created.headers.get("content-type"), PROTOBUF, fixture);
      const answer = decodeKubernetesProtobuf(new Uint8Array(await created.arrayBuffer()));
      assert.equal(created.status, 201, `${fixture}: ${JSON.stringify(answer)}`);
      answers.push(answer);
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

Deno.test("protobuf: a custom resource is answered as JSON when JSON is also acceptable, a protobuf 406 when only protobuf is", async () => {
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
      // The 406 Status itself is protobuf, as kube's CR handler negotiates errors (tests/conformance/protobuf_answers.ts).
      const only = await fetch(`${s.url}${path}`, { headers: { accept: PROTOBUF } });
      assert.equal(only.status, 406, path);
      assert.equal(only.headers.get("content-type"), PROTOBUF);
      assert.equal(
        decodeKubernetesProtobuf(new Uint8Array(await only.arrayBuffer())).message,
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

/** The frames of a protobuf watch body read so far: each a 4-byte big-endian length and a meta/v1 WatchEvent. */
function watchEvents(bytes: Uint8Array): { type: string; object: Record<string, unknown> }[] {
  const events = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + at).getUint32(0);
    if (at + 4 + length > bytes.length) break;
    events.push(decodeWatchEvent(bytes.subarray(at + 4, at + 4 + length)));
    at += 4 + length;
  }
  return events;
}

/** WatchEvent{type: 1, object: 2 (RawExtension{raw: 1})}, read by hand: the test does not trust the encoder's tables. */
function decodeWatchEvent(event: Uint8Array): { type: string; object: Record<string, unknown> } {
  const field = (b: Uint8Array, number: number): Uint8Array => {
    let at = 0;
    while (at < b.length) {
      const tag = b[at++];
      let length = 0;
      for (let shift = 0;; shift += 7) {
        const byte = b[at++];
        length |= (byte & 0x7f) << shift;
        if (byte < 0x80) break;
      }
      if (tag >> 3 === number && (tag & 7) === 2) return b.subarray(at, at + length);
      at += length;
    }
    throw new Error(`field ${number} missing`);
  };
  return {
    type: new TextDecoder().decode(field(event, 1)),
    object: decodeKubernetesProtobuf(field(field(event, 2), 1)),
  };
}

Deno.test("protobuf: a client preferring protobuf gets it for get, list, watch and errors; JSON-first clients get JSON", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const accept = { accept: `${PROTOBUF}, application/json` };
  const ac = new AbortController();
  try {
    const ns = `${s.url}/api/v1/namespaces/default`;
    const created = await call(s.url, "POST", "/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", labels: { app: "x" } },
      data: { a: "1" },
    });
    assert.equal(created.status, 201);
    const rv = created.body.metadata.resourceVersion;

    const get = await fetch(`${ns}/configmaps/c`, { headers: accept });
    assert.equal(get.headers.get("content-type"), PROTOBUF);
    const got = decodeKubernetesProtobuf(new Uint8Array(await get.arrayBuffer()));
    assert.deepEqual([got.kind, got.metadata.name, got.metadata.resourceVersion, got.data], [
      "ConfigMap",
      "c",
      rv,
      { a: "1" },
    ]);

    const list = await fetch(`${ns}/configmaps?labelSelector=app%3Dx`, { headers: accept });
    assert.equal(list.headers.get("content-type"), PROTOBUF);
    // deno-lint-ignore no-explicit-any
    const items = decodeKubernetesProtobuf(new Uint8Array(await list.arrayBuffer())) as any;
    assert.equal(items.kind, "ConfigMapList");
    assert.deepEqual(items.items.map((i: { metadata: { name: string } }) => i.metadata.name), ["c"]);

    const missing = await fetch(`${ns}/configmaps/nope`, { headers: accept });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("content-type"), PROTOBUF);
    // deno-lint-ignore no-explicit-any
    const status = decodeKubernetesProtobuf(new Uint8Array(await missing.arrayBuffer())) as any;
    assert.deepEqual([status.kind, status.reason, status.code], ["Status", "NotFound", 404]);

    // A watch from before the create replays it, then sees the update; then an expired resourceVersion is an ERROR.
    const watch = await fetch(`${ns}/configmaps?watch=1&resourceVersion=${Number(rv) - 1}`, {
      headers: accept,
      signal: ac.signal,
    });
    assert.equal(watch.headers.get("content-type"), `${PROTOBUF};stream=watch`);
    assert.equal(
      (await call(s.url, "PATCH", "/api/v1/namespaces/default/configmaps/c", { data: { a: "2" } }, {
        "content-type": "application/merge-patch+json",
      })).status,
      200,
    );
    const reader = watch.body!.getReader();
    let bytes = new Uint8Array(0);
    while (watchEvents(bytes).length < 2) {
      const { value, done } = await reader.read();
      if (done) throw new Error("watch ended early");
      bytes = new Uint8Array([...bytes, ...value]);
    }
    const events = watchEvents(bytes);
    assert.deepEqual(events.map((e) => [e.type, e.object.kind, (e.object.data as Record<string, string>).a]), [
      ["ADDED", "ConfigMap", "1"],
      ["MODIFIED", "ConfigMap", "2"],
    ]);
    ac.abort();

    // JSON first, or protobuf only as a Table conversion: JSON, as before.
    const json = await fetch(`${ns}/configmaps/c`, { headers: { accept: `application/json, ${PROTOBUF}` } });
    assert.equal(json.headers.get("content-type"), "application/json");
    assert.equal((await json.json()).data.a, "2");
    const table = await fetch(`${ns}/configmaps`, {
      headers: { accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1, application/json;as=Table;g=meta.k8s.io;v=v1` },
    });
    assert.equal((await table.json()).kind, "Table");
  } finally {
    ac.abort();
    await s.stop();
  }
});
