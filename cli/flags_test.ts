import assert from "node:assert/strict";
import { type FlagSpec, parseFlags, UsageError } from "./flags.ts";
import { parseRunFlags } from "./run.ts";

const spec: FlagSpec = {
  "leader-elect": { type: "boolean" },
  "metrics-secure": { type: "boolean" },
  "kubeconfig": { type: "string" },
  help: { type: "boolean", short: "h" },
};

Deno.test("boolean flags take Go's --name=value form with strconv.ParseBool's spellings", () => {
  for (const v of ["1", "t", "T", "TRUE", "true", "True"]) {
    assert.equal(parseFlags("run", [`--leader-elect=${v}`], spec)["leader-elect"], true, v);
  }
  for (const v of ["0", "f", "F", "FALSE", "false", "False"]) {
    assert.equal(parseFlags("run", [`--leader-elect=${v}`], spec)["leader-elect"], false, v);
  }
  assert.equal(parseFlags("run", ["--leader-elect"], spec)["leader-elect"], true, "bare flag is true");
  assert.equal(parseFlags("run", [], spec)["leader-elect"], undefined, "absent stays undefined");
});

Deno.test("the last occurrence of a boolean flag wins, and other flags parse as before", () => {
  const v = parseFlags("run", ["--leader-elect=false", "--kubeconfig", "/k", "--leader-elect", "-h"], spec);
  assert.equal(v["leader-elect"], true);
  assert.equal(v.kubeconfig, "/k");
  assert.equal(v.help, true);
  assert.equal(parseFlags("run", ["--metrics-secure", "--metrics-secure=false"], spec)["metrics-secure"], false);
  assert.equal(parseFlags("run", ["--kubeconfig=/x"], spec).kubeconfig, "/x", "string --name=value unchanged");
});

Deno.test("a boolean flag with a value Go would refuse is a usage error naming the flag", () => {
  assert.throws(() => parseFlags("run", ["--leader-elect=yes"], spec), (e) => {
    assert.ok(e instanceof UsageError);
    assert.match(e.message, /--leader-elect takes true or false, got "yes"/);
    return true;
  });
  assert.throws(() => parseFlags("run", ["--nope=true"], spec), UsageError);
});

Deno.test("kubeop run accepts --leader-elect=true and --leader-elect=false", () => {
  const on = parseRunFlags(["--leader-elect=true"]);
  const off = parseRunFlags(["--leader-elect=false"]);
  assert.ok(on !== "help" && off !== "help");
  assert.equal(on.leaderElect, true);
  assert.equal(off.leaderElect, false);
});
