/**
 * Duplicate object keys in a JSON text, as kube-apiserver's strict decoder reports them (`duplicate field "spec.a"`
 * under `fieldValidation=Strict`, a warning under `Warn`): JSON.parse keeps the last value silently. The same scan
 * puts a built-in's unknown fields (go_json_unknown.ts) in document order among them, as kube's decoder meets them.
 * @module
 */

/**
 * The paths (`spec.size`, `spec.items[0].name`) of keys that appear twice in one object of a JSON text, in order of
 * their second appearance. Returns [] for text that is not valid JSON (the decoder reports that).
 *
 * @example
 * ```ts
 * import { duplicateJsonFields } from "./json_duplicates.ts";
 * console.assert(duplicateJsonFields('{"spec":{"a":1,"a":2}}')[0] === "spec.a");
 * ```
 */
export function duplicateJsonFields(text: string): string[] {
  return strictJsonFieldErrors(text, new Set()).map((m) => JSON.parse(m.slice("duplicate field ".length)));
}

/**
 * kube's strict decoding errors of a JSON text, in document order as its decoder meets them: `duplicate field "<path>"`
 * at a key's second appearance, and `unknown field "<path>"` at the first appearance of a path in `unknown` (paths as
 * go_json_unknown.ts's strictFieldPath words them). Returns [] for text that is not valid JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { strictJsonFieldErrors } from "./json_duplicates.ts";
 * assert.deepEqual(strictJsonFieldErrors('{"x":1,"a":1,"a":2}', new Set(["x"])), [
 *   'unknown field "x"',
 *   'duplicate field "a"',
 * ]);
 * ```
 */
export function strictJsonFieldErrors(text: string, unknown: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const reported = new Set<string>();
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const value = (path: string, depth: number): void => {
    if (depth > 10_000) throw new RangeError("too deep");
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const at = path ? `${path}.${key}` : key;
        if (seen.has(key)) out.push(`duplicate field ${JSON.stringify(at)}`);
        else if (unknown.has(at) && !reported.has(at)) {
          reported.add(at);
          out.push(`unknown field ${JSON.stringify(at)}`);
        }
        seen.add(key);
        ws();
        i++; // :
        value(at, depth + 1);
        ws();
        if (text[i++] === "}") return;
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let n = 0;; n++) {
        value(`${path}[${n}]`, depth + 1);
        ws();
        if (text[i++] === "]") return;
      }
    } else if (c === '"') str();
    else {
      while (i < text.length && !",]} \t\n\r".includes(text[i])) i++;
    }
  };
  try {
    value("", 0);
  } catch {
    return [];
  }
  return out;
}
