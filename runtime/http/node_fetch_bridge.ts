/**
 * The one bridge between node:http's server objects and fetch's `Request`/`Response`, used by every kubeop server
 * that listens with node:http or node:https (the manager's probe and metrics servers, the webhook server, the farm's
 * aggregated API server, the fake kube-apiserver; they listen with ./node_listen.ts).
 *
 * In: an `IncomingMessage` becomes a `Request` whose URL is the server's own scheme and host with the client's path
 * and query (the Host header and an absolute-form target never choose the host), whose headers are the client's as
 * sent (repeated ones kept), whose body is absent, a stream with backpressure, or read whole up to a bound (past it:
 * a 413 and the connection closed with the rest unread), and whose `signal` aborts when the client goes away before
 * its answer is complete. An `admit` step may answer from the head alone, before a single body byte is read.
 *
 * Out: a `Response` goes back with its status and headers (every Set-Cookie and Warning value on its own line), no
 * body for HEAD; a body already complete goes in one write with a Content-Length, one still being produced (watches,
 * followed logs) is sent chunk by chunk as each arrives. A request body left unread closes the connection after the
 * answer (../http/http_deadlines.ts `closeAfterAnswer`); a body that fails after the headers went out ends the socket,
 * so the client sees a cut answer, never a complete one.
 * @module
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { concatBytes, readBytesUpTo } from "./bounded_body.ts";
import { closeAfterAnswer } from "./http_deadlines.ts";

/** How a request body reaches the handler: never read, streamed, or read whole up to `maxBytes`. */
export type RequestBodyMode = "none" | "stream" | { readonly maxBytes: number };

/** Options of {@link nodeFetchBridge}. */
export interface NodeFetchBridgeOptions {
  /** The scheme of the Request's URL (the server's, not the client's). */
  scheme: "http" | "https";
  /** The host of the Request's URL; fixed by the server, never taken from the client (default `localhost`). */
  host?: string;
  /**
   * The request body: `"none"` (the handler never sees one; one sent anyway closes the connection after the answer),
   * `"stream"` (default: a web stream with backpressure; left unread, the connection closes after the answer), or
   * `{ maxBytes }` (read whole before the handler runs; a declared or sent body past the bound is answered by
   * {@link NodeFetchBridgeOptions.tooLarge} and the connection closes unread). GET and HEAD never carry one.
   */
  body?: RequestBodyMode;
  /** Client headers never passed on (lower-case names), e.g. ones only the server may set. */
  dropHeaders?: readonly string[];
  /** Headers the server adds to each Request (e.g. facts of the verified TLS peer). */
  extraHeaders?: (req: IncomingMessage) => readonly (readonly [string, string])[];
  /**
   * Runs before the body is read, with a body-less Request: a Response refuses the request (sent as is, the body is
   * never read and the connection closes), undefined admits it.
   */
  admit?: (head: Request, req: IncomingMessage) => Promise<Response | undefined>;
  /** The answer to a body past `maxBytes` (default 413, plain text). */
  tooLarge?: (head: Request, maxBytes: number) => Response;
  /** The answer when the handler (or `admit`) throws (default 500 `internal error`). */
  onError?: (error: unknown, req: IncomingMessage) => Response;
}

/** A node:http request listener that settles once the answer is written or the client is gone; it never rejects. */
export type NodeFetchListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The Request's body, as the bridge tracks it. */
interface BodySource {
  stream: ReadableStream<Uint8Array>;
  /** Whether the whole body arrived. */
  ended(): boolean;
}

