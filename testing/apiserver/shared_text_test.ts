import assert from "node:assert/strict";
import { randomInt, seededRandom } from "../../runtime/random.ts";
import { asciiJson } from "./ascii_json.ts";
import { SharedParts } from "./shared_text.ts";
import type { Unstructured } from "./unstructured.ts";

Deno.test("shared parts: the pieces joined are the object's ASCII JSON, whatever its shape", () => {
  const random = seededRandom(3);
  const parts = new SharedParts();
  const value = (depth: number): unknown => {
    const pick = randomInt(random, depth > 3 ? 4 : 7);
    if (pick === 0) return "s".repeat(randomInt(random, 90)) + 'é\u0000"\\';
    if (pick === 1) return randomInt(random, 1000);
    if (pick === 2) return null;
    if (pick === 3) return randomInt(random, 2) === 0;
    if (pick === 4) return Array.from({ length: randomInt(random, 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = randomInt(random, 5); i > 0; i--) {
      o[["a", "1", "b", "fieldsV1", "0"][randomInt(random, 5)]] = value(depth + 1);
    }
    return o;
  };
  for (let n = 0; n < 400; n++) {
    const obj = {
      metadata: {
        name: `o${n % 5}`,
        managedFields: [{ manager: "m", fieldsV1: value(2) }, { manager: "n" }, null],
      },
      spec: value(1),
      status: value(1),
      data: { "2": value(2), x: value(2) },
      ...(n % 2 ? { kind: "K", apiVersion: "v1" } : {}),
    } as unknown as Unstructured;
    const text = parts.textOf(obj);
    const ordered = { apiVersion: obj.apiVersion, kind: obj.kind, ...obj };
    assert.equal(typeof text === "string" ? text : text.join(""), asciiJson(ordered));
  }
});

Deno.test("shared parts: a part two objects hold is one string from the second on, the rest of each its own", () => {
  const parts = new SharedParts();
  const tolerations = [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" }];
  const pod = (name: string) => ({ metadata: { name }, spec: { tolerations, nodeName: name } });
  assert.equal(typeof parts.textOf(pod("a")), "string");
  const [b, c] = [parts.textOf(pod("b")), parts.textOf(pod("c"))] as string[][];
  assert.equal(b.length, 3);
  assert.equal(b[1], JSON.stringify(tolerations));
  assert.ok(b[1] === c[1]);
  assert.ok(b[2].includes('"nodeName":"b"') && c[2].includes('"nodeName":"c"'));
});

Deno.test("shared parts: apiVersion and kind come first (a list sends the text as served)", () => {
  const text = new SharedParts().textOf({ metadata: { name: "a" }, spec: {}, kind: "Pod", apiVersion: "v1" });
  assert.equal(text, '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{}}');
});
