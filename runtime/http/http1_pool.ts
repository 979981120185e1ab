/**
 * A keep-alive pool of kubeop's own HTTP/1.1 connections (http1_connection.ts) for unary requests whose answers are
 * read whole: per origin, idle connections reused last-in first-out (at most `maxIdlePerOrigin`), a new connection
 * whenever none is idle (no cap on the ones in use: one per request in flight). An idle connection keeps one read
 * outstanding, as Go's `persistConn.readLoop` does, so a server that closes it (or sends stray bytes) is noticed at
 * once and the connection leaves the pool. A request that fails on a reused connection before any byte of the answer
 * arrived is sent once more on a fresh connection: the server closed the idle connection and never saw it.
 * @module
 */

import { encodeRequest, Http1Connection, type TlsOptions } from "./http1_connection.ts";
import { armSilenceDeadline, DEFAULT_SILENCE_TIMEOUT_MS, type SilenceDeadline } from "./silence_deadline.ts";

/** Pool settings. */
export interface Http1PoolOptions {
  /** TLS material of https origins. */
  tls?: TlsOptions;
  /** Idle connections kept per origin (default 32); the oldest is closed beyond that. */
  maxIdlePerOrigin?: number;
  /**
   * A connection idle this long is closed instead of reused (default 90 s, client-go's `IdleConnTimeout`): a load
   * balancer or NAT that drops idle flows without a FIN leaves a socket that looks open, and a request written on it
   * would wait for TCP's retransmission timeout.
   */
  idleTimeoutMs?: number;
  /** Monotonic milliseconds (default `performance.now`); tests pass their own. */
  now?: () => number;
  /**
   * A request whose connection brings no byte for this long — none of the answer since it was written, or none since
   * the last — is failed and its connection closed (default 25 s: docs/http_timeouts.md, "Dead connections"). A dead
   * connection (black-holed, or held by a proxy that forwards nothing) gives no other sign; HTTP/1.1 cannot ask it.
   */
  silenceTimeoutMs?: number;
}

/** One request. */
export interface Http1Request {
  /** Method (upper case). */
  method: string;
  /** Target (http: or https:). */
  url: URL;
  /** Request headers (Host and Content-Length are added). */
  headers?: Record<string, string>;
  /** The body, sent in the same write as the head. */
  body?: string | Uint8Array;
  /** Aborting closes the connection and rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Called synchronously on each attempt once a connection is at hand, right before the request is written (after a
   * dial, which can take long). A throw ends the request with that error, nothing written: a leader's write fence
   * (runtime/leader/write_fence.ts) is checked here, as late as it can be.
   */
  beforeWrite?: () => void;
}

/** A response read whole. */
export interface Http1Response {
  /** HTTP status code. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The whole body. */
  body: Uint8Array;
}

