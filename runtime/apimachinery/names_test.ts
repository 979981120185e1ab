import assert from "node:assert/strict";
import {
  dns1035LabelErrors,
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelValueErrors,
  qualifiedNameErrors,
  resourceId,
} from "./names.ts";

Deno.test("resourceId: plural.group, plural alone for the core group", () => {
  assert.equal(resourceId({ group: "apps", plural: "deployments" }), "deployments.apps");
  assert.equal(resourceId({ group: "", plural: "pods" }), "pods");
});

Deno.test("name checks: valid names have no errors, invalid ones kube's messages", () => {
  for (const ok of ["a", "a-b", "a.b.c", "0x"]) assert.deepEqual(dns1123SubdomainErrors(ok), [], ok);
  assert.match(
    dns1123SubdomainErrors("A")[0],
    /^a lowercase RFC 1123 subdomain must consist of .*\(e\.g\. 'example\.com', regex used/,
  );
  assert.equal(dns1123SubdomainErrors("a".repeat(254))[0], "must be no more than 253 characters");
  assert.deepEqual(dns1123LabelErrors("ns-1"), []);
  assert.match(dns1123LabelErrors("a.b")[0], /\(e\.g\. 'my-name', {2}or '123-abc', regex used for validation is/);
  assert.equal(dns1123LabelErrors("a".repeat(64))[0], "must be no more than 63 characters");
  assert.deepEqual(dns1035LabelErrors("svc"), []);
  assert.match(dns1035LabelErrors("1svc")[0], /^a DNS-1035 label must .*'abc-123'/);
  assert.deepEqual(qualifiedNameErrors("example.com/My_Name"), []);
  assert.deepEqual(qualifiedNameErrors("/x"), ["prefix part must be non-empty"]);
  assert.match(qualifiedNameErrors("Example.com/x")[0], /^prefix part a lowercase RFC 1123 subdomain/);
  assert.match(qualifiedNameErrors("a/b/c")[0], /^a qualified name must consist of/);
  assert.deepEqual(labelValueErrors(""), []);
  assert.match(labelValueErrors("-x")[0], /^a valid label must be an empty string/);
});
