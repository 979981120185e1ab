import assert from "node:assert/strict";
import { compileExpression, runtimeErrorText } from "./compile.ts";
import { parseQuantity } from "./quantity.ts";
import { parseUrl } from "./url.ts";
import { validateCel } from "./validate.ts";

function run(expr: string, self: unknown = null): unknown {
  const compiled = compileExpression(expr);
  assert.equal(compiled.error, undefined, expr);
  const result = compiled.run!({ self });
  return runtimeErrorText(result) ?? result;
}

Deno.test("quantity library: parsing, comparison, arithmetic, conversions", () => {
  assert.deepEqual(parseQuantity("1.5Gi"), { num: 1610612736n, den: 1n });
  assert.deepEqual(parseQuantity("250m"), { num: 1n, den: 4n });
  assert.equal(parseQuantity("200K"), undefined);
  assert.equal(parseQuantity("Mi"), undefined);
  assert.equal(run("quantity('1') == quantity('1000m')"), true);
  assert.equal(run("quantity('1.5Gi').isGreaterThan(quantity('1G'))"), true);
  assert.equal(run("quantity('50k').sub(20000).asApproximateFloat() == 30000.0"), true);
  assert.equal(run("quantity('1Mi').compareTo(quantity('1M'))"), 1n);
  assert.equal(run("quantity('9999999999999999999999999999999999999G').isInteger()"), false);
  assert.equal(
    run("quantity('9999999999999999999999999999999999999G').asInteger()"),
    "cannot convert value to integer",
  );
  assert.match(String(run("quantity('200K') == quantity('1')")), /^quantities must match the regular expression/);
});

Deno.test("url library: getters as Go's url.ParseRequestURI splits them", () => {
  assert.equal(parseUrl("relative/path"), undefined);
  assert.equal(run("url('https://u@a.example.com:8443/p?x=1&x=2').getHostname()"), "a.example.com");
  assert.equal(run("url('https://[::1]:80/').getHostname()"), "::1");
  assert.equal(run("url('https://a.example.com:8443/p?x=1&x=2').getQuery()['x'][1]"), "2");
  assert.equal(run("url('/abs').getEscapedPath()"), "/abs");
  assert.equal(run("isURL('nope')"), false);
});

Deno.test("lists and sets libraries", () => {
  assert.equal(run("self.isSorted() && self.sum() == 6 && self.min() == 1 && self.max() == 3", [1n, 2n, 3n]), true);
  assert.equal(run("sets.contains(self, [2]) && !sets.intersects(self, [9])", [1n, 2n]), true);
});

Deno.test("CEL kube accepts but the fake cannot evaluate is skipped with a warning, not refused", () => {
  const schema = {
    type: "object",
    properties: {
      s: {
        type: "string",
        "x-kubernetes-validations": [{ rule: "isIP(self)" }, { rule: "self.?x.orValue('') == ''" }],
      },
    },
  };
  const { causes, warnings } = validateCel({ s: "1.2.3.4" }, undefined, schema);
  assert.deepEqual(causes, []);
  assert.deepEqual(warnings, [
    's: the fake API server did not evaluate rule "isIP(self)": unsupported CEL: unbound function: isIP',
    `s: the fake API server did not evaluate rule "self.?x.orValue('') == ''": unsupported CEL: optional field selection (.? / [?])`,
  ]);
  // Two-variable macros and type names compile.
  assert.equal(compileExpression("self.all(i, v, v > i) && type(self) == list").error, undefined);
});
