import assert from "node:assert/strict";
import { labelSelectorMatcher, parseLabelSelector, parseRequirements, SelectorError } from "./label_selector.ts";

Deno.test("label selector strings: every operator, as labels.Parse reads them", () => {
  const cases: Array<[string, Record<string, string> | undefined, boolean]> = [
    ["", undefined, true],
    ["app=web", { app: "web" }, true],
    ["app==web", { app: "db" }, false],
    ["app!=web", {}, true],
    ["app!=web", { app: "web" }, false],
    ["tier in (a, b)", { tier: "b" }, true],
    ["tier in (a,b)", {}, false],
    ["tier notin (a,b)", {}, true],
    ["tier notin (a,b)", { tier: "a" }, false],
    ["legacy", { legacy: "" }, true],
    ["!legacy", { legacy: "x" }, false],
    ["!legacy", undefined, true],
    ["app=web,!legacy,tier in (x)", { app: "web", tier: "x" }, true],
    ["example.com/role=x", { "example.com/role": "x" }, true],
    ["n>2", { n: "3" }, true],
    ["n>2", { n: "2" }, false],
    ["n<3", { n: "2" }, true],
    ["n<3", { n: "x" }, false],
    ["n<3", {}, false],
    ["a=", { a: "" }, true],
    ["a in (in, notin)", { a: "notin" }, true],
    ["a in ()", { a: "" }, true],
  ];
  for (const [sel, labels, want] of cases) assert.equal(parseLabelSelector(sel)(labels), want, sel);
});

Deno.test("label selector strings: kube's error messages", () => {
  const cases: Array<[string, string]> = [
    ["a in (b", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["a in x", "unable to parse requirement: found 'x' expected: '('"],
    ["=x", "found '=', expected: !, identifier, or 'end of string'"],
    ["a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ["a=b=c", "found '=', expected: ',' or 'end of string'"],
    ["a=b,", "found '', expected: identifier after ','"],
    [
      "n>x",
      "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
    ],
  ];
  for (const [sel, message] of cases) {
    assert.throws(() => parseLabelSelector(sel), (err: unknown) => {
      assert.ok(err instanceof SelectorError, sel);
      assert.equal(err.message, message, sel);
      return true;
    });
  }
  assert.throws(
    () => parseLabelSelector("-bad=x"),
    /^SelectorError: unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of alphanumeric characters/,
  );
  assert.throws(
    () => parseLabelSelector("a=-x"),
    /values\[0\]\[a\]: Invalid value: "-x": a valid label must be an empty string/,
  );
  assert.throws(() => parseLabelSelector("a/b/c"), /a valid label key must consist of/);
});

Deno.test("label selector strings: requirements are parsed in order with their values", () => {
  assert.deepEqual(parseRequirements("a in (x,,y),!b,c>1"), [
    { key: "a", operator: "in", values: ["x", "", "y"] },
    { key: "b", operator: "!", values: [] },
    { key: "c", operator: "gt", values: ["1"] },
  ]);
});

Deno.test("LabelSelector objects: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist)", () => {
  const m = labelSelectorMatcher({
    matchLabels: { team: "a" },
    matchExpressions: [
      { key: "env", operator: "In", values: ["prod", "staging"] },
      { key: "tier", operator: "NotIn", values: ["db"] },
      { key: "owner", operator: "Exists" },
      { key: "legacy", operator: "DoesNotExist" },
    ],
  });
  assert.equal(m({ team: "a", env: "prod", owner: "x" }), true);
  assert.equal(m({ team: "a", env: "prod", owner: "x", tier: "db" }), false);
  assert.equal(m({ team: "a", env: "dev", owner: "x" }), false);
  assert.equal(m({ team: "a", env: "prod" }), false);
  assert.equal(m({ team: "a", env: "prod", owner: "x", legacy: "" }), false);
  assert.equal(m({ team: "b", env: "prod", owner: "x" }), false);
  assert.equal(labelSelectorMatcher({})({ any: "x" }), true);
  assert.equal(labelSelectorMatcher(undefined)(undefined), true);
  assert.throws(
    () => labelSelectorMatcher({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] }),
    (err: unknown) => err instanceof SelectorError && err.message === `"Gt" is not a valid label selector operator`,
  );
  assert.throws(
    () => labelSelectorMatcher({ matchExpressions: [{ key: "a", operator: "In", values: [] }] }),
    /values: Invalid value: \[\]string\{\}: for 'in', 'notin' operators, values set can't be empty/,
  );
});
