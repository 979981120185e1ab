import assert from "node:assert/strict";
import { requestVerb } from "./verbs.ts";

Deno.test("requestVerb: each method, named or collection, watch by query", () => {
  const q = (s = "") => new URLSearchParams(s);
  const cases: Array<[string, boolean, string, string]> = [
    ["GET", true, "", "get"],
    ["GET", false, "", "list"],
    ["GET", false, "watch=true", "watch"],
    ["GET", true, "watch=1", "watch"],
    ["GET", false, "watch=false", "list"],
    ["HEAD", true, "", "get"],
    ["POST", false, "", "create"],
    ["PUT", true, "", "update"],
    ["PATCH", true, "", "patch"],
    ["DELETE", true, "", "delete"],
    ["DELETE", false, "", "deletecollection"],
    ["OPTIONS", false, "", "options"],
  ];
  for (const [method, named, query, want] of cases) assert.equal(requestVerb(method, named, q(query)), want, method);
});
