import assert from "node:assert/strict";
import { copyJson } from "./json_copy.ts";

Deno.test("copyJson: a deep, unfrozen copy equal to structuredClone's for JSON values", () => {
  const original = Object.freeze({
    apiVersion: "v1",
    metadata: Object.freeze({ name: "p", labels: { app: "web" }, managedFields: [{ fieldsV1: { "f:spec": {} } }] }),
    spec: { containers: [{ name: "c", ports: [{ containerPort: 80 }] }], nodeName: null, paused: false, n: 0 },
    status: { gone: undefined },
  });
  const copy = copyJson(original);
  assert.deepEqual(copy, structuredClone(original));
  assert.ok(!Object.isFrozen(copy) && !Object.isFrozen(copy.metadata));
  assert.ok("gone" in copy.status, "an undefined property is kept, as structuredClone keeps it");
  copy.spec.containers[0].ports[0].containerPort = 81;
  copy.metadata.managedFields[0].fieldsV1["f:spec"] = { changed: true } as never;
  assert.equal(original.spec.containers[0].ports[0].containerPort, 80);
  assert.deepEqual(original.metadata.managedFields[0].fieldsV1["f:spec"], {});
});

Deno.test("copyJson: a __proto__ key stays an own property (as JSON.parse makes it), never the copy's prototype", () => {
  const hostile = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}');
  const copy = copyJson(hostile);
  assert.equal(Object.getPrototypeOf(copy.metadata.labels), Object.prototype);
  assert.deepEqual(Object.keys(copy.metadata.labels), ["__proto__"]);
  assert.deepEqual(copy.metadata.labels["__proto__"], { polluted: "yes" });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("copyJson: values that are not JSON (a Date, bytes) are copied as structuredClone copies them", () => {
  const when = new Date("2026-11-29T00:00:00Z");
  const copy = copyJson({ at: when, bytes: new Uint8Array([1, 2]) });
  assert.ok(copy.at instanceof Date && copy.at !== when && copy.at.getTime() === when.getTime());
  assert.deepEqual(copy.bytes, new Uint8Array([1, 2]));
});
