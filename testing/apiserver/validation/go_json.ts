/**
 * Go's `json.Unmarshal(data, &map[string]interface{}{})` errors, for validation that reports them verbatim (kube's
 * dockercfg and dockerconfigjson Secrets): the syntax checker's `invalid character 'x' looking for beginning of
 * value`-style messages, `unexpected end of JSON input`, and `json: cannot unmarshal array into Go value of type
 * map[string]interface {}` for valid JSON that is not an object.
 * @module
 */

/** strconv.QuoteRune-style quoting of the offending character, as encoding/json's quoteChar. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const code = c.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) {
    const named: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r" };
    return `'${named[code] ?? `\\x${code.toString(16).padStart(2, "0")}`}'`;
  }
  return `'${c}'`;
}

class SyntaxError extends Error {}

/** A recursive-descent reader with encoding/json's scanner messages. */
class Reader {
  #i = 0;
  constructor(readonly text: string) {}

  #peek(): string | undefined {
    return this.text[this.#i];
  }
  #fail(context: string): never {
    const c = this.#peek();
    throw new SyntaxError(
      c === undefined ? "unexpected end of JSON input" : `invalid character ${quoteChar(c)} ${context}`,
    );
  }
  #space(): void {
    while (/[ \t\r\n]/.test(this.#peek() ?? "")) this.#i++;
  }

  /** Reads the whole document; returns the top-level value's Go kind. */
  document(): string {
    this.#space();
    const kind = this.#value();
    this.#space();
    if (this.#i < this.text.length) this.#fail("after top-level value");
    return kind;
  }

  #value(): string {
    const c = this.#peek();
    if (c === "{") return this.#object();
    if (c === "[") return this.#array();
    if (c === '"') return (this.#string(), "string");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return (this.#number(), "number");
    for (const word of ["true", "false", "null"]) {
      if (c === word[0]) {
        for (let k = 0; k < word.length; k++, this.#i++) {
          if (this.#peek() !== word[k]) this.#fail(`in literal ${word} (expecting '${word[k]}')`);
        }
        return word === "null" ? "null" : "bool";
      }
    }
    this.#fail("looking for beginning of value");
  }

  #object(): string {
    this.#i++;
    this.#space();
    if (this.#peek() === "}") return (this.#i++, "object");
    for (;;) {
      if (this.#peek() !== '"') this.#fail("looking for beginning of object key string");
      this.#string();
      this.#space();
      if (this.#peek() !== ":") this.#fail("after object key");
      this.#i++;
      this.#space();
      this.#value();
      this.#space();
      if (this.#peek() === "}") return (this.#i++, "object");
      if (this.#peek() !== ",") this.#fail("after object key:value pair");
      this.#i++;
      this.#space();
    }
  }

  #array(): string {
    this.#i++;
    this.#space();
    if (this.#peek() === "]") return (this.#i++, "array");
    for (;;) {
      this.#value();
      this.#space();
      if (this.#peek() === "]") return (this.#i++, "array");
      if (this.#peek() !== ",") this.#fail("after array element");
      this.#i++;
      this.#space();
    }
  }

  #string(): void {
    this.#i++;
    for (;;) {
      const c = this.#peek();
      if (c === undefined) this.#fail("");
      this.#i++;
      if (c === '"') return;
      if (c < " ") (this.#i--, this.#fail("in string literal"));
      if (c === "\\") {
        const e = this.#peek();
        if (e === "u") {
          this.#i++;
          for (let k = 0; k < 4; k++, this.#i++) {
            if (!/[0-9a-fA-F]/.test(this.#peek() ?? "")) this.#fail("in \\u hexadecimal character escape");
          }
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.#i++;
        else this.#fail("in string escape code");
      }
    }
  }

  #number(): void {
    const digits = () => {
      while (/[0-9]/.test(this.#peek() ?? "")) this.#i++;
    };
    if (this.#peek() === "-") {
      this.#i++;
      if (!/[0-9]/.test(this.#peek() ?? "")) this.#fail("in numeric literal");
    }
    if (this.#peek() === "0") this.#i++;
    else digits();
    if (this.#peek() === ".") {
      this.#i++;
      if (!/[0-9]/.test(this.#peek() ?? "")) this.#fail("after decimal point in numeric literal");
      digits();
    }
    if (this.#peek() === "e" || this.#peek() === "E") {
      this.#i++;
      if (this.#peek() === "+" || this.#peek() === "-") this.#i++;
      if (!/[0-9]/.test(this.#peek() ?? "")) this.#fail("in exponent of numeric literal");
      digits();
    }
  }
}

/**
 * Go's error for unmarshalling `text` into a `map[string]interface{}`, or undefined when it succeeds (an object or
 * null).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goJsonObjectError } from "./go_json.ts";
 * assert.equal(goJsonObjectError('{"auths":{}}'), undefined);
 * assert.equal(goJsonObjectError("{not json"), "invalid character 'n' looking for beginning of object key string");
 * assert.equal(goJsonObjectError("[]"), "json: cannot unmarshal array into Go value of type map[string]interface {}");
 * ```
 */
export function goJsonObjectError(text: string): string | undefined {
  let kind: string;
  try {
    kind = new Reader(text).document();
  } catch (err) {
    if (err instanceof SyntaxError) return err.message;
    throw err;
  }
  if (kind === "object" || kind === "null") return undefined;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}