/** A transport failure of one request, naming it; `cause` is the socket or protocol error. */
export class HttpRequestError extends Error {
  /** Creates the error for `method url`. */
  constructor(method: string, url: URL, cause: unknown) {
    super(`error sending request ${method} ${url.href}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "HttpRequestError";
  }
}

/** Counters for tests and diagnostics. */
export interface Http1PoolStats {
  /** Connections dialled. */
  dialled: number;
  /** Requests sent on a reused connection. */
  reused: number;
  /** Requests sent again after a reused connection failed before its answer. */
  retried: number;
  /** Connections idle now. */
  idle: number;
  /** Connections serving a request now. */
  active: number;
}

/**
 * The pool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { Http1Pool } from "./http1_pool.ts";
 * const cluster = await startFakeApiServer(); // any HTTP/1.1 server
 * const pool = new Http1Pool();
 * const res = await pool.request({ method: "GET", url: new URL("/healthz", cluster.url) });
 * assert.equal(res.status, 200);
 * assert.equal(new TextDecoder().decode(res.body), "ok");
 * pool.close();
 * await cluster.stop();
 * ```
 */
export class Http1Pool {
  readonly #tls: TlsOptions | undefined;
  readonly #maxIdle: number;
  readonly #idle = new Map<string, Http1Connection[]>();
  readonly #idleSince = new WeakMap<Http1Connection, number>();
  readonly #idleTimeoutMs: number;
  readonly #silenceMs: number;
  readonly #now: () => number;
  readonly #active = new Set<Http1Connection>();
  /** The silence deadline of each request in flight, by its connection. */
  readonly #deadlines = new Map<Http1Connection, SilenceDeadline>();
  #closed = false;
  #retiring = false;
  #dialled = 0;
  #reused = 0;
  #retried = 0;

  /** An empty pool. */
  constructor(opts: Http1PoolOptions = {}) {
    this.#tls = opts.tls;
    this.#maxIdle = opts.maxIdlePerOrigin ?? 32;
    this.#idleTimeoutMs = opts.idleTimeoutMs ?? 90_000;
    this.#silenceMs = opts.silenceTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS;
    this.#now = opts.now ?? (() => performance.now());
  }

  /** Current counters. */
  get stats(): Http1PoolStats {
    let idle = 0;
    for (const list of this.#idle.values()) idle += list.length;
    return { dialled: this.#dialled, reused: this.#reused, retried: this.#retried, idle, active: this.#active.size };
  }

  /**
   * Sends one request and reads its answer whole. Rejects with `signal.reason` on abort and with an
   * {@link HttpRequestError} on a transport failure.
   */
  async request(req: Http1Request): Promise<Http1Response> {
    const { method, url, signal } = req;
    if (this.#closed) throw new HttpRequestError(method, url, new Error("connection pool is closed"));
    signal?.throwIfAborted();
    const origin = url.origin;
    const bytes = encodeRequest(method, url, req.headers ?? {}, req.body);
    for (let attempt = 0;; attempt++) {
      let conn = attempt === 0 ? this.#takeIdle(origin) : undefined;
      const reused = conn !== undefined;
      if (conn) this.#reused++;
      else {
        try {
          conn = await this.#dial(url, signal);
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          throw new HttpRequestError(method, url, err);
        }
      }
      const active = conn;
      if (req.beforeWrite) {
        try {
          req.beforeWrite();
        } catch (err) {
          this.#release(origin, active, true); // nothing was written: the connection stays good
          throw err;
        }
      }
      this.#active.add(active);
      const onAbort = () => active.close();
      signal?.addEventListener("abort", onAbort, { once: true });
      const silence = armSilenceDeadline(this.#silenceMs, () => active.lastReadAt, () => active.close());
      this.#deadlines.set(active, silence);
      try {
        if (signal?.aborted) throw signal.reason;
        await active.write(bytes);
        const head = await active.readHead(method);
        const { body, reusable } = await active.readWholeBody(head);
        this.#release(origin, active, reusable && !signal?.aborted);
        return { status: head.status, headers: head.headers, body };
      } catch (err) {
        this.#release(origin, active, false);
        if (signal?.aborted) throw signal.reason;
        if (silence.fired) {
          // The path to the origin went dead, and the idle connections went through it too: dial afresh rather than
          // wait out a deadline on each of them in turn. The request is not retried (the server may have it).
          this.#closeIdle(origin);
          throw new HttpRequestError(method, url, silence.fired);
        }
        if (reused && !active.responseStarted && !this.#closed) {
          this.#retried++;
          continue;
        }
        throw new HttpRequestError(method, url, err);
      } finally {
        silence.stop();
        this.#deadlines.delete(active);
        signal?.removeEventListener("abort", onAbort);
      }
    }
  }

  /**
   * Opens one connection to `url`'s origin ahead of the first request and keeps it idle, unless one is idle already:
   * the first write after start then skips the TCP and TLS handshake. Resolves once it is parked; never rejects (a
   * failed dial leaves the first request to dial and report).
   */
  async preconnect(url: URL): Promise<void> {
    if (this.#closed || this.#retiring || (this.#idle.get(url.origin)?.length ?? 0) > 0) return;
    try {
      const conn = await this.#dial(url, undefined);
      this.#release(url.origin, conn, true);
    } catch {
      // the first request dials again and says why
    }
  }

  /**
   * Closes every connection, idle and in use (their requests fail); further requests fail. With `letInFlightFinish`
   * only the idle ones are closed now and the ones in use when their answer is read (a rotated client certificate:
   * the pool retires, a new one takes over).
   */
  close(opts: { letInFlightFinish?: boolean } = {}): void {
    if (opts.letInFlightFinish) this.#retiring = true;
    else this.#closed = true;
    for (const list of this.#idle.values()) for (const conn of list) conn.close();
    this.#idle.clear();
    if (this.#closed) {
      for (const conn of this.#active) conn.close();
      this.#active.clear();
    }
  }

  /**
   * The path to the server was found dead elsewhere (a watch's connection): every connection went through it. Closes
   * the idle ones and fails each request in flight whose connection has brought no byte for `quietMs` as presumed dead
   * (not sent again: the server may have it), rather than let it wait out the silence deadline. Returns how many
   * requests it failed.
   */
  presumeDead(quietMs: number): number {
    for (const origin of [...this.#idle.keys()]) this.#closeIdle(origin);
    let failed = 0;
    for (const deadline of [...this.#deadlines.values()]) if (deadline.fireIfQuiet(quietMs)) failed++;
    return failed;
  }

  #takeIdle(origin: string): Http1Connection | undefined {
    const list = this.#idle.get(origin);
    if (!list) return undefined;
    this.#closeExpired(list);
    const conn = list.pop();
    if (conn) {
      conn.claim();
      this.#active.add(conn);
    }
    return conn;
  }

  /** Closes every idle connection of `origin`. */
  #closeIdle(origin: string): void {
    for (const conn of this.#idle.get(origin)?.splice(0) ?? []) conn.close();
  }

  /** Closes the connections of `list` (oldest first) idle for `idleTimeoutMs` or longer. */
  #closeExpired(list: Http1Connection[]): void {
    const limit = this.#now() - this.#idleTimeoutMs;
    let expired = 0;
    while (expired < list.length && (this.#idleSince.get(list[expired]) ?? 0) <= limit) expired++;
    for (const conn of list.splice(0, expired)) conn.close();
  }

  async #dial(url: URL, signal: AbortSignal | undefined): Promise<Http1Connection> {
    this.#dialled++;
    const dialling = Http1Connection.dial(url, url.protocol === "https:" ? this.#tls : undefined);
    if (!signal) return await dialling;
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([dialling, aborted]);
    } catch (err) {
      dialling.then((conn) => conn.close(), () => {});
      throw err;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  #release(origin: string, conn: Http1Connection, reusable: boolean): void {
    this.#active.delete(conn);
    if (!reusable || this.#closed || this.#retiring || conn.closed) {
      conn.close();
      return;
    }
    let list = this.#idle.get(origin);
    if (!list) this.#idle.set(origin, list = []);
    this.#closeExpired(list);
    if (list.length >= this.#maxIdle) list.shift()?.close();
    this.#idleSince.set(conn, this.#now());
    list.push(conn);
    conn.watchIdle(() => {
      const at = list.indexOf(conn);
      if (at >= 0) list.splice(at, 1);
    });
  }
}
