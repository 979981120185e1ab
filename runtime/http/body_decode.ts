/**
 * Nesting limits for request bodies, worded as kube-apiserver's decoders word them: Go's encoding/json (and its fork
 * sigs.k8s.io/json) refuses JSON nested deeper than 10 000 levels with `invalid character '[' exceeded max depth`,
 * and YAML decoding refuses `yaml: exceeded max depth of 10000`. V8's JSON.parse is not recursive and accepts any
 * depth, but what comes after it is: the recursive copy (copyJson), patch and schema code
 * overflow the stack somewhere near 3 000 levels, which was a 500. So servers check the depth first and answer 400 —
 * at {@link MAX_BODY_DEPTH} (1 000) rather than kube's 10 000, the deepest that leaves the rest a wide stack margin;
 * real objects nest a few dozen levels. {@link parseJsonBody} and {@link parseYamlBody} are the one JSON and
 * YAML decode both servers (the fake and the farm) use for request bodies.
 * @module
 */
import YAML from "yaml";

/** The deepest nesting our servers accept (kube's 10 000 would overflow V8's stack in the recursive code after it). */
export const MAX_BODY_DEPTH = 1_000;

/**
 * The first place where `text` nests deeper than `maxDepth` arrays/objects, as Go's scanner words it; undefined when
 * it does not (strings are skipped, so brackets inside them do not count). Linear, with no recursion.
 */
export function jsonDepthError(text: string, maxDepth = MAX_BODY_DEPTH): string | undefined {
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
 * import { parseJsonBody } from "./body_decode.ts";
 * console.assert((parseJsonBody('{"a":[1]}') as { a: number[] }).a[0] === 1);
 * try {
 *   parseJsonBody("[".repeat(2_000) + "]".repeat(2_000));
 * } catch (err) {
 *   console.assert((err as Error).message === "invalid character '[' exceeded max depth");
 * }
 * ```
 */
export function parseJsonBody(text: string, maxDepth = MAX_BODY_DEPTH): unknown {
  const tooDeep = jsonDepthError(text, maxDepth);
  if (tooDeep) throw new SyntaxError(tooDeep);
  return JSON.parse(text);
}

/**
 * Throws when a decoded value (e.g. from YAML) nests deeper than `maxDepth` arrays/objects, with goyaml's wording
 * (`yaml: exceeded max depth of 1000`). Iterative; shared subtrees (YAML aliases) are counted once per path.
 */
export function assertValueDepth(value: unknown, maxDepth = MAX_BODY_DEPTH): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let visited = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > maxDepth) throw new SyntaxError(`yaml: exceeded max depth of ${maxDepth}`);
    // An alias bomb would make this walk exponential; YAML's own alias limits stop those before we get here.
    if (++visited > 10_000_000) throw new SyntaxError("document too complex");
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
}

/**
 * Parses a YAML body (apply patches, application/yaml) with the same depth limit: a document too deep for the parser
 * itself (it recurses) or deeper than `maxDepth` once parsed throws `yaml: exceeded max depth of 1000`, goyaml's
 * wording (with our limit); other syntax errors are the parser's.
 */
export function parseYamlBody(text: string, maxDepth = MAX_BODY_DEPTH): unknown {
  // Flow collections (`[[[[…`) first, with the JSON scanner: the parser takes milliseconds per level before it
  // overflows, so a 3 MiB body of brackets would cost seconds. Brackets inside plain scalars count too (harmless).
  if (jsonDepthError(text, maxDepth)) throw new SyntaxError(`yaml: exceeded max depth of ${maxDepth}`);
  let value: unknown;
  try {
    // logLevel error: a client's odd directives are not worth a warning on the server's stderr.
    value = YAML.parse(text, { logLevel: "error" });
  } catch (err) {
    // The parser recurses; it reports its own stack overflow as a RangeError or wrapped in a YAMLParseError.
    if (err instanceof RangeError || /Maximum call stack size exceeded/.test(String((err as Error)?.message))) {
      throw new SyntaxError(`yaml: exceeded max depth of ${maxDepth}`);
    }
    throw err;
  }
  assertValueDepth(value, maxDepth);
  return value;
}
