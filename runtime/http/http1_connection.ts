/**
 * The HTTP/1.1 wire code kubeop speaks over raw sockets (`Deno.connect`, node:tls through tls_dial.ts), shared by the watch
 * streams (http_transport.ts, one request per connection) and the unary keep-alive pool (http1_pool.ts): dialling
 * (TLS as the kubeconfig says: tls_dial.ts), writing a request head and body in one write, parsing a response head
 * (status, headers, framing, whether the connection may be kept alive) and reading a body by content-length,
 * chunked ({@link ChunkedDecoder}) or until close, either streamed per socket read or whole.
 * @module
 */

import { ChunkedDecoder } from "./chunked_decoder.ts";
import { concatBytes } from "./bounded_body.ts";
import { type ByteConn, dialTls, type TlsOptions } from "./tls_dial.ts";

export type { ByteConn, TlsOptions } from "./tls_dial.ts";

/** Raised when the server's response is not HTTP/1.1 we understand, or the connection ends too early. */
export class HttpProtocolError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "HttpProtocolError";
  }
}

/** How the body of a response is delimited. */
export type BodyFraming = "none" | "length" | "chunked" | "close";

/** A parsed response head. */
export interface ResponseHead {
  /** HTTP status code. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** How the body ends. */
  framing: BodyFraming;
  /** The body size when `framing` is "length". */
  contentLength: number;
  /** HTTP/1.1 without `Connection: close` and a body that does not end at close: the connection may serve again. */
  keepAlive: boolean;
}

/**
 * 64 KiB: a read decodes to a string of up to 64 Ki chars, which V8 allocates in the young generation; 256 KiB reads
 * made large-object-space strings that only a full GC reclaims (measured ~4% slower ingestion into the cache).
 */
const READ_BUFFER_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;
const encoder = new TextEncoder();
const BREAKS_HEADER = /[\r\n\0]/;
const latin1 = new TextDecoder("latin1");

/**
 * Encodes a request head (`Host` added, then `headers`, `Content-Length` when there is a body or the method carries
 * one) followed by the body, as one buffer for one write. Throws a TypeError for a header holding CR, LF or NUL (as
 * fetch does) rather than writing a second header line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeRequest } from "./http1_connection.ts";
 * const bytes = encodeRequest("POST", new URL("http://127.0.0.1:8080/a?b=1"), { Accept: "application/json" }, "{}");
 * assert.ok(new TextDecoder().decode(bytes).startsWith("POST /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"));
 * ```
 */
export function encodeRequest(
  method: string,
  url: URL,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): Uint8Array {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const k in headers) {
    const v = headers[k];
    // A CR or LF would end the header early and smuggle in another (a token file with a stray newline, say).
    if (BREAKS_HEADER.test(k) || BREAKS_HEADER.test(v)) {
      throw new TypeError(
        `header ${JSON.stringify(k)} of ${method} ${url.pathname}: name or value holds CR, LF or NUL`,
      );
    }
    head += `${k}: ${v}\r\n`;
  }
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  if (bodyBytes !== undefined) head += `Content-Length: ${bodyBytes.length}\r\n`;
  else if (method === "POST" || method === "PUT" || method === "PATCH") head += "Content-Length: 0\r\n";
  head += "\r\n";
  if (!bodyBytes?.length) return encoder.encode(head);
  const out = new Uint8Array(head.length * 3 + bodyBytes.length);
  const { written } = encoder.encodeInto(head, out);
  out.set(bodyBytes, written);
  return out.subarray(0, written + bodyBytes.length);
}

/**
 * One HTTP/1.1 client connection: the socket, its read buffer and at most one read in flight. A pooled connection
 * keeps a read outstanding while idle ({@link watchIdle}); the next response head consumes that same read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { encodeRequest, Http1Connection } from "./http1_connection.ts";
 * const cluster = await startFakeApiServer(); // any HTTP/1.1 server
 * const url = new URL("/healthz", cluster.url);
 * const conn = await Http1Connection.dial(url);
 * await conn.write(encodeRequest("GET", url, {}));
 * const head = await conn.readHead("GET");
 * const { body, reusable } = await conn.readWholeBody(head);
 * assert.equal(head.status, 200);
 * assert.equal(new TextDecoder().decode(body), "ok");
 * assert.ok(reusable); // keep-alive: the next request may use this connection
 * conn.close();
 * await cluster.stop();
 * ```
 */
export class Http1Connection {
  /** The socket. */
  readonly socket: ByteConn;
  readonly #buf = new Uint8Array(READ_BUFFER_BYTES);
  #start = 0;
  #end = 0;
  /** The idle read (into #buf at 0), consumed by the next {@link readHead}. */
  #pending: Promise<number | null> | undefined;
  #onIdleBroken: (() => void) | undefined;
  #closed = false;
  #responseStarted = false;
  #lastReadAt = 0;

  /** Wraps a connected socket (see {@link Http1Connection.dial}). */
  constructor(socket: ByteConn) {
    this.socket = socket;
  }

