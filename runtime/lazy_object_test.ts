import assert from "node:assert/strict";
import { deepEqual } from "./apimachinery/equality.ts";
import { dropManagedFields } from "./cache.ts";
import { isLazyObject, parseWatchLine } from "./lazy_object.ts";
import { deepFreeze, StoreWriter } from "./store.ts";
import type { KubeObject } from "./types.ts";

const machine = {
  apiVersion: "farm.example.com/v1",
  kind: "Machine",
  metadata: {
    name: "m-1",
    namespace: "farm",
    uid: "u-1",
    resourceVersion: "42",
    generation: 3,
    labels: { app: "farm", "tier": "a" },
    annotations: { note: 'quote " and \\ backslash and } brace' },
    ownerReferences: [{ apiVersion: "v1", kind: "Switch", name: "s", uid: "owner-1", controller: true }],
    finalizers: ["farm.example.com/cleanup"],
    managedFields: [{ manager: "kubectl", fieldsV1: { "f:spec": {} } }],
  },
  spec: { size: 3, positions: [{ x: 1, y: [] }, { x: "]}{[", y: null }], empty: {}, escaped: 'a"b\\"c\n' },
  status: { conditions: [{ type: "Ready", status: "True" }], observedGeneration: 3 },
  replicas: 2,
  note: "plain",
  flag: false,
};

function frame(type: string, obj: unknown): string {
  return JSON.stringify({ type, object: obj });
}

function lazy(obj: unknown = machine, type = "MODIFIED"): KubeObject & Record<string, unknown> {
  const ev = parseWatchLine(frame(type, obj)) as { type: string; object: KubeObject & Record<string, unknown> };
  assert.equal(ev.type, type);
  return ev.object;
}

Deno.test("lazy object: reads like the parsed object for keys, spread, JSON, structuredClone and deep equality", () => {
  const o = lazy();
  const plain = JSON.parse(JSON.stringify(machine));
  assert.ok(isLazyObject(o));
  assert.deepEqual(Object.keys(o), Object.keys(plain), "keys in the server's order");
  assert.equal(JSON.stringify(o), JSON.stringify(plain), "JSON.stringify gives the same bytes");
  assert.deepStrictEqual({ ...o }, plain, "spread");
  assert.deepStrictEqual(structuredClone(o), plain, "structuredClone");
  assert.deepStrictEqual(o, plain, "node's deepStrictEqual");
  assert.ok(deepEqual(o, plain) && deepEqual(plain, o), "apimachinery deepEqual, both ways");
  assert.ok(!deepEqual(o, { ...plain, spec: { ...plain.spec, size: 4 } }));
  assert.deepEqual(Object.entries(o).map(([k]) => k), Object.keys(plain));
  assert.ok("spec" in o && Object.hasOwn(o, "status"));
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.equal(o.replicas, 2);
  assert.equal(o.flag, false);
});

Deno.test("lazy object: lazy fields are parsed once, frozen and identity-stable; the object is frozen in the store", () => {
  const writer = new StoreWriter();
  const o = lazy();
  writer.upsert(dropManagedFields(o));
  const stored = writer.get("farm/m-1")! as KubeObject & { spec: { positions: unknown[] }; status: unknown };
  assert.equal(stored, o);
  assert.ok(Object.isFrozen(stored) && Object.isFrozen(stored.metadata) && Object.isFrozen(stored.metadata.labels));
  assert.equal(stored.metadata.managedFields, undefined, "the transform ran on the lazy object");
  const spec = stored.spec;
  assert.equal(stored.spec, spec, "the same object on every read");
  assert.ok(Object.isFrozen(spec) && Object.isFrozen(spec.positions) && Object.isFrozen(spec.positions[0]));
  assert.throws(() => {
    (stored as unknown as Record<string, unknown>).spec = {};
  }, TypeError);
  assert.throws(() => {
    (spec.positions as unknown[]).push(1);
  }, TypeError);
  assert.equal(stored.spec, spec);
  assert.deepEqual(writer.byIndex("label", "tier=a"), [stored]);
  assert.deepEqual(writer.byIndex("owner", "owner-1"), [stored]);
  assert.equal(writer.getByUid("u-1"), stored);
});

Deno.test("lazy object: a transform may assign or add fields before the store freezes it", () => {
  const o = lazy();
  o.status = { phase: "replaced" };
  (o as Record<string, unknown>).extra = { added: [1] };
  deepFreeze(o);
  assert.deepEqual(o.status, { phase: "replaced" });
  assert.ok(Object.isFrozen(o.status) && Object.isFrozen((o.extra as { added: number[] }).added));
  assert.equal(JSON.parse(JSON.stringify(o)).status.phase, "replaced");
  const spread = { ...o, spec: undefined };
  assert.equal(spread.spec, undefined);
});

Deno.test("lazy object: BOOKMARK and ERROR frames, odd spacing, escaped keys and malformed lines", () => {
  const bookmark = parseWatchLine(frame("BOOKMARK", { metadata: { resourceVersion: "9" } }));
  assert.deepEqual(bookmark, { type: "BOOKMARK", object: { metadata: { resourceVersion: "9" } } });
  assert.ok(!isLazyObject((bookmark as { object: object }).object));
  const error = parseWatchLine(frame("ERROR", { kind: "Status", code: 410 }));
  assert.deepEqual(error, { type: "ERROR", object: { kind: "Status", code: 410 } });

  const spaced = ' { "type" : "ADDED" , "object" : { "metadata" : { "name" : "a" } , "spec" : { "n" : [ 1 , 2 ] } } } ';
  assert.deepEqual(parseWatchLine(spaced), JSON.parse(spaced));

  const escapedKey = frame("ADDED", { metadata: { name: "a" }, ['sp"ec']: { n: 1 } });
  assert.deepEqual(parseWatchLine(escapedKey), JSON.parse(escapedKey));
  const proto = '{"type":"ADDED","object":{"metadata":{"name":"a"},"__proto__":{"n":1}}}';
  assert.deepEqual(parseWatchLine(proto), JSON.parse(proto));

  for (
    const bad of ['{"type":"ADDED","object":{"metadata":{"name":"a"}', "not json", '{"type":"ADDED","object":{"a":"x}}']
  ) {
    assert.throws(() => parseWatchLine(bad), SyntaxError, bad);
  }
  const emptyObject = parseWatchLine('{"type":"DELETED","object":{}}');
  assert.deepEqual(emptyObject, { type: "DELETED", object: {} });
});

Deno.test("lazy object: a store upsert does not parse spec or status", () => {
  // A syntax error inside spec (never sent by a real server) surfaces only when spec is read: proof it was not parsed.
  const line =
    '{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"1"},"spec":{"x":tru}}}';
  const o = (parseWatchLine(line) as { object: KubeObject & { spec?: unknown } }).object;
  const writer = new StoreWriter();
  writer.upsert(o);
  assert.equal(writer.get("n/a"), o);
  assert.throws(() => o.spec, SyntaxError);
});
