/**
 * The HTTPS listener on node:https — the one server API under Deno that can request client certificates and
 * report whether they chain to a CA (`socket.authorized`), which front-proxy authentication needs. Each request is
 * first admitted from its request line, headers and the peer's TLS facts alone (authentication and authorization run
 * before a single body byte is read: a refused caller gets its answer at once and the connection is closed with the
 * body unread); only then is the body read, within the size limit, turned into a web Request and handed to the
 * handler. The web Response is streamed back (watch bodies included), cancelled when the client disconnects.
 * Header-read and idle deadlines close slow or idle connections (../runtime/http/http_deadlines.ts). Certificates can be
 * swapped without a restart.
 * @module
 */
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { readBytesUpTo } from "../runtime/http/bounded_body.ts";
import { closeAfterAnswer, type ConnectionDeadlines } from "../runtime/http/http_deadlines.ts";
import { listenTracked } from "../runtime/http/node_listen.ts";
import type { PeerInfo } from "./authn.ts";

/** Options of {@link startTlsServer}. */
export interface TlsServerOptions {
  /** Address to bind. */
  hostname: string;
  /** Port to bind; 0 = a free port. */
  port: number;
  /** Certificate, PEM. */
  certPEM: string;
  /** Private key, PEM (PKCS#8). */
  keyPEM: string;
  /** When set, client certificates are requested and verified against this bundle (not required). */
  clientCAPEM?: string;
  /** Request client certificates even before a client CA is known (it can be set later). */
  requestClientCert?: boolean;
  /**
   * Runs before the body is read, with a body-less Request (method, URL, headers) and the TLS peer: a Response
   * refuses the request (sent as is; the body is never read and the connection is closed), undefined admits it.
   * Default: admit everything.
   */
  admit?: (head: Request, peer: PeerInfo) => Promise<Response | undefined>;
  /** Answers every admitted request (with its body). */
  handler: (req: Request, peer: PeerInfo) => Promise<Response>;
  /** Largest request body accepted, bytes (default 3 MiB, kube-apiserver's limit). */
  maxBodyBytes?: number;
  /** Header-read and idle deadlines (defaults in ../runtime/http/http_deadlines.ts). */
  deadlines?: ConnectionDeadlines;
}

/** A running listener. */
export interface TlsServer {
  /** The bound port. */
  port: number;
  /** Replaces the serving certificate and/or the client CA for new connections (omitted parts stay). */
  update(change: { certPEM?: string; keyPEM?: string; clientCAPEM?: string }): void;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  return headers;
}

function peerOf(req: IncomingMessage): PeerInfo {
  const socket = req.socket as TLSSocket;
  const cert = socket.getPeerCertificate?.();
  const cn = cert?.subject?.CN;
  return { verified: socket.authorized === true, commonName: Array.isArray(cn) ? cn[0] : cn };
}

function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  refuse(
    req,
    res,
    new Response(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        reason: "RequestEntityTooLarge",
        message: "request body too large",
        code: 413,
      }),
      { status: 413, headers: { "content-type": "application/json" } },
    ),
  );
}

/** Sends a short answer to a request whose body stays unread, then closes the connection (never drains the body). */
function refuse(req: IncomingMessage, res: ServerResponse, response: Response): void {
  void response.arrayBuffer().then((body) => {
    const headers: Record<string, string> = {};
    response.headers.forEach((v, k) => headers[k] = v);
    headers["connection"] = "close";
    headers["content-length"] = String(body.byteLength);
    res.shouldKeepAlive = false;
    res.writeHead(response.status, headers);
    res.end(new Uint8Array(body), () => closeAfterAnswer(req));
  });
}

async function serve(opts: TlsServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? "GET";
  // The Host header is the client's to choose: never build the URL from it.
  const target = new URL(req.url ?? "/", "https://farm.invalid");
  const url = `https://farm.invalid${target.pathname}${target.search}`;
  const headers = toHeaders(req);
  const peer = peerOf(req);
  const refused = await opts.admit?.(new Request(url, { method, headers }), peer);
  if (refused) return refuse(req, res, refused);
  let body: Uint8Array | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const maxBytes = opts.maxBodyBytes ?? 3 * 1024 * 1024;
    if (Number(req.headers["content-length"] ?? 0) > maxBytes) return tooLarge(req, res);
    const read = await readBytesUpTo(req, maxBytes);
    if (read === "too-large") return tooLarge(req, res);
    body = read;
  }
  const response = await opts.handler(new Request(url, { method, headers, body: body as BodyInit | undefined }), peer);
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((v, k) => outHeaders[k] = v);
  res.writeHead(response.status, outHeaders);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders(); // watch clients wait for the headers before the first event
  const reader = response.body.getReader();
  res.on("close", () => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away mid-stream; the reader is cancelled above.
  }
  res.end();
}

/** Starts the listener; resolves once it is bound. */
export async function startTlsServer(opts: TlsServerOptions): Promise<TlsServer> {
  const current = { certPEM: opts.certPEM, keyPEM: opts.keyPEM, clientCAPEM: opts.clientCAPEM };
  const requestCert = !!opts.clientCAPEM || !!opts.requestClientCert;
  const secure = () => ({
    cert: current.certPEM,
    key: current.keyPEM,
    ...(current.clientCAPEM ? { ca: current.clientCAPEM } : {}),
    ...(requestCert ? { requestCert: true, rejectUnauthorized: false } : {}),
  });
  const server = https.createServer(secure(), (req, res) => {
    serve(opts, req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        reason: "InternalError",
        message: `Internal error occurred: ${(err as Error).message}`,
        code: 500,
      }));
    });
  });
  const listener = await listenTracked(server, opts);
  return {
    port: listener.port,
    update(change) {
      Object.assign(current, Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)));
      server.setSecureContext(secure());
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
        listener.destroySockets();
      });
    },
  };
}
