/**
 * Label selectors as apimachinery's `labels.Parse` and `metav1.LabelSelectorAsSelector` read them: strings such as
 * `app=web,tier in (a,b),!legacy,replicas>2` (operators `=`, `==`, `!=`, `in`, `notin`, exists `key`, does-not-exist
 * `!key`, and the integer comparisons `>`/`<`), and LabelSelector objects (`matchLabels` and `matchExpressions` with
 * In, NotIn, Exists, DoesNotExist). Keys and values are validated as kube validates them, and malformed input is a
 * {@link SelectorError} carrying kube's message.
 * @module
 */
import { labelValueErrors, qualifiedNameErrors } from "./names.ts";

/** A selector that could not be parsed (a server answers it as 400 BadRequest). */
export class SelectorError extends Error {
  /** @param message kube's message, e.g. `unable to parse requirement: found 'x', expected: '('`. */
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

/** A selector operator, as `selection.Operator` spells it. */
export type SelectorOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/** One requirement of a selector: `key op values`. */
export interface Requirement {
  /** The label key. */
  key: string;
  /** The operator. */
  operator: SelectorOperator;
  /** The values (one for `=`, `==`, `!=`, `gt`, `lt`; none for `exists`, `!`). */
  values: string[];
}

/** Labels of an object (`metadata.labels`); undefined is no labels. */
export type Labels = Readonly<Record<string, string>> | undefined;

/** A compiled label selector: true when the labels match. */
export type LabelMatcher = (labels: Labels) => boolean;

/** metav1.LabelSelector. */
export interface LabelSelector {
  /** key=value requirements. */
  matchLabels?: Record<string, string>;
  /** Set-based requirements. */
  matchExpressions?: ReadonlyArray<{ key: string; operator: string; values?: readonly string[] }>;
}

function invalid(path: string, value: string, errs: string[]): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${errs.join("; ")}`;
}

const INTEGER = /^[+-]?[0-9]+$/;

/**
 * labels.NewRequirement: validates a requirement and returns it; throws a {@link SelectorError} with kube's
 * aggregated message otherwise.
 */
export function newRequirement(key: string, operator: SelectorOperator, values: string[]): Requirement {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length) errs.push(invalid("key", key, keyErrs));
  const list = `[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`;
  switch (operator) {
    case "in":
    case "notin":
      if (values.length === 0) {
        errs.push(`values: Invalid value: ${list}: for 'in', 'notin' operators, values set can't be empty`);
      }
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) {
        errs.push(`values: Invalid value: ${list}: exact-match compatibility requires one single value`);
      }
      break;
    case "exists":
    case "!":
      if (values.length !== 0) {
        errs.push(`values: Invalid value: ${list}: values set must be empty for exists and does not exist`);
      }
      break;
    case "gt":
    case "lt":
      if (values.length !== 1) {
        errs.push(`values: Invalid value: ${list}: for 'Gt', 'Lt' operators, exactly one value is required`);
      }
      values.forEach((v, i) => {
        if (!INTEGER.test(v)) {
          errs.push(invalid(`values[${i}]`, v, ["for 'Gt', 'Lt' operators, the value must be an integer"]));
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length) errs.push(invalid(`values[${i}][${key}]`, v, valueErrs));
  });
  if (errs.length === 1) throw new SelectorError(errs[0]);
  if (errs.length > 1) throw new SelectorError(`[${errs.join(", ")}]`);
  return { key, operator, values };
}

// ---- the lexer and parser of labels.Parse ----

type Token =
  | "id"
  | "in"
  | "notin"
  | "("
  | ")"
  | ","
  | "!"
  | "="
  | "=="
  | "!="
  | ">"
  | "<"
  | "end";

const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const SYMBOLS: Record<string, Token> = {
  ")": ")",
  ",": ",",
  "!": "!",
  "==": "==",
  "=": "=",
  ">": ">",
  "<": "<",
  "!=": "!=",
  "(": "(",
};
const WHITESPACE = /\s/;

function lex(input: string): Array<{ tok: Token; lit: string }> {
  const out: Array<{ tok: Token; lit: string }> = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (WHITESPACE.test(ch)) {
      i++;
    } else if (SPECIAL.has(ch)) {
      const two = input.slice(i, i + 2);
      const lit = SYMBOLS[two] ? two : ch;
      out.push({ tok: SYMBOLS[lit], lit });
      i += lit.length;
    } else {
      let j = i;
      while (j < input.length && !SPECIAL.has(input[j]) && !WHITESPACE.test(input[j])) j++;
      const lit = input.slice(i, j);
      out.push({ tok: lit === "in" ? "in" : lit === "notin" ? "notin" : "id", lit });
      i = j;
    }
  }
  out.push({ tok: "end", lit: "" });
  return out;
}

const BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt";

class Parser {
  #tokens: Array<{ tok: Token; lit: string }>;
  #pos = 0;

  constructor(input: string) {
    this.#tokens = lex(input);
  }

