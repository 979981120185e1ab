import assert from "node:assert/strict";
import {
  enumFlag,
  type FlagSpec,
  intFlag,
  listFlag,
  logLevelFlag,
  parseFlags,
  stringFlag,
  UsageError,
} from "./flags.ts";
import { parseRunFlags } from "./run.ts";

const SPEC: FlagSpec = {
  name: { type: "string" },
  item: { type: "string", multiple: true },
  verbose: { type: "boolean" },
};

const usageError = (pattern: RegExp) => (err: unknown) => err instanceof UsageError && pattern.test(err.message);

Deno.test("parseFlags reads string, repeatable and boolean flags in both spellings", () => {
  const values = parseFlags("demo", ["--name=a", "--item", "x", "--item=y", "--verbose"], SPEC);
  assert.deepEqual({ ...values }, { name: "a", item: ["x", "y"], verbose: true });
});

Deno.test("parseFlags: unknown flags, missing values and positionals are one-line usage errors naming the command", () => {
  assert.throws(() => parseFlags("demo", ["--nope"], SPEC), usageError(/^kubeop demo: .*--nope[^\n]*$/));
  assert.throws(() => parseFlags("demo", ["--name"], SPEC), usageError(/^kubeop demo: .*--name/));
  assert.throws(() => parseFlags("demo", ["extra"], SPEC), usageError(/^kubeop demo: unexpected argument "extra"$/));
});

Deno.test("intFlag accepts non-negative integers only and falls back when absent", () => {
  assert.equal(intFlag("demo", {}, "n", 7), 7);
  assert.equal(intFlag("demo", { n: "0" }, "n", 7), 0);
  assert.equal(intFlag("demo", { n: "42" }, "n", 7), 42);
  for (const bad of ["-1", "1.5", "1e3", "", " 3", "99999999999999999999"]) {
    assert.throws(
      () => intFlag("demo", { n: bad }, "n", 7),
      usageError(/^kubeop demo: flag --n must be a non-negative integer, got "/),
      bad,
    );
  }
});

Deno.test("enumFlag accepts only the listed values and names them in the error", () => {
  const allowed = ["json", "text"] as const;
  assert.equal(enumFlag("demo", {}, "format", allowed, "json"), "json");
  assert.equal(enumFlag("demo", { format: "text" }, "format", allowed, "json"), "text");
  assert.throws(
    () => enumFlag("demo", { format: "xml" }, "format", allowed, "json"),
    usageError(/^kubeop demo: flag --format must be one of json\|text, got "xml"$/),
  );
});

Deno.test("stringFlag returns strings only; listFlag splits commas across repeats and drops blanks", () => {
  assert.equal(stringFlag({ s: "v" }, "s"), "v");
  assert.equal(stringFlag({ s: true }, "s"), undefined);
  assert.equal(stringFlag({}, "s"), undefined);
  assert.deepEqual(listFlag({ l: ["a, b", "c", ","] }, "l"), ["a", "b", "c"]);
  assert.deepEqual(listFlag({ l: "x" }, "l"), ["x"]);
  assert.deepEqual(listFlag({}, "l"), []);
});

Deno.test("logLevelFlag defaults to info and maps warn to logtape's warning", () => {
  assert.equal(logLevelFlag("demo", {}), "info");
  assert.equal(logLevelFlag("demo", { "log-level": "warn" }), "warning");
  assert.equal(logLevelFlag("demo", { "log-level": "debug" }), "debug");
  assert.throws(() => logLevelFlag("demo", { "log-level": "loud" }), usageError(/flag --log-level must be one of/));
});

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
