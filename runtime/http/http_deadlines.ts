/**
 * Header-read and idle deadlines for node:http / node:https servers under Deno. Deno's node:http ignores
 * `server.headersTimeout` and `requestTimeout` (it honours only `keepAliveTimeout`), and Deno.serve has no such
 * options, so a client that dribbles a request header one byte at a time (or opens a connection and says nothing)
 * would hold it forever.
 * {@link enforceConnectionDeadlines} follows each connection through the server's own events: `connection` (accepted;
 * the TLS handshake and the first request's headers must finish within the header timeout), `request` (headers
 * complete: no deadline while a request is being served, so watches and other long responses are never cut), and the
 * response's end (idle: the next request's headers must be complete within the idle timeout). A connection past its
 * deadline is destroyed by the server. See docs/http_timeouts.md for why this design.
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** The deadlines, ms; tests inject small values. */
export interface ConnectionDeadlines {
  /** From accepting a connection until its first request's headers are complete (TLS handshake included). */
  headerTimeoutMs?: number;
  /** From the end of a connection's last response until its next request's headers are complete. */
  idleTimeoutMs?: number;
}

/** Default header-read deadline (Go's http.Server has none by default; kube-apiserver serves behind 30 s-ish LBs). */
export const DEFAULT_HEADER_TIMEOUT_MS = 20_000;

/** Default idle keep-alive deadline (kube-apiserver's http.Server uses IdleTimeout 90 s). */
export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;

interface Connection {
  /** The accepted socket and, with TLS, the TLS socket on top of it. */
  sockets: Socket[];
  inFlight: number;
  /** When the connection is cut (performance.now() ms); undefined while a request is served. */
  deadline?: number;
  /**
   * The connection's one timer. Moving the deadline does not touch it (a clear and a new timer per request cost more
   * than the request's own handling in the fake server): when it fires it cuts the connection, waits out a deadline
   * moved later, or stops when none is set.
   */
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Installs the deadlines on a node:http or node:https server (call before `listen`).
 *
 * @example
 * ```ts
 * import http from "node:http";
 * import { enforceConnectionDeadlines } from "./http_deadlines.ts";
 * const server = http.createServer((_req, res) => res.end("ok"));
 * enforceConnectionDeadlines(server, { headerTimeoutMs: 10_000, idleTimeoutMs: 60_000 });
 * ```
 */
export function enforceConnectionDeadlines(server: Server, opts: ConnectionDeadlines = {}): void {
  const headerMs = opts.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS;
  const idleMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  // Deno's node:http does honour keepAliveTimeout (node's default is 5 s): make it the idle deadline too, so the
  // Keep-Alive header tells clients the truth. headersTimeout is ignored under Deno; set for node.
  server.keepAliveTimeout = idleMs;
  server.headersTimeout = headerMs;
  const connections = new WeakMap<Socket, Connection>();
  const disarm = (conn: Connection) => {
    conn.deadline = undefined;
  };
  const wake = (conn: Connection, ms: number) => {
    conn.timer = setTimeout(() => {
      conn.timer = undefined;
      if (conn.deadline === undefined) return;
      const left = conn.deadline - performance.now();
      if (left > 0) wake(conn, left);
      else for (const s of conn.sockets) s.destroy();
    }, ms);
  };
  const arm = (conn: Connection, ms: number) => {
    disarm(conn);
    if (conn.sockets.some((s) => s.destroyed)) return;
    conn.deadline = performance.now() + ms;
    if (conn.timer === undefined) wake(conn, ms);
  };
  const adopt = (socket: Socket, conn: Connection) => {
    conn.sockets.push(socket);
    connections.set(socket, conn);
    socket.once("close", () => {
      disarm(conn);
      if (conn.timer !== undefined) clearTimeout(conn.timer);
      conn.timer = undefined;
    });
  };

  server.on("connection", (socket: Socket) => {
    const conn: Connection = { sockets: [], inFlight: 0 };
    adopt(socket, conn);
    arm(conn, headerMs);
  });
  // node:https: the TLS socket wraps the accepted one (`_parent`); both belong to one connection.
  server.on("secureConnection", (tls: Socket) => {
    const parent = (tls as Socket & { _parent?: Socket })._parent;
    const conn = parent ? connections.get(parent) : undefined;
    if (conn) adopt(tls, conn);
    else {
      const own: Connection = { sockets: [], inFlight: 0 };
      adopt(tls, own);
      arm(own, headerMs);
    }
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const conn = connections.get(req.socket);
    if (!conn) return;
    conn.inFlight++;
    disarm(conn);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (--conn.inFlight === 0) arm(conn, idleMs);
    };
    res.once("finish", end);
    res.once("close", end);
  });
}

/** How long a connection answered with its body unread stays half-open so the client can read the answer (Go: 500 ms). */
export const CLOSE_LINGER_MS = 500;

/**
 * Closes a connection whose request body was left unread, once its response is written: sends FIN at once (the
 * client sees the answer and the end of the connection), discards whatever of the body still arrives for at most a
 * short linger, then destroys the socket — as Go's closeWriteAndWait does. Closing at once with unread bytes in the
 * receive buffer would send a TCP reset that can destroy the answer before the client reads it. The body is never
 * buffered: what arrives during the linger is dropped, and no more than the linger's worth is read.
 */
export function closeAfterAnswer(req: IncomingMessage, lingerMs = CLOSE_LINGER_MS): void {
  const socket = req.socket;
  if (!socket || socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  socket.once("close", () => clearTimeout(timer));
  req.removeAllListeners("data");
  req.resume();
  socket.end();
}