  /** The next token; in a values context `in`/`notin` are identifiers. */
  #peek(values: boolean): { tok: Token; lit: string } {
    const t = this.#tokens[this.#pos];
    return values && (t.tok === "in" || t.tok === "notin") ? { tok: "id", lit: t.lit } : t;
  }

  #next(values: boolean): { tok: Token; lit: string } {
    const t = this.#peek(values);
    if (this.#pos < this.#tokens.length - 1) this.#pos++;
    return t;
  }

  parse(): Requirement[] {
    const out: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.#peek(true);
      if (tok === "end") return out;
      if (tok !== "id" && tok !== "!") {
        throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        out.push(this.#requirement());
      } catch (err) {
        if (err instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const after = this.#next(true);
      if (after.tok === "end") return out;
      if (after.tok !== ",") throw new SelectorError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.#peek(true);
      if (following.tok !== "id" && following.tok !== "!") {
        throw new SelectorError(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  #requirement(): Requirement {
    let operator: SelectorOperator | undefined;
    let t = this.#next(true);
    if (t.tok === "!") {
      operator = "!";
      t = this.#next(true);
    }
    if (t.tok !== "id") throw new SelectorError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length) throw new SelectorError(invalid("<nil>", key, keyErrs));
    const ahead = this.#peek(true).tok;
    if (ahead === "end" || ahead === ",") return newRequirement(key, operator ?? "exists", []);
    if (operator === "!") return newRequirement(key, operator, []);
    const op = this.#next(false);
    switch (op.tok) {
      case "in":
      case "notin":
        return newRequirement(key, op.tok, this.#values());
      case "=":
      case "==":
      case "!=":
        return newRequirement(key, op.tok, this.#exactValue());
      case ">":
        return newRequirement(key, "gt", this.#exactValue());
      case "<":
        return newRequirement(key, "lt", this.#exactValue());
      default:
        throw new SelectorError(`found '${op.lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  #values(): string[] {
    const open = this.#next(true);
    if (open.tok !== "(") throw new SelectorError(`found '${open.lit}' expected: '('`);
    const first = this.#peek(true);
    if (first.tok === ")") {
      this.#next(true);
      return [""];
    }
    if (first.tok !== "id" && first.tok !== ",") {
      throw new SelectorError(`found '${first.lit}', expected: ',', ')' or identifier`);
    }
    const values = this.#identifiers();
    const close = this.#next(true);
    if (close.tok !== ")") throw new SelectorError(`found '${first.lit}', expected: ')'`);
    return values;
  }

  /** parseIdentifiersList: a comma-separated list, empty entries allowed, up to (not including) `)`. */
  #identifiers(): string[] {
    const set = new Set<string>();
    for (;;) {
      const t = this.#next(true);
      if (t.tok === "id") {
        set.add(t.lit);
        const ahead = this.#peek(true);
        if (ahead.tok === ",") continue;
        if (ahead.tok === ")") return [...set];
        throw new SelectorError(`found '${ahead.lit}', expected: ',' or ')'`);
      } else if (t.tok === ",") {
        if (set.size === 0) set.add("");
        const ahead = this.#peek(true);
        if (ahead.tok === ")") {
          set.add("");
          return [...set];
        }
        if (ahead.tok === ",") {
          this.#next(true);
          set.add("");
        }
      } else {
        throw new SelectorError(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }

  #exactValue(): string[] {
    const ahead = this.#peek(true);
    if (ahead.tok === "end" || ahead.tok === ",") return [""];
    const t = this.#next(true);
    if (t.tok === "id") return [t.lit];
    throw new SelectorError(`found '${t.lit}', expected: identifier`);
  }
}

/** Parses a selector string into its requirements (empty for the empty selector, which matches everything). */
export function parseRequirements(selector: string): Requirement[] {
  return new Parser(selector).parse();
}

const int64 = (s: string): bigint | undefined => INTEGER.test(s) ? BigInt(s) : undefined;

/** Requirement.Matches. */
export function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const value = has ? labels![r.key] : undefined;
  switch (r.operator) {
    case "=":
    case "==":
    case "in":
      return has && r.values.includes(value!);
    case "!=":
    case "notin":
      return !has || !r.values.includes(value!);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      const have = has ? int64(value!) : undefined;
      const want = int64(r.values[0]);
      if (have === undefined || want === undefined) return false;
      return r.operator === "gt" ? have > want : have < want;
    }
  }
}

/** A matcher for a list of requirements (all must hold). */
export function requirementsMatcher(requirements: readonly Requirement[]): LabelMatcher {
  return (labels) => requirements.every((r) => requirementMatches(r, labels));
}

/**
 * Compiles a label selector string (labels.Parse); an empty or missing selector matches everything. Throws a
 * {@link SelectorError} with kube's message when it does not parse.
 *
 * @example
 * ```ts
 * import { parseLabelSelector } from "./label_selector.ts";
 * const match = parseLabelSelector("app=web,tier in (a,b),!legacy,replicas>2");
 * match({ app: "web", tier: "a", replicas: "3" }); // true
 * ```
 */
export function parseLabelSelector(selector: string | null | undefined): LabelMatcher {
  if (!selector) return () => true;
  return requirementsMatcher(parseRequirements(selector));
}

const EXPRESSION_OPERATORS: Record<string, SelectorOperator> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

/**
 * Compiles a metav1.LabelSelector (LabelSelectorAsSelector): a selector with no requirements matches everything,
 * and so does an undefined one here (callers for which a missing selector means "nothing" check that first).
 * Throws a {@link SelectorError} for an unknown operator or an invalid key or value.
 *
 * @example
 * ```ts
 * import { labelSelectorMatcher } from "./label_selector.ts";
 * const match = labelSelectorMatcher({ matchLabels: { team: "a" }, matchExpressions: [{ key: "env", operator: "Exists" }] });
 * match({ team: "a", env: "prod" }); // true
 * ```
 */
export function labelSelectorMatcher(selector: LabelSelector | null | undefined): LabelMatcher {
  if (!selector) return () => true;
  const requirements: Requirement[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) requirements.push(newRequirement(k, "=", [v]));
  for (const e of selector.matchExpressions ?? []) {
    const op = EXPRESSION_OPERATORS[e.operator];
    if (!op) throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    requirements.push(newRequirement(e.key, op, [...(e.values ?? [])]));
  }
  return requirementsMatcher(requirements);
}
