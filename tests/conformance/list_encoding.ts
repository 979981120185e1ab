/**
 * Conformance cases: how kube-apiserver encodes lists and Status details (found by the differential battery,
 * tests/differential/). A built-in's list — a list, a page, a deletecollection's answer — is a typed Go list whose
 * items carry no apiVersion and kind; a custom resource's list is unstructured and its items keep theirs. A Status
 * about an object without a name (a create without one, invalid ListOptions) has no `details.name` (omitempty); a
 * Table row asked for without its object (`includeObject=None`) holds `object: null` (an empty RawExtension). A
 * continue token that does not decode is refused in the storage's words.
 * @module
 */
import assert from "node:assert/strict";
import { type ConformanceCase, sendBody as call, TABLE_ACCEPT } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const listEncodingCases: ConformanceCase[] = [
  {
    name: "a built-in's list items (list, page, deletecollection) carry no apiVersion or kind; a custom resource's do",
    async run({ noRetry, ns }) {
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      for (const name of ["enc-a", "enc-b"]) {
        const created = await call(noRetry, "POST", cms, { metadata: { name, labels: { enc: "yes" } } });
        assert.equal(created.code, 201, JSON.stringify(created.json));
      }
      const list = await call(noRetry, "GET", `${cms}?labelSelector=enc%3Dyes`);
      assert.equal(list.json.kind, "ConfigMapList");
      assert.equal(list.json.apiVersion, "v1");
      assert.equal(list.json.items.length, 2);
      for (const item of list.json.items) assert.deepEqual([item.apiVersion, item.kind], [undefined, undefined]);
      const page = await call(noRetry, "GET", `${cms}?labelSelector=enc%3Dyes&limit=1`);
      assert.equal(page.json.items[0].kind, undefined);
      const deleted = await call(noRetry, "DELETE", `${cms}?labelSelector=enc%3Dyes`);
      assert.equal(deleted.code, 200, JSON.stringify(deleted.json));
      assert.equal(deleted.json.kind, "ConfigMapList");
      assert.equal(deleted.json.items.length, 2);
      assert.equal(deleted.json.items[0].kind, undefined);
      // The Widget CRD (topic crd) serves an unstructured list.
      const widgets = `/apis/conformance.kubeop.dev/v1/namespaces/${ns}/widgets`;
      const widget = { apiVersion: "conformance.kubeop.dev/v1", kind: "Widget", metadata: { name: "enc-w" } };
      assert.equal((await call(noRetry, "POST", widgets, { ...widget, spec: { size: 1 } })).code, 201);
      const crs = await call(noRetry, "GET", widgets);
      const item = crs.json.items.find((o: Any) => o.metadata.name === "enc-w");
      assert.deepEqual([item.apiVersion, item.kind], ["conformance.kubeop.dev/v1", "Widget"]);
    },
  },
  {
    name: "a Status about an object without a name has no details.name (a create without one, invalid ListOptions)",
    async run({ noRetry, ns }) {
      const created = await call(noRetry, "POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: {} });
      assert.equal(created.code, 422, JSON.stringify(created.json));
      assert.deepEqual(Object.keys(created.json.details), ["kind", "causes"]);
      const listed = await call(
        noRetry,
        "GET",
        `/api/v1/namespaces/${ns}/configmaps?resourceVersionMatch=NotOlderThan`,
      );
      assert.equal(listed.code, 422, JSON.stringify(listed.json));
      assert.deepEqual(listed.json.details, {
        group: "meta.k8s.io",
        kind: "ListOptions",
        causes: [{
          reason: "FieldValueForbidden",
          message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
          field: "resourceVersionMatch",
        }],
      });
    },
  },
  {
    name: "a Table with includeObject=None: each row's object is null (built-in and custom resource)",
    async run({ noRetry, ns }) {
      const table = TABLE_ACCEPT;
      assert.equal(
        (await call(noRetry, "POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "enc-t" } })).code,
        201,
      );
      for (
        const path of [
          `/api/v1/namespaces/${ns}/configmaps/enc-t`,
          `/apis/conformance.kubeop.dev/v1/namespaces/${ns}/widgets`,
        ]
      ) {
        const res = await noRetry.request("GET", `${path}?includeObject=None`, { accept: table });
        const body = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.ok(body.rows.length > 0);
        for (const row of body.rows) assert.ok("object" in row && row.object === null, JSON.stringify(row));
      }
    },
  },
  {
    name: "a continue token that is not one: 400 'invalid continue token: continue key is not valid:' and Go's error",
    async run({ noRetry, ns }) {
      const cases: Array<[string, string]> = [
        ["not-a-token", "invalid character '\\u009e' looking for beginning of value"],
        ["a!bc", "illegal base64 data at input byte 1"],
        ["abcde", "illegal base64 data at input byte 4"],
      ];
      for (const [token, why] of cases) {
        const res = await call(noRetry, "GET", `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=${token}`);
        assert.equal(res.code, 400, JSON.stringify(res.json));
        assert.equal(res.json.reason, "BadRequest");
        assert.equal(res.json.message, `invalid continue token: continue key is not valid: ${why}`);
      }
    },
  },
];