/**
 * A node:http(s) request listener that answers through `handler` (see the module doc for what is translated).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import http from "node:http";
 * import { nodeFetchBridge } from "./node_fetch_bridge.ts";
 * import { listenTracked } from "./node_listen.ts";
 * const answer = nodeFetchBridge(async (req) => new Response(`${req.method} ${new URL(req.url).pathname}`), {
 *   scheme: "http",
 *   body: { maxBytes: 1024 },
 * });
 * const server = http.createServer((req, res) => void answer(req, res));
 * const listener = await listenTracked(server, { hostname: "127.0.0.1", port: 0 });
 * const res = await fetch(`http://127.0.0.1:${listener.port}/hello`, { method: "POST", body: "hi" });
 * assert.equal(await res.text(), "POST /hello");
 * const tooLarge = await fetch(`http://127.0.0.1:${listener.port}/`, { method: "POST", body: "x".repeat(2048) });
 * assert.equal(tooLarge.status, 413);
 * await tooLarge.body?.cancel();
 * const closed = new Promise<void>((resolve) => server.close(() => resolve()));
 * listener.destroySockets();
 * await closed;
 * ```
 */
export function nodeFetchBridge(
  handler: (request: Request, req: IncomingMessage) => Promise<Response>,
  opts: NodeFetchBridgeOptions,
): NodeFetchListener {
  const base = `${opts.scheme}://${opts.host ?? "localhost"}`;
  const drop = new Set(opts.dropHeaders ?? []);
  const mode = opts.body ?? "stream";
  const fail = opts.onError ?? (() => plain(500, "internal error\n"));
  return async (req, res) => {
    let close = false;
    let body: BodySource | undefined;
    const abort = new AbortController();
    // Only an answer cut short concerns the handler (a watch whose client left); aborting after every finished
    // answer would build an error per request.
    res.once("close", () => {
      if (!res.writableFinished) abort.abort(new DOMException("the client closed the connection", "AbortError"));
    });
    let response: Response;
    try {
      const url = requestURL(base, req.url ?? "/");
      const method = req.method ?? "GET";
      const headers = requestHeaders(req, drop, opts.extraHeaders);
      const head = () => new Request(url, { method, headers, signal: abort.signal });
      const refused = opts.admit ? await opts.admit(head(), req) : undefined;
      const carries = method !== "GET" && method !== "HEAD" && mode !== "none";
      if (refused) {
        response = refused;
        close = true;
      } else if (carries && typeof mode === "object") {
        body = requestBody(req);
        const read = Number(req.headers["content-length"] ?? 0) > mode.maxBytes
          ? "too-large"
          : await readBytesUpTo(body.stream, mode.maxBytes);
        if (read === "too-large") {
          response = opts.tooLarge?.(head(), mode.maxBytes) ??
            plain(413, `request body larger than ${mode.maxBytes} bytes\n`);
          close = true;
        } else {
          const init = { method, headers, signal: abort.signal, body: read as BodyInit };
          response = await handler(new Request(url, init), req);
        }
      } else {
        if (carries) body = requestBody(req);
        const init = { method, headers, signal: abort.signal, body: body?.stream, duplex: "half" };
        response = await handler(new Request(url, init as RequestInit), req);
      }
    } catch (err) {
      response = fail(err, req);
    }
    // A body left unread (not needed, refused, too large) is never drained: answer, then close the connection.
    if (!close && declaresBody(req) && !body?.ended()) close = true;
    try {
      await sendResponse(req, res, response, abort.signal, close);
    } catch (err) {
      if (!res.headersSent && !res.destroyed) {
        await sendResponse(req, res, fail(err, req), abort.signal, close).catch(() => res.destroy());
      } else res.destroy();
    }
  };
}

/** A short plain-text answer. */
function plain(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
  });
}

/**
 * The server's scheme and host with the client's path and query. An origin-form target is appended as is (so `//x/y`
 * is a path, never a host); any other form keeps only its path and query.
 */
function requestURL(base: string, target: string): string {
  if (target.startsWith("/")) return base + target;
  const parsed = new URL(target, base + "/");
  return base + parsed.pathname + parsed.search;
}

