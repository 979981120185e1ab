/**
 * An HTTPS request that skips certificate verification, for APIServices with `insecureSkipTLSVerify: true`
 * (fetch in Deno cannot skip it; node:https can). The response body streams, so proxied watches still flush.
 * @module
 */
import https from "node:https";
import { Readable } from "node:stream";

/** What {@link insecureFetch} sends. */
export interface InsecureRequest {
  method: string;
  headers: Headers;
  body?: ArrayBuffer;
  signal?: AbortSignal;
  /** Client certificate presented to the server. */
  cert?: string;
  key?: string;
}

/** Sends `init` to `url` without verifying the server's certificate. */
export function insecureFetch(url: URL, init: InsecureRequest): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string[]> = {};
    init.headers.forEach((value, name) => (headers[name] ??= []).push(value));
    const req = https.request(url, {
      method: init.method,
      headers,
      rejectUnauthorized: false,
      ...(init.cert && init.key ? { cert: init.cert, key: init.key } : {}),
      signal: init.signal,
    }, (res) => {
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
      }
      const nullBody = init.method === "HEAD" || res.statusCode === 204 || res.statusCode === 304;
      if (nullBody) res.resume();
      const body = nullBody ? null : Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>;
      resolve(new Response(body, { status: res.statusCode ?? 502, headers: out }));
    });
    req.on("error", reject);
    if (init.body) req.write(new Uint8Array(init.body));
    req.end();
  });
}
