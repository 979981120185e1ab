/** goJsonSyntaxError: Go's encoding/json syntax errors, worded as Go words them, for objects, arrays and scalars. */
import assert from "node:assert/strict";
import { goJsonSyntaxError } from "./go_json_syntax.ts";

const check = (text: string) => goJsonSyntaxError(new TextEncoder().encode(text));

Deno.test("goJsonSyntaxError: valid documents have no error", () => {
  for (const ok of ['{"a":[1,2,{"b":null}],"c":"d"}', "[]", "{}", " [ true , false ] ", "-0.5e+3", '"x"']) {
    assert.equal(check(ok), undefined, ok);
  }
});

Deno.test("goJsonSyntaxError: objects and arrays fail where Go's scanner fails", () => {
  const cases: [string, RegExp][] = [
    ['{"a":1,}', /looking for beginning of object key string/],
    ['{"a" 1}', /after object key$/],
    ['{"a":1 "b":2}', /after object key:value pair/],
    ["[1 2]", /after array element/],
    ["[1,]", /looking for beginning of value/],
    ['{"a":[1}', /after array element/],
    ["[1]]", /after top-level value/],
  ];
  for (const [text, want] of cases) assert.match(check(text) ?? "no error", want, text);
});