/** The client's headers as name/value pairs (given to the Request at once: cheaper than appending one by one). */
function requestHeaders(
  req: IncomingMessage,
  drop: ReadonlySet<string>,
  extra: NodeFetchBridgeOptions["extraHeaders"],
): [string, string][] {
  const raw = req.rawHeaders;
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (drop.size > 0 && drop.has(raw[i].toLowerCase())) continue;
    out.push([raw[i], raw[i + 1]]);
  }
  if (extra) { for (const [name, value] of extra(req)) out.push([name, value]); }
  return out;
}

/** Whether the client said a body follows. */
function declaresBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/**
 * The request body as a web stream with backpressure. Cancelling it (e.g. a body past the size limit) stops reading
 * without draining the rest; `ended()` says whether the whole body arrived.
 */
function requestBody(req: IncomingMessage): BodySource {
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
        controller.error(new Error(`reading the request body: ${err.message}`, { cause: err }));
      });
      // The client went away before its body ended: whoever reads the body must not wait for the rest forever.
      req.on("close", () => {
        if (settled) return;
        settled = true;
        controller.error(new Error("reading the request body: the client closed the connection before its end"));
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

/**
 * A Response's headers for node: every Set-Cookie value on its own line, and the Warning list (which fetch's Headers
 * joins with commas) split back into one line per warning, as kube-apiserver sends them.
 */
export function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    out[name] = name === "warning" ? splitList(value) : value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

/** Splits a comma-separated header list at the commas outside quoted strings (RFC 9110 §5.6.1, §5.6.4). */
function splitList(value: string): string | string[] {
  if (!value.includes(",")) return value;
  const items: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted && c === "\\") i++;
    else if (c === '"') quoted = !quoted;
    else if (c === "," && !quoted) {
      items.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(value.slice(start).trim());
  const list = items.filter((item) => item !== "");
  return list.length === 1 ? list[0] : list;
}

/** Resolves once `res` has finished writing or closed. */
function ended(res: ServerResponse, chunk?: Uint8Array): Promise<void> {
  return new Promise<void>((resolve) => {
    res.once("close", () => resolve());
    res.end(chunk, () => resolve());
  });
}

/**
 * Writes `response` to `res` (see the module doc). `close` answers with `connection: close` and closes the connection
 * once the answer is written. Rejects when the body fails before the headers are sent (the caller answers 500).
 */
async function sendResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  gone: AbortSignal,
  close: boolean,
): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers = nodeHeaders(response.headers);
  if (close) {
    res.shouldKeepAlive = false;
    headers["connection"] = "close";
  }
  const finish = async (chunk?: Uint8Array) => {
    await ended(res, chunk);
    if (close) closeAfterAnswer(req);
  };
  const { status } = response;
  if (!response.body) {
    res.writeHead(status, headers);
    return await finish();
  }
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  gone.addEventListener("abort", cancel, { once: true });
  const ready = await readReady(reader);
  if (ready.pending === undefined) {
    // A complete body (every JSON answer): headers and body in one write, with a Content-Length.
    const whole = ready.chunks.length === 1 ? ready.chunks[0] : concatBytes(ready.chunks);
    if (!("content-length" in headers) && status !== 204 && status !== 304) {
      headers["content-length"] = String(whole.byteLength);
    }
    res.writeHead(status, headers);
    return await finish(req.method === "HEAD" ? undefined : whole);
  }
  if (req.method === "HEAD") {
    cancel();
    res.writeHead(status, headers);
    return await finish();
  }
  // A body still being produced (watches, followed logs): the headers at once, then every chunk as it comes.
  res.writeHead(status, headers);
  if (ready.chunks.length === 0) res.flushHeaders();
  try {
    for (const chunk of ready.chunks) res.write(chunk);
    let next = await ready.pending;
    while (!next.done) {
      if (res.destroyed) return cancel();
      res.write(next.value);
      next = await reader.read();
    }
  } catch {
    // The body failed after the headers went out: cut the connection, so the client cannot take it as complete.
    res.destroy();
    return;
  } finally {
    gone.removeEventListener("abort", cancel);
  }
  if (!res.destroyed) await finish();
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
