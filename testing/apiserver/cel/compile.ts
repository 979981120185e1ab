/**
 * Compiling `x-kubernetes-validations` rules as kube-apiserver's CEL environment does, on @bufbuild/cel (RE2
 * `matches()`, the strings extension): syntax errors and undeclared references are reported with cel-go's wording
 * (`ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')` plus the source line and a caret); the
 * variables are `self` and, in transition rules, `oldSelf`. Compiled programs are cached by source.
 * @module
 */
import { celEnv, type CelResult, isCelError, parse, plan } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { KUBERNETES_FUNCS } from "./library.ts";

/** A parsed expression tree node (the cel.expr.Expr message, structurally). */
// deno-lint-ignore no-explicit-any
export type CelExpr = any;

/** A compiled rule or message expression. */
export interface CompiledExpression {
  /** Evaluates with `self` (and `oldSelf`) bound; a CelError result is a runtime error. */
  run?(vars: Record<string, unknown>): CelResult;
  /** The parsed tree (cost estimation). */
  expr?: CelExpr;
  /** Source offsets of the tree's nodes by expr id (error carets). */
  offsets?: Record<string, number>;
  /** Whether the expression reads `oldSelf` (a transition rule). */
  usesOldSelf: boolean;
  /** cel-go's compile error text, when it does not compile. */
  error?: string;
  /** Why the fake cannot evaluate an expression kube accepts (optional-types syntax): rules are skipped, with a warning. */
  unsupported?: string;
}

const ENV = celEnv({ funcs: [...strings, ...KUBERNETES_FUNCS] });
const cache = new Map<string, CompiledExpression>();
/** Variables, and the type names CEL declares as identifiers (`type(x) == string`). */
const DECLARED = new Set([
  "self",
  "oldSelf",
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "list",
  "map",
  "null_type",
  "type",
]);
/** Namespaces of functions in kube's CRD environment (`sets.contains`, `strings.quote`, `format.dns1123Label`). */
const NAMESPACES = new Set(["sets", "strings", "optional", "format", "lists"]);
/** Macros whose leading identifier arguments bind variables for the following ones (incl. two-variable forms). */
const MACROS = new Set([
  "all",
  "exists",
  "exists_one",
  "map",
  "filter",
  "transformList",
  "transformMap",
  "transformMapEntry",
  "sortBy",
]);

