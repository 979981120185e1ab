import assert from "node:assert/strict";
import { assertValueDepth, jsonDepthError, MAX_BODY_DEPTH, parseJsonBody, parseYamlBody } from "./body_decode.ts";

const nest = (n: number) => "[".repeat(n) + "]".repeat(n);

Deno.test("the depth scan counts arrays and objects, skips strings and escapes, and stops at the limit", () => {
  assert.equal(jsonDepthError(nest(MAX_BODY_DEPTH)), undefined);
  assert.equal(jsonDepthError(nest(MAX_BODY_DEPTH + 1)), "invalid character '[' exceeded max depth");
  assert.equal(jsonDepthError('{"a":'.repeat(3) + "1" + "}".repeat(3), 3), undefined);
  assert.equal(jsonDepthError('{"a":'.repeat(4) + "1" + "}".repeat(4), 3), "invalid character '{' exceeded max depth");
  // Brackets inside strings, and escaped quotes inside strings, do not count.
  assert.equal(jsonDepthError(`["${"[".repeat(50)}", "\\"[[[["]`, 2), undefined);
  assert.equal(jsonDepthError(`[["\\\\"], [[1]]]`, 2), "invalid character '[' exceeded max depth");
});

Deno.test("parseJsonBody refuses 100 000 levels with Go's wording and parses ordinary JSON", () => {
  assert.throws(() => parseJsonBody(nest(100_000)), { name: "SyntaxError", message: /exceeded max depth/ });
  assert.deepEqual(parseJsonBody('{"a":[1,{"b":"[["}]}'), { a: [1, { b: "[[" }] });
  assert.throws(() => parseJsonBody("{not json"), SyntaxError);
});

Deno.test("parseYamlBody refuses deep flow and block nesting with goyaml's wording", () => {
  assert.throws(() => parseYamlBody(`a: ${nest(100_000)}`), { message: "yaml: exceeded max depth of 1000" });
  const block = Array.from({ length: 12 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n") + " 1";
  assert.throws(() => parseYamlBody(block, 10), { message: "yaml: exceeded max depth of 10" });
  assert.deepEqual(parseYamlBody("a: b[c\nd: [1, [2]]"), { a: "b[c", d: [1, [2]] });
  assert.doesNotThrow(() => assertValueDepth({ a: { b: [1] } }, 3));
  assert.throws(() => assertValueDepth({ a: { b: [1] } }, 2), SyntaxError);
});
