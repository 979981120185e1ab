/**
 * Reading a request body whole, up to a size limit — the one implementation shared by the webhook server, the farm
 * aggregated API server and the fake kube-apiserver. The source is any async iterable of byte chunks: a node:http
 * `IncomingMessage` or a web `ReadableStream`; leaving the loop early (past the limit) stops the source, so a body
 * that is too large is never drained. {@link concatBytes} joins byte chunks wherever bytes arrive in parts.
 * @module
 */

/** The chunks joined into one array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/**
 * The whole body, or `"too-large"` as soon as more than `maxBytes` arrived (the rest is not read). Checking a declared
 * Content-Length before calling is the caller's business.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBytesUpTo } from "./bounded_body.ts";
 * const body = new Request("http://x.invalid", { method: "POST", body: "hello" }).body!;
 * assert.deepEqual(await readBytesUpTo(body, 5), new TextEncoder().encode("hello"));
 * const again = new Request("http://x.invalid", { method: "POST", body: "hello" }).body!;
 * assert.equal(await readBytesUpTo(again, 4), "too-large");
 * ```
 */
export async function readBytesUpTo(
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | "too-large"> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    if (size > maxBytes) return "too-large";
    chunks.push(chunk);
  }
  return concatBytes(chunks);
}
