/**
 * JSON text in ASCII: what the fake store keeps of each object (a one-byte string, half the memory of a two-byte one).
 * @module
 */

const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * JSON text of `obj` in ASCII: characters past U+007F as `\uXXXX` (JSON.parse reads them back the same), so the text
 * is a one-byte string (half the memory of a two-byte one) in memory and in a snapshot read back.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asciiJson } from "./ascii_json.ts";
 * assert.equal(asciiJson({ a: "é" }), '{"a":"\\u00e9"}');
 * assert.deepEqual(JSON.parse(asciiJson({ a: "é😀" })), { a: "é😀" });
 * ```
 */
export function asciiJson(obj: unknown): string {
  const text = JSON.stringify(obj);
  NON_ASCII.lastIndex = 0;
  if (!NON_ASCII.test(text)) return text;
  return text.replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
