/**
 * The syntax check Go's encoding/json runs over a whole body before decoding it (`checkValid` and its scanner), with
 * Go's messages: `unexpected end of JSON input`, `invalid character 'x' after top-level value`, `invalid character
 * '}' looking for beginning of object key string`, ... kube-apiserver answers a body that fails it with these words.
 * Nesting deeper than MAX_BODY_DEPTH (runtime/http/body_decode.ts) is `invalid character '[' exceeded max depth`, as
 * Go's scanner words its own (deeper) limit.
 * @module
 */

import { MAX_BODY_DEPTH } from "../../runtime/http/body_decode.ts";

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set([...'"\\/bfnrtu'].map((c) => c.charCodeAt(0)));

/** Go's quoteChar: the byte in single quotes, escaped as strconv.Quote escapes it. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = {
    0x07: "\\a",
    0x08: "\\b",
    0x0c: "\\f",
    0x0a: "\\n",
    0x0d: "\\r",
    0x09: "\\t",
    0x0b: "\\v",
    0x5c: "\\\\",
  };
  if (named[c]) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  // A byte past ASCII is quoted as the rune U+00XX: the C1 controls, no-break space and soft hyphen are not printable.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, "0")}'`;
  return `'${String.fromCodePoint(c)}'`;
}

class SyntaxFailure extends Error {}

/**
 * Go's error for `bytes` as JSON, or undefined when it is valid JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goJsonSyntaxError } from "./go_json_syntax.ts";
 * const enc = (s: string) => new TextEncoder().encode(s);
 * assert.equal(goJsonSyntaxError(enc('{"a":1}')), undefined);
 * assert.equal(goJsonSyntaxError(enc('{"a":1} x')), "invalid character 'x' after top-level value");
 * assert.equal(goJsonSyntaxError(enc('{"a":')), "unexpected end of JSON input");
 * assert.equal(goJsonSyntaxError(enc('{"a":1,}')), "invalid character '}' looking for beginning of object key string");
 * ```
 */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  let i = 0;
  const fail = (context: string): never => {
    throw new SyntaxFailure(`invalid character ${quoteChar(bytes[i])} ${context}`);
  };
  const eof = (): never => {
    throw new SyntaxFailure("unexpected end of JSON input");
  };
  const peek = (): number => (i < bytes.length ? bytes[i] : eof());
  const skipSpace = () => {
    while (i < bytes.length && SPACE.has(bytes[i])) i++;
  };
  const digits = (context: string) => {
    if (i >= bytes.length) eof();
    if (bytes[i] < 0x30 || bytes[i] > 0x39) fail(context);
    while (i < bytes.length && bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      const c = peek();
      if (c === 0x22) {
        i++;
        return;
      }
      if (c === 0x5c) {
        i++;
        const e = peek();
        if (!ESCAPES.has(e)) fail("in string escape code");
        i++;
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            const h = peek();
            const hex = (h >= 0x30 && h <= 0x39) || (h >= 0x61 && h <= 0x66) || (h >= 0x41 && h <= 0x46);
            if (!hex) fail("in \\u hexadecimal character escape");
            i++;
          }
        }
        continue;
      }
      if (c < 0x20) fail("in string literal");
      i++;
    }
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++) {
      if (peek() !== word.charCodeAt(k)) fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      i++;
    }
  };
  let depth = 0;
  /** An object or array from its opening byte: `element`s separated by commas up to `close`. */
  const container = (close: number, element: () => void, afterElement: string): void => {
    i++;
    skipSpace();
    if (peek() === close) {
      i++;
      depth--;
      return;
    }
    for (;;) {
      element();
      skipSpace();
      const next = peek();
      if (next === 0x2c) {
        i++;
        continue;
      }
      if (next === close) {
        i++;
        depth--;
        return;
      }
      fail(afterElement);
    }
  };
  /** One `"key": value` of an object. */
  const member = (): void => {
    skipSpace();
    if (peek() !== 0x22) fail("looking for beginning of object key string");
    string();
    skipSpace();
    if (peek() !== 0x3a) fail("after object key");
    i++;
    value();
  };
  const value = (): void => {
    skipSpace();
    const c = peek();
    if ((c === 0x7b || c === 0x5b) && ++depth > MAX_BODY_DEPTH) fail("exceeded max depth");
    if (c === 0x7b) return container(0x7d, member, "after object key:value pair");
    if (c === 0x5b) return container(0x5d, value, "after array element");
    if (c === 0x22) return string();
    if (c === 0x74) return literal("true");
    if (c === 0x66) return literal("false");
    if (c === 0x6e) return literal("null");
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      if (c === 0x2d) {
        i++;
        if (peek() < 0x30 || peek() > 0x39) fail("in numeric literal");
      }
      if (peek() === 0x30) i++;
      else digits("in numeric literal");
      if (i < bytes.length && bytes[i] === 0x2e) {
        i++;
        digits("after decimal point in numeric literal");
      }
      if (i < bytes.length && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
        i++;
        if (i < bytes.length && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
        digits("in exponent of numeric literal");
      }
      return;
    }
    fail("looking for beginning of value");
  };
  try {
    value();
    skipSpace();
    if (i < bytes.length) fail("after top-level value");
    return undefined;
  } catch (err) {
    if (err instanceof SyntaxFailure) return err.message;
    throw err;
  }
}
