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
