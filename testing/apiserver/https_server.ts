/**
 * The fake server's listener, on node:http (plain) or node:https (TLS, because Deno.serve cannot ask for client
 * certificates): every request is turned into a fetch `Request` for the router (with the verified
 * client-certificate subject in an internal header nobody else can set) and the `Response` goes back in one write
 * when its body is already complete (JSON answers), or streamed chunk by chunk (watches flush per event), through
 * ../../runtime/http/node_fetch_bridge.ts. Both run on node's server so the header-read and idle deadlines of
 * ../../runtime/http/http_deadlines.ts apply (Deno.serve has none; see docs/http_timeouts.md).
 * @module
 */
import http from "node:http";
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { ConnectionDeadlines } from "../../runtime/http/http_deadlines.ts";
import { nodeFetchBridge } from "../../runtime/http/node_fetch_bridge.ts";
import { listenTracked } from "../../runtime/http/node_listen.ts";

/** Header carrying the verified client certificate's common name into the router. */
export const CLIENT_CERT_HEADER = "x-kubeop-fake-client-cert-cn";

/** Header carrying the verified client certificate's organizations (groups), URI-encoded and comma-separated. */
export const CLIENT_CERT_GROUPS_HEADER = "x-kubeop-fake-client-cert-o";

/**
 * Header telling the router the client presented a certificate that does not chain to a trusted CA (kube-apiserver's
 * x509 authenticator then fails the request with 401, anonymous or not).
 */
export const CLIENT_CERT_INVALID_HEADER = "x-kubeop-fake-client-cert-invalid";

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

/**
 * The verified client certificate's subject, in the internal headers (only on HTTPS, only when it chains); a
 * certificate that does not chain is flagged instead.
 */
function clientCertHeaders(req: IncomingMessage): [string, string][] {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) {
    const presented = Object.keys(socket.getPeerCertificate?.() ?? {}).length > 0;
    return presented ? [[CLIENT_CERT_INVALID_HEADER, "1"]] : [];
  }
  const subject = socket.getPeerCertificate()?.subject;
  const orgs: unknown = subject?.O;
  const list = Array.isArray(orgs) ? orgs : orgs === undefined ? [] : [orgs];
  return [
    [CLIENT_CERT_HEADER, String(subject?.CN ?? "")],
    [CLIENT_CERT_GROUPS_HEADER, list.map((o) => encodeURIComponent(String(o))).join(",")],
  ];
}

/** Starts an HTTP or HTTPS listener on 127.0.0.1. */
export async function serveNodeHttp(opts: NodeHttpOptions): Promise<HttpListener> {
  // Bodies are streamed to the router, which bounds them; one it leaves unread closes the connection after the answer.
  const answer = nodeFetchBridge(opts.handler, {
    scheme: opts.tls ? "https" : "http",
    host: "127.0.0.1",
    body: "stream",
    // Nobody but this listener may set the client-certificate headers.
    dropHeaders: [CLIENT_CERT_HEADER, CLIENT_CERT_GROUPS_HEADER, CLIENT_CERT_INVALID_HEADER],
    extraHeaders: opts.tls ? clientCertHeaders : undefined,
  });
  const onRequest = (req: IncomingMessage, res: ServerResponse) => void answer(req, res);
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
