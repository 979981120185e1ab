/**
 * The HTTPS listener on node:https — the one server API under Deno that can request client certificates and
 * report whether they chain to a CA (`socket.authorized`), which front-proxy authentication needs. Each request is
 * first admitted from its request line, headers and the peer's TLS facts alone (authentication and authorization run
 * before a single body byte is read: a refused caller gets its answer at once and the connection is closed with the
 * body unread); only then is the body read, within the size limit, turned into a web Request and handed to the
 * handler. The web Response is streamed back (watch bodies included), cancelled when the client disconnects; both
 * translations are ../runtime/http/node_fetch_bridge.ts.
 * Header-read and idle deadlines close slow or idle connections (../runtime/http/http_deadlines.ts). Certificates can be
 * swapped without a restart.
 * @module
 */
import https from "node:https";
import type { IncomingMessage } from "node:http";
import type { DetailedPeerCertificate, TLSSocket } from "node:tls";
import type { ConnectionDeadlines } from "../runtime/http/http_deadlines.ts";
import { nodeFetchBridge } from "../runtime/http/node_fetch_bridge.ts";
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

function peerOf(req: IncomingMessage): PeerInfo {
  const socket = req.socket as TLSSocket;
  const cert = socket.getPeerCertificate?.(true) as DetailedPeerCertificate | undefined;
  if (!cert?.raw) return { verified: false, presented: false };
  const cn = cert.subject?.CN;
  const o = cert.subject?.O;
  const chain: Uint8Array[] = [];
  for (let c: DetailedPeerCertificate | undefined = cert; c?.raw && chain.length < 10; c = c.issuerCertificate) {
    chain.push(new Uint8Array(c.raw));
    if (c.issuerCertificate === c) break;
  }
  return {
    verified: socket.authorized === true,
    presented: true,
    commonName: Array.isArray(cn) ? cn[0] : cn,
    organizations: o === undefined ? [] : Array.isArray(o) ? o : [o],
    chain,
  };
}

/** A kube Status answer. */
function status(code: number, reason: string, message: string): Response {
  const body = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason, message, code };
  return new Response(JSON.stringify(body), { status: code, headers: { "content-type": "application/json" } });
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
  // The Host header is the client's to choose: the URL's host is fixed.
  const answer = nodeFetchBridge((request, req) => opts.handler(request, peerOf(req)), {
    scheme: "https",
    host: "farm.invalid",
    body: { maxBytes: opts.maxBodyBytes ?? 3 * 1024 * 1024 },
    admit: opts.admit && ((head, req) => opts.admit!(head, peerOf(req))),
    tooLarge: () => status(413, "RequestEntityTooLarge", "request body too large"),
    onError: (err) => status(500, "InternalError", `Internal error occurred: ${(err as Error).message}`),
  });
  const server = https.createServer(secure(), (req, res) => void answer(req, res));
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
