import assert from "node:assert/strict";
import { duplicateJsonFields } from "./json_duplicates.ts";

Deno.test("duplicateJsonFields: paths of repeated keys, nested and in arrays; none for distinct keys", () => {
  assert.deepEqual(duplicateJsonFields('{"a":1,"b":{"c":1,"c":2},"l":[{"x":1,"x":"y\\"z"}],"a":3}'), [
    "b.c",
    "l[0].x",
    "a",
  ]);
  assert.deepEqual(duplicateJsonFields('{"a":[1,2,{}],"b":"\\u0041","c":{"a":1}}'), []);
  assert.deepEqual(duplicateJsonFields("{not json"), []);
});
