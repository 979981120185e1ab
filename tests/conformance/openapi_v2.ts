/**
 * Conformance cases: `/openapi/v2`, the Swagger 2.0 document client-go's `discovery.OpenAPISchema()` reads (kubectl
 * apply's patch-type probe when v3 has no strategic merge patch, `kubectl explain --output=plaintext-openapiv2`,
 * older clients): JSON and gnostic protobuf, a quoted ETag (the SHA-512 of the JSON) honoured by If-None-Match, 406
 * for other media types, and a custom resource's definition.
 * @module
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { KubeClient } from "../../runtime/client/client.ts";
import { eventually } from "../../testing/eventually.ts";
import { type ConformanceCase, POLL } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
const PROTOBUF_ANSWER = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

async function get(client: KubeClient, accept?: string, headers?: Record<string, string>) {
  const res = await client.request("GET", "/openapi/v2", { accept: accept ?? "application/json", headers });
  return { code: res.status, headers: res.headers, body: res.body };
}

/** The first length-delimited field of a protobuf message: its number and text. */
function firstString(bytes: Uint8Array): { field: number; text: string } {
  const field = bytes[0] >> 3;
  return { field, text: new TextDecoder().decode(bytes.subarray(2, 2 + bytes[1])) };
}

/** `/openapi/v2`. */
export const openApiV2Cases: ConformanceCase[] = [
  {
    name:
      "OpenAPI v2: Swagger 2.0 JSON with #/definitions/ schemas, body parameters, consumes/produces and the ETag of its bytes",
    async run({ noRetry }) {
      const res = await get(noRetry);
      assert.equal(res.code, 200);
      assert.equal(res.headers.get("content-type"), "application/json");
      const etag = createHash("sha512").update(res.body).digest("hex").toUpperCase();
      assert.equal(res.headers.get("etag"), `"${etag}"`);
      const doc = JSON.parse(new TextDecoder().decode(res.body));
      assert.equal(doc.swagger, "2.0");
      assert.deepEqual(doc.info, { title: "Kubernetes", version: "1.37" });
      assert.deepEqual(doc.security, [{ BearerToken: [] }]);
      assert.equal(doc.securityDefinitions.BearerToken.type, "apiKey");
      const cm = doc.definitions["io.k8s.api.core.v1.ConfigMap"];
      assert.ok(["binaryData", "data", "immutable", "metadata"].every((f) => f in cm.properties));
      assert.equal(cm.properties.metadata.$ref, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
      assert.deepEqual(cm["x-kubernetes-group-version-kind"], [{ group: "", kind: "ConfigMap", version: "v1" }]);
      const list = doc.definitions["io.k8s.api.core.v1.ConfigMapList"];
      assert.deepEqual(list.properties.items.items, { $ref: "#/definitions/io.k8s.api.core.v1.ConfigMap" });
      const item = doc.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"];
      assert.equal(item.put.operationId, "replaceCoreV1NamespacedConfigMap");
      assert.deepEqual(item.put.tags, ["core_v1"]);
      assert.deepEqual(item.put.consumes, ["*/*"]);
      assert.deepEqual(item.put.schemes, ["https"]);
      assert.deepEqual(item.put.parameters[0], {
        name: "body",
        in: "body",
        required: true,
        schema: { $ref: "#/definitions/io.k8s.api.core.v1.ConfigMap" },
      });
      assert.deepEqual(item.put.responses["200"].schema, { $ref: "#/definitions/io.k8s.api.core.v1.ConfigMap" });
      assert.equal(item.patch["x-kubernetes-action"], "patch");
      assert.deepEqual(item.patch["x-kubernetes-group-version-kind"], { group: "", kind: "ConfigMap", version: "v1" });
      assert.ok(item.patch.consumes.includes("application/merge-patch+json"));
      // Only the verbs a resource serves: bindings are create-only, componentstatuses get and list.
      const methods = (path: string) =>
        Object.keys(doc.paths[path] ?? {}).filter((k) => ["get", "put", "post", "delete", "patch"].includes(k));
      assert.deepEqual(methods("/api/v1/namespaces/{namespace}/bindings"), ["post"]);
      assert.deepEqual(methods("/api/v1/componentstatuses"), ["get"]);
      assert.deepEqual(methods("/api/v1/componentstatuses/{name}"), ["get"]);
      assert.ok(!("/api/v1/namespaces/{namespace}/bindings/{name}" in doc.paths));
      assert.deepEqual(methods("/api/v1/namespaces").sort(), ["get", "post"]);
      const collection = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments"];
      assert.equal(collection.get.operationId, "listAppsV1NamespacedDeployment");
      assert.deepEqual(collection.get.produces, [
        "application/json",
        "application/yaml",
        "application/vnd.kubernetes.protobuf",
        "application/json;stream=watch",
        "application/vnd.kubernetes.protobuf;stream=watch",
      ]);
    },
  },
  {
    name: "OpenAPI v2: gnostic protobuf for both media-type spellings, with the JSON's ETag; YAML is 406 with no body",
    async run({ noRetry }) {
      const json = await get(noRetry);
      for (const accept of [PROTOBUF, PROTOBUF.replace("@", "."), `${PROTOBUF}, application/json`]) {
        const res = await get(noRetry, accept);
        assert.equal(res.code, 200, accept);
        assert.equal(res.headers.get("content-type"), PROTOBUF_ANSWER);
        assert.equal(res.headers.get("etag"), json.headers.get("etag"));
        assert.deepEqual(firstString(res.body), { field: 1, text: "2.0" }); // Document.swagger
        assert.ok(res.body.length > 1000);
      }
      for (const accept of ["application/yaml", "text/plain", "application/vnd.kubernetes.protobuf"]) {
        const res = await get(noRetry, accept);
        assert.equal(res.code, 406, accept);
        assert.equal(res.body.length, 0);
      }
      const any = await get(noRetry, "*/*");
      assert.equal(any.headers.get("content-type"), "application/json");
    },
  },
  {
    name: "OpenAPI v2: If-None-Match with the current ETag is 304 without a body (JSON and protobuf), another ETag 200",
    async run({ noRetry }) {
      const etag = (await get(noRetry)).headers.get("etag")!;
      for (const accept of ["application/json", PROTOBUF]) {
        const same = await get(noRetry, accept, { "If-None-Match": etag });
        assert.equal(same.code, 304, accept);
        assert.equal(same.body.length, 0);
        assert.equal(same.headers.get("etag"), etag);
      }
      const other = await get(noRetry, "application/json", { "If-None-Match": '"0123"' });
      assert.equal(other.code, 200);
    },
  },
  {
    name: "OpenAPI v2: a custom resource's definition (conformance Widget) with its schema and kind",
    async run({ noRetry }) {
      const doc = await eventually("the Widget in /openapi/v2", async () => {
        const res = await get(noRetry);
        const d = JSON.parse(new TextDecoder().decode(res.body));
        return d.definitions["dev.kubeop.conformance.v1.Widget"] ? d : undefined;
      }, POLL);
      const widget = doc.definitions["dev.kubeop.conformance.v1.Widget"];
      assert.deepEqual(widget["x-kubernetes-group-version-kind"], [
        { group: "conformance.kubeop.dev", kind: "Widget", version: "v1" },
      ]);
      assert.equal(widget.properties.spec.properties.size.type, "integer");
      assert.equal(widget.properties.metadata.$ref, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
      const patch = doc.paths["/apis/conformance.kubeop.dev/v1/namespaces/{namespace}/widgets/{name}"].patch;
      assert.equal(patch.operationId, "patchConformanceKubeopDevV1NamespacedWidget");
      assert.ok(!patch.consumes.includes("application/strategic-merge-patch+json"));
      const list = doc.definitions["dev.kubeop.conformance.v1.WidgetList"] as Any;
      assert.deepEqual(list.properties.items.items, { $ref: "#/definitions/dev.kubeop.conformance.v1.Widget" });
    },
  },
];
