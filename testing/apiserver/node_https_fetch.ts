/**
 * An HTTPS request over node:https, as kube-apiserver's aggregator proxies to an APIService: the server's certificate
 * verified against the APIService's `caBundle` for the name `<service>.<namespace>.svc` whatever address is dialled,
 * or not verified at all (`insecureSkipTLSVerify: true`), with the front-proxy client certificate. Deno's fetch can do
 * neither of the first two, and refuses a self-signed certificate that is its own CA (what `openssl req -x509` makes;
 * rustls: CaUsedAsEndEntity) where Go's crypto/tls, and node:tls, accept it. The response body streams, so proxied
 * watches still flush.
 * @module
 */
import https from "node:https";
import { Readable } from "node:stream";

/** What {@link nodeHttpsFetch} sends, and how it checks the server. */
export interface NodeHttpsRequest {
  method: string;
  headers: Headers;
  body?: ArrayBuffer;
  signal?: AbortSignal;
  /** Client certificate presented to the server. */
  cert?: string;
  key?: string;
  /** The only CA certificate (PEM) trusted; the system roots without it. */
  caPEM?: string;
  /** The name the server's certificate must hold (and SNI); the URL's host without it. */
  serverName?: string;
  /** Skip verifying the server's certificate (`insecureSkipTLSVerify`). */
  insecureSkipVerify?: boolean;
}

/** Sends `init` to `url`, checking the server's certificate as `init` says. */
export function nodeHttpsFetch(url: URL, init: NodeHttpsRequest): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string[]> = {};
    init.headers.forEach((value, name) => (headers[name] ??= []).push(value));
    const req = https.request(url, {
      method: init.method,
      headers,
      rejectUnauthorized: init.insecureSkipVerify !== true,
      ...(init.caPEM ? { ca: [init.caPEM] } : {}),
      ...(init.serverName ? { servername: init.serverName } : {}),
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
