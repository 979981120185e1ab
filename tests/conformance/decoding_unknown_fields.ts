/**
 * Conformance cases: the fields a built-in kind's Go type does not declare. kube-apiserver's JSON decoder drops them
 * (they are never stored nor echoed); `fieldValidation=Strict` refuses the body with 400 `<Kind> in version "v1"
 * cannot be handled as a <Kind>: strict decoding error: unknown field "<path>", …` (every path, in document order,
 * list items indexed), `Warn` (the default over HTTP) sends one Warning header per field. A patch whose result holds
 * one is refused under Strict with 422 on `patch`, as a patched object that does not decode is.
 * @module
 */
import assert from "node:assert/strict";
import { type ConformanceCase, sendBody as send } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const strict = "?fieldValidation=Strict";

export const decodingUnknownFieldCases: ConformanceCase[] = [
  {
    name: "unknown fields of a built-in under Strict: 400 naming every one in document order, list items indexed",
    async run({ noRetry, ns }) {
      const cm = await send(noRetry, "POST", cms(ns) + strict, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "unkf-strict", bogusMeta: "x" },
        bogusField: 1,
      });
      assert.equal(cm.code, 400, JSON.stringify(cm.json));
      assert.equal(cm.json.reason, "BadRequest");
      assert.equal(
        cm.json.message,
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ' +
          'unknown field "metadata.bogusMeta", unknown field "bogusField"',
      );
      const deploy = await send(noRetry, "POST", `/apis/apps/v1/namespaces/${ns}/deployments${strict}`, {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "unkf-strict" },
        spec: {
          selector: { matchLabels: { a: "b" } },
          template: {
            metadata: { labels: { a: "b" } },
            spec: { containers: [{ name: "c", image: "i" }, { name: "d", image: "i", bogus: true }] },
          },
        },
      });
      assert.equal(deploy.code, 400, JSON.stringify(deploy.json));
      assert.equal(
        deploy.json.message,
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ' +
          'unknown field "spec.template.spec.containers[1].bogus"',
      );
    },
  },
  {
    name: "unknown fields of a built-in under Warn (the default) are dropped, never stored, and warned about",
    async run({ noRetry, ns }) {
      const created = await send(noRetry, "POST", cms(ns), {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "unkf-warn", bogusMeta: "x" },
        data: { a: "1" },
        bogusField: 1,
      });
      assert.equal(created.code, 201, JSON.stringify(created.json));
      assert.equal(created.json.bogusField, undefined);
      assert.equal(created.json.metadata.bogusMeta, undefined);
      assert.match(created.warning, /unknown field \\"bogusField\\"/);
      assert.match(created.warning, /unknown field \\"metadata.bogusMeta\\"/);
      const managed = JSON.stringify(created.json.metadata.managedFields);
      assert.ok(!managed.includes("bogus"), managed);
      const read = await noRetry.request("GET", `${cms(ns)}/unkf-warn`);
      const stored = JSON.parse(new TextDecoder().decode(read.body));
      assert.equal(stored.bogusField, undefined);
      const updated = await send(noRetry, "PUT", `${cms(ns)}/unkf-warn`, { ...stored, other: "x" });
      assert.equal(updated.code, 200, JSON.stringify(updated.json));
      assert.equal(updated.json.other, undefined);
    },
  },
  {
    name: "a patch leaving an unknown field in a built-in: 422 on patch under Strict, dropped under Warn",
    async run({ noRetry, ns }) {
      const created = await send(noRetry, "POST", cms(ns), {
        metadata: { name: "unkf-patch", labels: { b: "2", a: "1" } },
        data: { a: "1" },
      });
      assert.equal(created.code, 201);
      const merge = "application/merge-patch+json";
      const refused = await send(noRetry, "PATCH", `${cms(ns)}/unkf-patch${strict}`, { bogusField: 1 }, merge);
      assert.equal(refused.code, 422, JSON.stringify(refused.json));
      assert.equal(refused.json.reason, "Invalid");
      assert.equal(refused.json.details.causes[0].field, "patch");
      assert.match(refused.json.message, /: strict decoding error: unknown field "bogusField"$/);
      // The object as stored, untouched by the patch: its metadata in Go's ObjectMeta order.
      assert.ok(
        refused.json.message.includes(
          `\\"metadata\\":{\\"name\\":\\"unkf-patch\\",\\"namespace\\":\\"${ns}\\",\\"uid\\":`,
        ),
        refused.json.message,
      );
      assert.ok(refused.json.message.includes(`\\"labels\\":{\\"a\\":\\"1\\",\\"b\\":\\"2\\"}`), refused.json.message);
      const warned = await send(noRetry, "PATCH", `${cms(ns)}/unkf-patch`, { bogusField: 1 }, merge);
      assert.equal(warned.code, 200, JSON.stringify(warned.json));
      assert.equal(warned.json.bogusField, undefined);
      assert.match(warned.warning, /unknown field \\"bogusField\\"/);
    },
  },
  {
    name:
      "every built-in group decodes so: a ServiceCIDR's unknown field (Strict) and a FlowSchema's wrong type are 400",
    async run({ noRetry }) {
      const cidr = await send(noRetry, "POST", `/apis/networking.k8s.io/v1/servicecidrs${strict}`, {
        apiVersion: "networking.k8s.io/v1",
        kind: "ServiceCIDR",
        metadata: { name: "unkf-cidr" },
        spec: { cidrs: ["10.251.0.0/24"], bogus: 1 },
      });
      assert.equal(cidr.code, 400, JSON.stringify(cidr.json));
      assert.equal(
        cidr.json.message,
        'ServiceCIDR in version "v1" cannot be handled as a ServiceCIDR: strict decoding error: unknown field "spec.bogus"',
      );
      const flow = await send(noRetry, "POST", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", {
        apiVersion: "flowcontrol.apiserver.k8s.io/v1",
        kind: "FlowSchema",
        metadata: { name: "unkf-flow" },
        spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: "high" },
      });
      assert.equal(flow.code, 400, JSON.stringify(flow.json));
      assert.equal(
        flow.json.message,
        'FlowSchema in version "v1" cannot be handled as a FlowSchema: json: cannot unmarshal string into Go struct ' +
          "field FlowSchemaSpec.spec.matchingPrecedence of type int32",
      );
    },
  },
  {
    name: "a review (SelfSubjectAccessReview, TokenReview) is decoded like any create: wrong types and Strict 400",
    async run({ noRetry }) {
      const ssar = await send(noRetry, "POST", `/apis/authorization.k8s.io/v1/selfsubjectaccessreviews${strict}`, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb: "get", resource: "pods", bogus: 1 } },
      });
      assert.equal(ssar.code, 400, JSON.stringify(ssar.json));
      assert.equal(
        ssar.json.message,
        'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: strict decoding ' +
          'error: unknown field "spec.resourceAttributes.bogus"',
      );
      const review = await send(noRetry, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        spec: { token: 5 },
      });
      assert.equal(review.code, 400, JSON.stringify(review.json));
      assert.equal(
        review.json.message,
        'TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal number into Go ' +
          "struct field TokenReviewSpec.spec.token of type string",
      );
    },
  },
];
