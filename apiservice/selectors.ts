/**
 * Label and field selectors as kube-apiserver parses them from `labelSelector=` / `fieldSelector=`: label
 * selectors as runtime/apimachinery/label_selector.ts parses them; field selectors `metadata.name` and
 * `metadata.namespace` with `=`, `==`, `!=`. A malformed selector is a 400.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { KubeObject } from "../runtime/types.ts";
import { parseLabelSelector as parseLabels, SelectorError } from "../runtime/apimachinery/label_selector.ts";

/** A compiled selector: true when the object matches. */
export type ObjectPredicate = (obj: KubeObject) => boolean;

function badRequest(message: string): ApiError {
  return new ApiError(failureStatus(400, "BadRequest", message), { verb: "list" });
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms.map((t) => t.trim()).filter(Boolean);
}

/**
 * Compiles a label selector (runtime/apimachinery/label_selector.ts); throws a 400 ApiError when it does not parse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseLabelSelector } from "./selectors.ts";
 * const match = parseLabelSelector("farm=north,size in (s,m)");
 * assert.ok(match({ metadata: { labels: { farm: "north", size: "m" } } }));
 * ```
 */
export function parseLabelSelector(selector: string | null | undefined): ObjectPredicate {
  try {
    const matches = parseLabels(selector);
    return (o) => matches(o.metadata.labels);
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message);
    throw err;
  }
}

/** Compiles a field selector over metadata.name / metadata.namespace; throws a 400 ApiError otherwise. */
export function parseFieldSelector(selector: string | null | undefined): ObjectPredicate {
  if (!selector?.trim()) return () => true;
  const checks: ObjectPredicate[] = [];
  for (const term of splitTerms(selector)) {
    const m = term.match(/^([A-Za-z.]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [field, op, value] = [m[1], m[2], m[3]];
    if (field !== "metadata.name" && field !== "metadata.namespace") {
      throw badRequest(`field label not supported: ${field}`);
    }
    const read = (o: KubeObject) => field === "metadata.name" ? o.metadata.name : o.metadata.namespace;
    checks.push((o) => op === "!=" ? read(o) !== value : read(o) === value);
  }
  return (o) => checks.every((c) => c(o));
}
