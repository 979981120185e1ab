/**
 * The fake server's listener, on node:http (plain) or node:https (TLS, because Deno.serve cannot ask for client
 * certificates): every request is turned into a fetch `Request` for the router (with the verified
 * client-certificate subject in an internal header nobody else can set) and the `Response` goes back in one write
 * when its body is already complete (JSON answers), or streamed chunk by chunk (watches flush per event). Both run
 * on node's server so the header-read and idle deadlines of ../../runtime/http/http_deadlines.ts apply (Deno.serve has none;
 * see docs/http_timeouts.md).
 * @module
 */
import http from "node:http";
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { concatBytes } from "../../runtime/http/bounded_body.ts";
import { closeAfterAnswer, type ConnectionDeadlines } from "../../runtime/http/http_deadlines.ts";
import { listenTracked } from "../../runtime/http/node_listen.ts";

/** Header carrying the verified client certificate's common name into the router. */
export const CLIENT_CERT_HEADER = "x-kubeop-fake-client-cert-cn";

/** Header carrying the verified client certificate's organizations (groups), URI-encoded and comma-separated. */
export const CLIENT_CERT_GROUPS_HEADER = "x-kubeop-fake-client-cert-o";

/** A running listener. */
export interface HttpListener {
  port: number;
  close(): Promise<void>;
}

/** Options of {@link serveNodeHttp}. */
export interface NodeHttpOptions {
  /** Port on 127.0.0.1; 0 = a free port. */
  port: number;
  /** Serve HTTPS, asking for (but not requiring) client certificates that chain to `clientCAs`. */
  tls?: {
    certPEM: string;
    keyPEM: string;
    /** CAs client certificates must chain to. */
    clientCAs: string[];
  };
  /** Answers every request. */
  handler: (req: Request) => Promise<Response>;
  /** Header-read and idle deadlines (defaults in ../../runtime/http/http_deadlines.ts). */
  deadlines?: ConnectionDeadlines;
}

/** Starts an HTTP or HTTPS listener on 127.0.0.1. */
export async function serveNodeHttp(opts: NodeHttpOptions): Promise<HttpListener> {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    void bridge(req, res, opts.handler, opts.tls ? "https" : "http").catch(() => {
      try {
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end("internal error");
        } else res.destroy();
      } catch { /* gone */ }
    });
  };
  const server = opts.tls
    ? https.createServer({
      cert: opts.tls.certPEM,
      key: opts.tls.keyPEM,
      ca: opts.tls.clientCAs,
      requestCert: true,
      rejectUnauthorized: false,
    }, onRequest)
    : http.createServer(onRequest);
  const listener = await listenTracked(server, { hostname: "127.0.0.1", port: opts.port, deadlines: opts.deadlines });
  return {
    port: listener.port,
    close: () =>
      new Promise<void>((done) => {
        listener.destroySockets();
        server.close(() => done());
      }),
  };
}

async function bridge(
  req: IncomingMessage,
  res: ServerResponse,
  handler: (req: Request) => Promise<Response>,
  scheme: "http" | "https",
) {
  // Name/value pairs given to the Request at once: a third of the cost of appending to a Headers one by one.
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || lower === CLIENT_CERT_HEADER || lower === CLIENT_CERT_GROUPS_HEADER) continue;
    if (Array.isArray(value)) { for (const v of value) headers.push([name, v]); }
    else headers.push([name, value]);
  }
  const socket = req.socket as TLSSocket;
  if (scheme === "https" && socket.authorized) {
    const subject = socket.getPeerCertificate()?.subject;
    headers.push([CLIENT_CERT_HEADER, String(subject?.CN ?? "")]);
    const orgs: unknown = subject?.O;
    const list = Array.isArray(orgs) ? orgs : orgs === undefined ? [] : [orgs];
    headers.push([CLIENT_CERT_GROUPS_HEADER, list.map((o) => encodeURIComponent(String(o))).join(",")]);
  }
  const abort = new AbortController();
  // Only an answer cut short concerns the handler (a watch whose client left); aborting after every finished answer
  // would build a DOMException per request.
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const body = hasBody ? requestBody(req) : undefined;
  const request = new Request(`${scheme}://127.0.0.1${req.url ?? "/"}`, {
    method: req.method,
    headers,
    body: body?.stream,
    signal: abort.signal,
    // @ts-ignore: required by fetch for streaming request bodies
    duplex: "half",
  });
  const response = await handler(request);
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((v, k) => outHeaders[k] = v);
  // A body left unread (refused as too large, or not needed) is never drained: answer, then close the connection.
  const unread = body !== undefined && !body.ended();
  if (unread) {
    const rest = new Uint8Array(await response.arrayBuffer());
    outHeaders["connection"] = "close";
    outHeaders["content-length"] = String(rest.byteLength);
    res.writeHead(response.status, outHeaders);
    res.end(rest, () => closeAfterAnswer(req));
    return;
  }
  if (!response.body) {
    res.writeHead(response.status, outHeaders);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
  const ready = await readReady(reader);
  if (ready.pending === undefined) {
    // A complete body (every JSON answer): headers and body in one write, with a content-length as Deno.serve sends.
    const whole = ready.chunks.length === 1 ? ready.chunks[0] : concatBytes(ready.chunks);
    if (!("content-length" in outHeaders) && response.status !== 204 && response.status !== 304) {
      outHeaders["content-length"] = String(whole.byteLength);
    }
    res.writeHead(response.status, outHeaders);
    res.end(whole);
    return;
  }
  // A body still being produced (watches, followed logs): headers at once, then every chunk as it comes.
  res.writeHead(response.status, outHeaders);
  if (ready.chunks.length === 0) res.flushHeaders();
  try {
    for (const chunk of ready.chunks) res.write(chunk);
    let next = await ready.pending;
    while (!next.done) {
      res.write(next.value);
      next = await reader.read();
    }
  } finally {
    res.end();
  }
}

const NOT_YET = Symbol("not yet");

/** Settles after a few microtask turns: long enough for a read of a body already in memory, not for one waiting on I/O. */
function afterMicrotasks(): Promise<typeof NOT_YET> {
  return Promise.resolve().then(() => undefined).then(() => undefined).then(() => NOT_YET);
}

/**
 * Reads what `reader` yields without waiting on anything but microtasks: the chunks, and the read still pending when
 * the body is not complete yet (undefined when it is).
 */
async function readReady(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{
  chunks: Uint8Array[];
  pending?: Promise<ReadableStreamReadResult<Uint8Array>>;
}> {
  const chunks: Uint8Array[] = [];
  for (;;) {
    const read = reader.read();
    const result = await Promise.race([read, afterMicrotasks()]);
    if (result === NOT_YET) return { chunks, pending: read };
    if (result.done) return { chunks };
    chunks.push(result.value);
  }
}

/**
 * The request body as a web stream with backpressure. Cancelling it (e.g. a body past the size limit) stops reading
 * without draining the rest; `ended()` says whether the whole body arrived.
 */
function requestBody(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; ended: () => boolean } {
  let ended = false;
  let settled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Uint8Array) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 1) <= 0) req.pause();
      });
      req.on("end", () => {
        ended = true;
        if (settled) return;
        settled = true;
        controller.close();
      });
      req.on("error", (err) => {
        if (settled) return;
        settled = true;
        controller.error(err);
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      settled = true;
      req.pause();
    },
  }, { highWaterMark: 4 });
  return { stream, ended: () => ended };
}
