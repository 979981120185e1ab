/**
 * Duplicate object keys in a JSON text, as kube-apiserver's strict decoder reports them (`duplicate field "spec.a"`
 * under `fieldValidation=Strict`, a warning under `Warn`): JSON.parse keeps the last value silently.
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
  const out: string[] = [];
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
        if (seen.has(key)) out.push(at);
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
