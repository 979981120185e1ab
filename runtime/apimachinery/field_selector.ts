/**
 * Field selectors as apimachinery's `fields.ParseSelector` reads them: terms separated by unescaped commas, each
 * `field=value`, `field==value` or `field!=value`, with `\` escaping a comma, `=` or `!` in a value. Which fields a
 * resource can be selected by is the server's business: {@link fieldSelectorMatcher} takes a getter per field and
 * refuses any other (`field label not supported: x`), as kube-apiserver does. Parse errors are {@link SelectorError}s
 * (the servers answer them with 400 BadRequest).
 * @module
 */
import { SelectorError } from "./label_selector.ts";

/** One term of a field selector. */
export interface FieldRequirement {
  /** The field path, e.g. `metadata.name`, `spec.nodeName`. */
  field: string;
  /** `=` (also written `==`) or `!=`. */
  op: "=" | "!=";
  /** The value, unescaped. */
  value: string;
}

/** Reads one selectable field of an object as text (absent: ""). */
export type FieldGetter<T> = (obj: T) => string | undefined;

function unescape(s: string): string {
  return s.replace(/\\(.)/g, "$1");
}

/** Splits on unescaped commas. */
function splitTerms(selector: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (ch === "\\" && i + 1 < selector.length) {
      cur += ch + selector[i + 1];
      i++;
    } else if (ch === ",") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter(Boolean);
}

/** Splits a term on its operator, honouring `\` escapes. */
function splitTerm(term: string, selector: string): FieldRequirement {
  for (let i = 0; i < term.length; i++) {
    const ch = term[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "!" && term[i + 1] === "=") {
      return { field: term.slice(0, i).trim(), op: "!=", value: unescape(term.slice(i + 2)) };
    }
    if (ch === "=") {
      const skip = term[i + 1] === "=" ? 2 : 1;
      return { field: term.slice(0, i).trim(), op: "=", value: unescape(term.slice(i + skip)) };
    }
  }
  throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
}

/**
 * Parses a field selector into its terms; empty or absent selects everything (no terms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFieldSelector } from "./field_selector.ts";
 * assert.deepEqual(parseFieldSelector("metadata.name=a\\,b,status.phase!=Failed"), [
 *   { field: "metadata.name", op: "=", value: "a,b" },
 *   { field: "status.phase", op: "!=", value: "Failed" },
 * ]);
 * assert.throws(() => parseFieldSelector("metadata.name"), /can't understand/);
 * ```
 */
export function parseFieldSelector(selector: string | null | undefined): FieldRequirement[] {
  if (!selector?.trim()) return [];
  return splitTerms(selector).map((term) => splitTerm(term, selector));
}

/**
 * Compiles a field selector into a predicate over objects whose selectable fields `getters` reads; a term on any
 * other field is a {@link SelectorError} `field label not supported: <field>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fieldSelectorMatcher } from "./field_selector.ts";
 * const match = fieldSelectorMatcher("metadata.name=a", { "metadata.name": (o: { name: string }) => o.name });
 * assert.ok(match({ name: "a" }));
 * assert.throws(() => fieldSelectorMatcher("spec.x=1", {}), /field label not supported: spec.x/);
 * ```
 */
export function fieldSelectorMatcher<T>(
  selector: string | null | undefined,
  getters: Readonly<Record<string, FieldGetter<T>>>,
): (obj: T) => boolean {
  const tests = parseFieldSelector(selector).map(({ field, op, value }) => {
    const get = Object.hasOwn(getters, field) ? getters[field] : undefined;
    if (!get) throw new SelectorError(`field label not supported: ${field}`);
    return op === "=" ? (o: T) => (get(o) ?? "") === value : (o: T) => (get(o) ?? "") !== value;
  });
  return (obj) => tests.every((t) => t(obj));
}

/**
 * The name a field selector pins with its only term `metadata.name=<x>` (a fast path for lists and watches).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pinnedName } from "./field_selector.ts";
 * assert.equal(pinnedName("metadata.name==web"), "web");
 * assert.equal(pinnedName("metadata.name=web,metadata.namespace=a"), undefined);
 * ```
 */
export function pinnedName(selector: string | null | undefined): string | undefined {
  const terms = parseFieldSelectorQuietly(selector);
  return terms?.length === 1 && terms[0].field === "metadata.name" && terms[0].op === "=" ? terms[0].value : undefined;
}

function parseFieldSelectorQuietly(selector: string | null | undefined): FieldRequirement[] | undefined {
  try {
    return parseFieldSelector(selector);
  } catch {
    return undefined;
  }
}
