import assert from "node:assert/strict";
import { goTypeError } from "./go_json_types.ts";

Deno.test("goTypeError: an undefined field is absent (the fake's own objects hold some), null is the zero value", () => {
  assert.equal(
    goTypeError("", "v1", "ConfigMap", { metadata: { name: "a", namespace: undefined, labels: null } }),
    undefined,
  );
});

Deno.test("goTypeError: the first wrong field in document order; a bad quantity wins over an earlier type error", () => {
  assert.equal(
    goTypeError("", "v1", "ConfigMap", { data: { a: 1 }, metadata: { labels: { b: 2 } } }),
    "json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
  );
  const pod = {
    metadata: { labels: { b: 2 } },
    spec: { containers: [{ name: "c", resources: { limits: { cpu: "lots" } } }] },
  };
  assert.match(goTypeError("", "v1", "Pod", pod)!, /^quantities must match the regular expression/);
});

Deno.test("goTypeError: kinds the recording does not hold are not checked", () => {
  assert.equal(goTypeError("example.com", "v1", "Widget", { spec: 5 }), undefined);
});

Deno.test("goTypeError: Go's named types at each level: the field's, a list item's, a map value's and its items'", () => {
  const review = (extra: unknown) => ({ spec: { user: "u", extra } });
  const field = "json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.extra of type";
  const check = (extra: unknown) => goTypeError("authorization.k8s.io", "v1", "SubjectAccessReview", review(extra));
  assert.equal(check("x"), `${field} map[string]v1.ExtraValue`);
  assert.equal(check({ a: "x" }), `${field} v1.ExtraValue`);
  assert.equal(check({ a: [1] }), field.replace("string into", "number into") + " string");
  assert.equal(check({ a: ["x"] }), undefined);
  const pod = (container: unknown) => ({ spec: { containers: [container] } });
  assert.equal(
    goTypeError("", "v1", "Pod", pod({ securityContext: { capabilities: { drop: "ALL" } } })),
    "json: cannot unmarshal string into Go struct field Capabilities.spec.containers.securityContext.capabilities.drop " +
      "of type []v1.Capability",
  );
  assert.equal(
    goTypeError("", "v1", "Secret", { type: 1 }),
    "json: cannot unmarshal number into Go struct field Secret.type of type v1.SecretType",
  );
});
