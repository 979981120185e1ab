import assert from "node:assert/strict";
import { goJsonObjectError } from "./go_json.ts";

Deno.test("Go's json.Unmarshal errors into a map: syntax, end of input, wrong top-level kind", () => {
  const cases: Array<[string, string | undefined]> = [
    ['{"auths": {"r": {"auth": "eA=="}}}', undefined],
    ["null", undefined],
    ["", "unexpected end of JSON input"],
    ['{"a": 1', "unexpected end of JSON input"],
    ["{not json", "invalid character 'n' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["{} x", "invalid character 'x' after top-level value"],
    ["{'a': 1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a": tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a": -x}', "invalid character 'x' in numeric literal"],
    ["[]", "json: cannot unmarshal array into Go value of type map[string]interface {}"],
    ['"s"', "json: cannot unmarshal string into Go value of type map[string]interface {}"],
    ["1", "json: cannot unmarshal number into Go value of type map[string]interface {}"],
    ["true", "json: cannot unmarshal bool into Go value of type map[string]interface {}"],
  ];
  for (const [input, want] of cases) assert.equal(goJsonObjectError(input), want, input);
});