  /** Connects to the URL's origin (http: or https:, ALPN http/1.1), with TCP no-delay and keep-alive. */
  static async dial(url: URL, tls?: TlsOptions): Promise<Http1Connection> {
    const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    if (url.protocol === "https:") return new Http1Connection(await dialTls(hostname, port, tls));
    if (url.protocol !== "http:") throw new HttpProtocolError(`unsupported protocol ${url.protocol}`);
    const socket = await Deno.connect({ hostname, port });
    try {
      socket.setKeepAlive(true);
      socket.setNoDelay(true);
    } catch { /* not supported on this transport */ }
    return new Http1Connection(socket);
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** `performance.now()` of the last completed socket read (0: none): a silence deadline measures from it. */
  get lastReadAt(): number {
    return this.#lastReadAt;
  }

  /** True once a byte of the current response arrived (a failure before that may be retried elsewhere). */
  get responseStarted(): boolean {
    return this.#responseStarted;
  }

  /** Closes the socket (idempotent); a read in flight rejects. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onIdleBroken = undefined;
    try {
      this.socket.close();
    } catch { /* already closed */ }
  }

  /** Writes all of `bytes`. */
  async write(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) off += await this.socket.write(bytes.subarray(off));
  }

  /**
   * Parks the connection: one read stays outstanding so a server close, an error or unexpected bytes are seen at
   * once; then the connection is closed and `onBroken` called. {@link claim} takes it back for the next request.
   */
  watchIdle(onBroken: () => void): void {
    this.#onIdleBroken = onBroken;
    this.#responseStarted = false;
    if (this.#pending) return;
    const pending = this.socket.read(this.#buf);
    this.#pending = pending;
    const settled = () => {
      const broken = this.#onIdleBroken;
      if (!broken || this.#pending !== pending) return;
      this.close();
      broken();
    };
    pending.then(settled, settled);
  }

  /** Takes a parked connection for a request; its outstanding read serves the response head. */
  claim(): void {
    this.#onIdleBroken = undefined;
  }

  /** Reads into the buffer after #end; undefined at end of stream. */
  async #fill(): Promise<number | null> {
    let n: number | null;
    if (this.#pending) {
      const pending = this.#pending;
      if (this.#end !== 0) throw new Error("Http1Connection: idle read with buffered bytes");
      n = await pending.finally(() => this.#pending = undefined);
      this.#lastReadAt = performance.now();
    } else {
      n = await this.socket.read(this.#buf.subarray(this.#end));
      this.#lastReadAt = performance.now();
    }
    if (n !== null) this.#end += n;
    return n;
  }

  /** Reads and parses a response head (1xx interim answers skipped); `method` decides whether a body follows. */
  async readHead(method: string): Promise<ResponseHead> {
    for (;;) {
      let headEnd = findHeadEnd(this.#buf, this.#start, this.#end);
      while (headEnd < 0) {
        if (this.#start > 0) this.#compact();
        if (this.#end >= MAX_HEAD_BYTES) throw new HttpProtocolError("response head too large");
        const from = Math.max(0, this.#end - 3);
        const n = await this.#fill();
        if (n === null) throw new HttpProtocolError("connection closed before the response head");
        this.#responseStarted = true;
        headEnd = findHeadEnd(this.#buf, from, this.#end);
      }
      const head = latin1.decode(this.#buf.subarray(this.#start, headEnd));
      this.#start = headEnd + 4;
      if (this.#start === this.#end) this.#start = this.#end = 0;
      const parsed = parseHead(head, method);
      if (parsed.status >= 100 && parsed.status < 200 && parsed.status !== 101) continue;
      return parsed;
    }
  }

  #compact(): void {
    this.#buf.copyWithin(0, this.#start, this.#end);
    this.#end -= this.#start;
    this.#start = 0;
  }

  /**
   * Streams the body: `onData` gets each run of body bytes once per socket read (views valid only during the call;
   * a chunked body is de-chunked in place). Resolves at the end of the body.
   */
  async readBodyStream(head: ResponseHead, onData: (bytes: Uint8Array) => void): Promise<void> {
    if (head.framing === "none") return;
    const buf = this.#buf;
    const leftover = buf.subarray(this.#start, this.#end);
    this.#start = this.#end = 0;
    if (head.framing === "chunked") {
      const dec = new ChunkedDecoder();
      if (leftover.length > 0 && dechunkInPlace(dec, leftover, onData)) return;
      for (;;) {
        const n = await this.socket.read(buf);
        this.#lastReadAt = performance.now();
        if (n === null) throw new HttpProtocolError("connection closed inside a chunked body");
        if (dechunkInPlace(dec, buf.subarray(0, n), onData)) return;
      }
    }
    const known = head.framing === "length";
    let left = known ? head.contentLength : Number.POSITIVE_INFINITY;
    if (leftover.length > 0) {
      const take = leftover.subarray(0, Math.min(leftover.length, left));
      onData(take);
      left -= take.length;
    }
    while (left > 0) {
      const n = await this.socket.read(buf);
      this.#lastReadAt = performance.now();
      if (n === null) {
        if (known) throw new HttpProtocolError("connection closed inside the body");
        return;
      }
      const take = Math.min(n, left);
      onData(buf.subarray(0, take));
      left -= take;
    }
  }

  /**
   * Reads the whole body into one array (exactly sized for content-length). `reusable` says whether the connection
   * may serve another request: the head allowed keep-alive and no byte followed the body.
   */
  async readWholeBody(head: ResponseHead): Promise<{ body: Uint8Array; reusable: boolean }> {
    if (head.framing === "length") return await this.#readLength(head);
    if (head.framing === "none") {
      return { body: new Uint8Array(0), reusable: head.keepAlive && this.#end === this.#start };
    }
    const parts: Uint8Array[] = [];
    if (head.framing === "close") {
      await this.readBodyStream(head, (bytes) => parts.push(bytes.slice()));
      return { body: concatBytes(parts), reusable: false };
    }
    const dec = new ChunkedDecoder();
    const buf = this.#buf;
    let view = buf.subarray(this.#start, this.#end);
    this.#start = this.#end = 0;
    for (;;) {
      if (view.length > 0) {
        const done = dechunkInPlace(dec, view, (bytes) => parts.push(bytes.slice()));
        if (done) return { body: concatBytes(parts), reusable: head.keepAlive && dec.consumed === view.length };
      }
      const n = await this.socket.read(buf);
      this.#lastReadAt = performance.now();
      if (n === null) throw new HttpProtocolError("connection closed inside a chunked body");
      view = buf.subarray(0, n);
    }
  }

  async #readLength(head: ResponseHead): Promise<{ body: Uint8Array; reusable: boolean }> {
    const size = head.contentLength;
    const buffered = this.#end - this.#start;
    if (buffered >= size) {
      const body = this.#buf.slice(this.#start, this.#start + size);
      const extra = buffered > size;
      this.#start = this.#end = 0;
      return { body, reusable: head.keepAlive && !extra };
    }
    const body = new Uint8Array(size);
    body.set(this.#buf.subarray(this.#start, this.#end));
    let got = buffered;
    this.#start = this.#end = 0;
    while (got < size) {
      const n = await this.socket.read(body.subarray(got));
      this.#lastReadAt = performance.now();
      if (n === null) throw new HttpProtocolError("connection closed inside the body");
      got += n;
    }
    return { body, reusable: head.keepAlive };
  }
}

/** Parses a status line and header lines; `method` HEAD and 1xx/204/304 answers have no body. */
function parseHead(head: string, method: string): ResponseHead {
  const lines = head.split("\r\n");
  const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]);
  if (!m) throw new HttpProtocolError(`bad status line: ${lines[0].slice(0, 100)}`);
  const status = Number(m[2]);
  const headers = new Headers();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let framing: BodyFraming;
  let contentLength = 0;
  if (method === "HEAD" || status < 200 || status === 204 || status === 304) framing = "none";
  else if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) framing = "chunked";
  else if (headers.has("content-length")) {
    const value = headers.get("content-length")!;
    contentLength = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(contentLength)) {
      throw new HttpProtocolError(`bad content-length: ${value.slice(0, 40)}`);
    }
    framing = "length";
  } else framing = "close";
  const keepAlive = m[1] === "1" && framing !== "close" && !/\bclose\b/i.test(headers.get("connection") ?? "");
  return { status, headers, framing, contentLength, keepAlive };
}

/**
 * De-chunks `input` in place: the payload runs are moved down over the chunk framing (memmove) and handed to
 * `onData` as one view per read instead of one per chunk. A watch stream sends one small chunk per event, so this
 * turns thousands of callbacks (and text decodes downstream) per read into one. Returns true at the end of the body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChunkedDecoder } from "./chunked_decoder.ts";
 * import { dechunkInPlace } from "./http1_connection.ts";
 * const out: string[] = [];
 * const input = new TextEncoder().encode("2\r\nab\r\n1\r\nc\r\n0\r\n\r\n");
 * assert.ok(dechunkInPlace(new ChunkedDecoder(), input, (b) => out.push(new TextDecoder().decode(b))));
 * assert.deepEqual(out, ["abc"]);
 * ```
 */
export function dechunkInPlace(dec: ChunkedDecoder, input: Uint8Array, onData: (bytes: Uint8Array) => void): boolean {
  let out = 0;
  const base = input.byteOffset;
  const done = dec.push(input, (run) => {
    const at = run.byteOffset - base;
    if (at !== out) input.copyWithin(out, at, at + run.length);
    out += run.length;
  });
  if (out > 0) onData(input.subarray(0, out));
  return done;
}

function findHeadEnd(buf: Uint8Array, from: number, to: number): number {
  for (let i = from; i + 3 < to; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}
