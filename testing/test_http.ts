/**
 * Tiny HTTP helpers for tests against the fake server with plain fetch.
 * @module
 */

/** A decoded JSON response. */
export interface JsonReply {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Sends a request with an optional JSON body (or raw string/bytes) and decodes the JSON answer. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const raw = body === undefined
    ? undefined
    : typeof body === "string" || body instanceof Uint8Array
    ? body
    : JSON.stringify(body);
  const res = await fetch(baseUrl + path, {
    method,
    body: raw as BodyInit | undefined,
    headers: { ...(raw !== undefined ? { "content-type": "application/json" } : {}), ...headers },
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* keep text */ }
  return { status: res.status, headers: res.headers, body: parsed };
}
