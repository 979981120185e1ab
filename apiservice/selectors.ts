/**
 * Label and field selectors as kube-apiserver parses them from `labelSelector=` / `fieldSelector=`: label
 * requirements `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`; field selectors `metadata.name` and
 * `metadata.namespace` with `=`, `==`, `!=`. A malformed selector is a 400.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/errors.ts";
import type { KubeObject } from "../runtime/types.ts";

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

const KEY = String.raw`[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?`;
const VALUE = String.raw`([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?`;

/**
 * Compiles a label selector; throws a 400 ApiError when it does not parse.
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
  if (!selector?.trim()) return () => true;
  const checks: ObjectPredicate[] = [];
  for (const term of splitTerms(selector)) {
    let m: RegExpMatchArray | null;
    if ((m = term.match(new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`)))) {
      const [key, op, value] = [m[1], m[3], m[4]];
      checks.push((o) => {
        const v = o.metadata.labels?.[key];
        return op === "!=" ? v !== value : v === value;
      });
    } else if ((m = term.match(new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`)))) {
      const [key, op] = [m[1], m[3]];
      const values = new Set(m[4].split(",").map((s) => s.trim()).filter(Boolean));
      checks.push((o) => {
        const v = o.metadata.labels?.[key];
        return op === "in" ? v !== undefined && values.has(v) : v === undefined || !values.has(v);
      });
    } else if ((m = term.match(new RegExp(`^(!?)\\s*(${KEY})$`)))) {
      const [negate, key] = [m[1] === "!", m[2]];
      checks.push((o) => (o.metadata.labels?.[key] !== undefined) !== negate);
    } else {
      throw badRequest(`unable to parse requirement: found '${term}', invalid label selector`);
    }
  }
  return (o) => checks.every((c) => c(o));
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
