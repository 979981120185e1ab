/**
 * Conformance cases: an access review's metadata must be empty (a LocalSubjectAccessReview's but for its namespace;
 * found by the differential battery, tests/differential/). kube checks it after the field manager recorded the
 * write, so the 422 quotes the metadata with the writer's managedFields entry, in Go's field order.
 * @module
 */
import assert from "node:assert/strict";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const reviewMetadataCases: ConformanceCase[] = [
  {
    name: "a SubjectAccessReview with a name is 422: metadata must be empty, quoted with its managedFields",
    async run({ noRetry, ns }) {
      const spec = { user: "someone", resourceAttributes: { verb: "get", resource: "pods", namespace: ns } };
      const sent: Array<[string, string, string]> = [
        ["/apis/authorization.k8s.io/v1/subjectaccessreviews", "SubjectAccessReview", "must be empty"],
        [
          `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`,
          "LocalSubjectAccessReview",
          "must be empty except for namespace",
        ],
      ];
      for (const [path, kind, detail] of sent) {
        const body = { apiVersion: "authorization.k8s.io/v1", kind, metadata: { name: "rm" }, spec };
        const res = await noRetry.request("POST", `${path}?fieldManager=conf`, { body: JSON.stringify(body) });
        const status: Any = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 422, JSON.stringify(status));
        assert.equal(status.details.kind, undefined);
        const namespace = kind === "LocalSubjectAccessReview" ? `"namespace":"${ns}",` : "";
        const fields = '{"f:spec":{"f:resourceAttributes":{".":{},"f:namespace":{},"f:resource":{},"f:verb":{}},' +
          '"f:user":{}}}';
        const entry = `{"manager":"conf","operation":"Update","apiVersion":"authorization.k8s.io/v1","time":"TIME",` +
          `"fieldsType":"FieldsV1","fieldsV1":${fields}}`;
        const expected = `.authorization.k8s.io "" is invalid: metadata: Invalid value: ` +
          `{"name":"rm",${namespace}"managedFields":[${entry}]}: ${detail}`;
        assert.equal(status.message.replace(/"time":"[^"]+"/, '"time":"TIME"'), expected);
      }
      const ok = await noRetry.request("POST", sent[0][0], {
        body: JSON.stringify({ apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec }),
      });
      assert.equal(ok.status, 201);
    },
  },
];