/** cel-go's `ERROR: <input>:L:C: msg` with the source line and a `....^` caret. */
export function celError(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const column = offset - lineStart;
  const text = source.split("\n")[line - 1];
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${".".repeat(column)}^`;
}

/** Identifiers the expression reads that are neither declared nor bound by a comprehension; with their ids. */
function undeclared(
  expr: CelExpr,
  scope: Set<string>,
  out: { name: string; id: bigint }[],
  uses: Set<string>,
  declared: ReadonlySet<string> = DECLARED,
): void {
  if (!expr?.exprKind) return;
  const { case: kind, value } = expr.exprKind;
  switch (kind) {
    case "identExpr":
      uses.add(value.name);
      if (!scope.has(value.name) && !declared.has(value.name)) out.push({ name: value.name, id: expr.id });
      return;
    case "selectExpr":
      return undeclared(value.operand, scope, out, uses, declared);
    case "callExpr": {
      // `sets.contains(...)`: a namespaced function, not a call on a variable `sets`.
      const target = value.target?.exprKind;
      if (value.target && !(target?.case === "identExpr" && NAMESPACES.has(target.value.name))) {
        undeclared(value.target, scope, out, uses, declared);
      }
      // Macros the parser left as calls (two-variable forms, sortBy): leading identifiers are bound variables.
      let inner = scope;
      let args: CelExpr[] = value.args;
      if (value.target && MACROS.has(value.function)) {
        const bound: string[] = [];
        while (args.length > 1 && args[0].exprKind?.case === "identExpr") {
          bound.push(args[0].exprKind.value.name);
          args = args.slice(1);
        }
        inner = new Set([...scope, ...bound]);
      }
      for (const a of args) undeclared(a, inner, out, uses, declared);
      return;
    }
    case "listExpr":
      for (const e of value.elements) undeclared(e, scope, out, uses, declared);
      return;
    case "structExpr":
      for (const e of value.entries) {
        if (e.keyKind?.case === "mapKey") undeclared(e.keyKind.value, scope, out, uses, declared);
        undeclared(e.value, scope, out, uses, declared);
      }
      return;
    case "comprehensionExpr": {
      undeclared(value.iterRange, scope, out, uses, declared);
      undeclared(value.accuInit, scope, out, uses, declared);
      const inner = new Set([...scope, value.iterVar, value.iterVar2, value.accuVar].filter((v) => v));
      undeclared(value.loopCondition, inner, out, uses, declared);
      undeclared(value.loopStep, inner, out, uses, declared);
      const result = new Set([...scope, value.accuVar]);
      undeclared(value.result, result, out, uses, declared);
      return;
    }
  }
}

/**
 * Compiles a CEL expression of a CRD validation rule (cached by source). `variables` declares other variables than
 * `self` and `oldSelf` (admission policies: `object`, `oldObject`, `request`, `params`, ...).
 *
 * @example
 * ```ts
 * import { compileExpression } from "./compile.ts";
 * const c = compileExpression("self.min <= self.max");
 * console.assert(c.error === undefined && !c.usesOldSelf);
 * console.assert(compileExpression("foo == 1").error?.includes("undeclared reference to 'foo'"));
 * ```
 */
export function compileExpression(source: string, variables?: readonly string[]): CompiledExpression {
  const key = variables ? `${variables.join(",")}\n${source}` : source;
  const declared = variables ? new Set([...DECLARED, ...variables]) : DECLARED;
  let out = cache.get(key);
  if (out) return out;
  if (/[.[]\?/.test(source.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, '""'))) {
    // `self.?x`, `m[?k]`: optional-types syntax, which @bufbuild/cel does not parse.
    out = { usesOldSelf: source.includes("oldSelf"), unsupported: "optional field selection (.? / [?])" };
    cache.set(key, out);
    return out;
  }
  try {
    const parsed = parse(source);
    const missing: { name: string; id: bigint }[] = [];
    const uses = new Set<string>();
    undeclared(parsed.expr, new Set(), missing, uses, declared);
    if (missing.length > 0) {
      const offset = parsed.sourceInfo?.positions?.[String(missing[0].id)] ?? 0;
      out = {
        usesOldSelf: uses.has("oldSelf"),
        error: celError(source, offset, `undeclared reference to '${missing[0].name}' (in container '')`),
      };
    } else {
      const program = plan(ENV, parsed);
      out = {
        run: (vars) => program(vars as never),
        expr: parsed.expr,
        offsets: parsed.sourceInfo?.positions ?? {},
        usesOldSelf: uses.has("oldSelf"),
      };
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const m = message.match(/<input>:(\d+):(\d+): (.*)$/s);
    out = {
      usesOldSelf: false,
      error: m ? `ERROR: <input>:${m[1]}:${m[2]}: Syntax error: ${m[3]}` : `ERROR: <input>: Syntax error: ${message}`,
    };
  }
  cache.set(key, out);
  return out;
}

/** The text of a runtime error as cel-go words it (`no such key: x`, `division by zero`, ...). */
export function runtimeErrorText(result: CelResult): string | undefined {
  if (!isCelError(result)) return undefined;
  const message = result.message;
  const field = message.match(/^field not found: (.*)$/);
  if (field) return `no such key: ${field[1]}`;
  if (message === "int divide by zero") return "division by zero";
  // A dyn-typed value (int-or-string, untyped nodes) reaching an operator it has no overload for.
  if (message.startsWith("found no matching overload")) return "no such overload";
  return message;
}
