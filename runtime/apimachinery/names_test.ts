import assert from "node:assert/strict";
import {
  childName,
  dns1035LabelErrors,
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelValueErrors,
  labelValueFor,
  qualifiedNameErrors,
  resourceId,
  shortHash,
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
  assert.match(qualifiedNameErrors("a/b/c")[0], /^a valid label key must consist of/);
  assert.deepEqual(labelValueErrors(""), []);
  assert.match(labelValueErrors("-x")[0], /^a valid label must be an empty string/);
});

Deno.test("childName: unchanged when it fits, cut plus a stable hash when it does not", () => {
  assert.equal(childName("backup", "pod"), "backup-pod");
  const fits = "a".repeat(249);
  assert.equal(childName(fits, "pod"), `${fits}-pod`); // exactly 253: the name it always had
  for (const length of [63, 250, 253]) {
    const parent = "p".repeat(length - 3) + "x.y";
    const name = childName(parent, "netperf-server");
    assert.ok(name.length <= 253, `${length}: ${name.length}`);
    assert.deepEqual(dns1123SubdomainErrors(name), [], name);
    assert.ok(name.endsWith("-netperf-server"));
    assert.equal(childName(parent, "netperf-server"), name, "deterministic");
  }
  const a = childName("q".repeat(252) + "a", "pod");
  const b = childName("q".repeat(252) + "b", "pod");
  assert.notEqual(a, b, "parents sharing the kept prefix get different children");
  // A cut that would end on '.' or '-' drops it: the result stays a DNS subdomain.
  const dotted = childName(`${"d".repeat(236)}.${"e".repeat(16)}`, "pod");
  assert.deepEqual(dns1123SubdomainErrors(dotted), [], dotted);
  assert.equal(childName("x".repeat(59), "pod", { maxLength: 63 }), `${"x".repeat(59)}-pod`);
  const short = childName("x".repeat(60), "pod", { maxLength: 63 });
  assert.equal(short.length <= 63, true);
  assert.deepEqual(dns1123LabelErrors(short), []);
  assert.throws(() => childName("x".repeat(20), "y".repeat(20), { maxLength: 25 }), RangeError);
});

Deno.test("labelValueFor: valid values unchanged, long or odd names cut to a valid value with a hash", () => {
  assert.equal(labelValueFor("web"), "web");
  const max = "m".repeat(63);
  assert.equal(labelValueFor(max), max);
  for (const name of ["m".repeat(64), "m".repeat(253), `${"a".repeat(50)}.${"b".repeat(20)}`, "-x-", "..."]) {
    const value = labelValueFor(name);
    assert.deepEqual(labelValueErrors(value), [], `${name} → ${value}`);
    assert.notEqual(value, "", name);
    assert.equal(labelValueFor(name), value, "deterministic");
  }
  assert.notEqual(labelValueFor("m".repeat(252) + "a"), labelValueFor("m".repeat(252) + "b"));
  assert.match(labelValueFor("m".repeat(64)), /^m+-[b-z2-9]{1,10}$/);
});

Deno.test("shortHash: FNV-1a 32 in SafeEncodeString's alphabet, stable", () => {
  // fnv32a("") = 2166136261, fnv32a("a") = 0xe40c292c = 3826002220; digits through "bcdfghjklmnpqrstvwxz2456789"
  assert.equal(shortHash(""), "dcjjcfjdjc");
  assert.equal(shortHash("a"), "fldjbbdddb");
});
