/**
 * Nesting limits for request bodies, as kube-apiserver's decoders have them: Go's encoding/json (and its fork
 * sigs.k8s.io/json) refuses JSON nested deeper than 10 000 levels with `invalid character '[' exceeded max depth`,
 * and YAML decoding refuses `exceeded max depth of 10000`. V8's JSON.parse is not recursive and accepts any depth,
 * but the recursive code after it (merge patches, schema walks, deep copies) overflows the stack, so servers check
 * the depth first and answer 400 instead of 500. {@link parseJsonBody} is the one JSON decode both servers use.
 * @module
 */

/** The deepest nesting accepted, as in Go's encoding/json scanner (`maxNestingDepth`). */
export const MAX_JSON_DEPTH = 10_000;

/**
 * The first place where `text` nests deeper than `maxDepth` arrays/objects, as Go's scanner words it; undefined when
 * it does not (strings are skipped, so brackets inside them do not count). Linear, with no recursion.
 */
export function jsonDepthError(text: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return `invalid character '${text[i]}' exceeded max depth`;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/**
 * Parses JSON like JSON.parse but refuses nesting deeper than `maxDepth` first; throws a SyntaxError whose message
 * is Go's (`invalid character '[' exceeded max depth`) or JSON.parse's.
 *
 * @example
 * ```ts
 * import { parseJsonBody } from "./json_depth.ts";
 * console.assert((parseJsonBody('{"a":[1]}') as { a: number[] }).a[0] === 1);
 * try {
 *   parseJsonBody("[".repeat(20_000) + "]".repeat(20_000));
 * } catch (err) {
 *   console.assert((err as Error).message === "invalid character '[' exceeded max depth");
 * }
 * ```
 */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const tooDeep = jsonDepthError(text, maxDepth);
  if (tooDeep) throw new SyntaxError(tooDeep);
  return JSON.parse(text);
}

/**
 * Throws when a decoded value (e.g. from YAML) nests deeper than `maxDepth` arrays/objects, with goyaml's wording
 * (`exceeded max depth of 10000`). Iterative; shared subtrees (YAML aliases) are counted once per path.
 */
export function assertValueDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let visited = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > maxDepth) throw new SyntaxError(`exceeded max depth of ${maxDepth}`);
    // An alias bomb would make this walk exponential; YAML's own alias limits stop those before we get here.
    if (++visited > 10_000_000) throw new SyntaxError("document too complex");
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
}
