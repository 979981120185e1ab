/**
 * A scripted HTTP/1.1 server on a raw TCP socket (127.0.0.1) for transport tests: every answer is the exact bytes a
 * test chooses, written in the pieces it chooses, and the server records which connection each request came on and
 * when the client closed a connection. A real server (Deno.serve, node:http) cannot send a broken framing, close an
 * idle keep-alive connection on cue or drop a request unanswered.
 * @module
 */

/** A request as the server read it. */
export interface RawRequest {
  /** Method. */
  method: string;
  /** Path and query. */
  path: string;
  /** Request headers. */
  headers: Headers;
  /** The body (by Content-Length). */
  body: string;
  /** 0-based number of the connection it came on, in accept order. */
  connection: number;
  /** 0-based position of the request on its connection. */
  indexOnConnection: number;
}

/** What the server does with a request. */
export interface RawAnswer {
  /** Bytes to write, one write per piece (empty: answer nothing). */
  write: (string | Uint8Array)[];
  /** Close the connection after writing. */
  close?: boolean;
}

/** A running scripted server. */
export interface RawHttpServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request read, in order. */
  requests: RawRequest[];
  /** Connections accepted so far. */
  connections: number;
  /** Connections the client closed (EOF or reset while the server waited for a request). */
  closedByClient: number;
  /** Stops listening, closes every connection and waits for the handlers. */
  close(): Promise<void>;
}

/** An HTTP/1.1 answer with Content-Length (extra head lines in `head`). */
export function httpAnswer(status: number, body = "", head: string[] = []): string {
  return [`HTTP/1.1 ${status} X`, `content-length: ${new TextEncoder().encode(body).length}`, ...head, "", body]
    .join("\r\n");
}

/**
 * Starts the server; `answer` decides each reply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { httpAnswer, startRawHttpServer } from "./raw_http_server.ts";
 * const server = startRawHttpServer(() => ({ write: [httpAnswer(200, "{}")] }));
 * assert.equal(await fetch(server.url).then((r) => r.text()), "{}");
 * assert.equal(server.requests.length, 1);
 * await server.close();
 * ```
 */
export function startRawHttpServer(answer: (req: RawRequest) => RawAnswer | Promise<RawAnswer>): RawHttpServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const handlers: Promise<void>[] = [];
  let stopping = false;
  const server: RawHttpServer = {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    requests: [],
    connections: 0,
    closedByClient: 0,
    close: async () => {
      stopping = true;
      listener.close();
      await accepting;
      for (const conn of open) closeQuietly(conn);
      await Promise.all(handlers);
    },
  };
  const serve = async (conn: Deno.Conn, connection: number) => {
    const reader = new RequestReader(conn);
    try {
      for (let index = 0;; index++) {
        const req = await reader.next(connection, index);
        if (!req) {
          if (!stopping) server.closedByClient++;
          return;
        }
        server.requests.push(req);
        const reply = await answer(req);
        for (const piece of reply.write) {
          await conn.write(typeof piece === "string" ? new TextEncoder().encode(piece) : piece);
        }
        if (reply.close) return;
      }
    } catch {
      if (!stopping) server.closedByClient++;
    } finally {
      open.delete(conn);
      closeQuietly(conn);
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        open.add(conn);
        handlers.push(serve(conn, server.connections++));
      }
    } catch { /* listener closed */ }
  })();
  return server;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed */ }
}

/** Reads requests off one connection; undefined when the client closed it. */
class RequestReader {
  #pending = new Uint8Array(0);
  constructor(readonly conn: Deno.Conn) {}

  async next(connection: number, indexOnConnection: number): Promise<RawRequest | undefined> {
    let headEnd: number;
    while ((headEnd = indexOfHeadEnd(this.#pending)) < 0) if (!await this.#more()) return undefined;
    const [line, ...lines] = new TextDecoder().decode(this.#pending.subarray(0, headEnd)).split("\r\n");
    const headers = new Headers();
    for (const l of lines) headers.append(l.slice(0, l.indexOf(":")).trim(), l.slice(l.indexOf(":") + 1).trim());
    const length = Number(headers.get("content-length") ?? 0);
    while (this.#pending.length < headEnd + 4 + length) if (!await this.#more()) return undefined;
    const body = new TextDecoder().decode(this.#pending.subarray(headEnd + 4, headEnd + 4 + length));
    this.#pending = this.#pending.slice(headEnd + 4 + length);
    const [method, path] = line.split(" ");
    return { method, path, headers, body, connection, indexOnConnection };
  }

  async #more(): Promise<boolean> {
    const buf = new Uint8Array(64 * 1024);
    const n = await this.conn.read(buf);
    if (n === null) return false;
    const next = new Uint8Array(this.#pending.length + n);
    next.set(this.#pending);
    next.set(buf.subarray(0, n), this.#pending.length);
    this.#pending = next;
    return true;
  }
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}
