/**
 * HTTPS for the fake server on node:https, because Deno.serve cannot ask for client certificates: every request is
 * turned into a fetch `Request` for the router (with the verified client-certificate subject in an internal header
 * nobody else can set) and the `Response` is streamed back chunk by chunk, so watches flush per event.
 * @module
 */
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { Readable } from "node:stream";

/** Header carrying the verified client certificate's common name into the router. */
export const CLIENT_CERT_HEADER = "x-kubeop-fake-client-cert-cn";

/** A running HTTPS listener. */
export interface HttpsListener {
  port: number;
  close(): Promise<void>;
}

/** Starts an HTTPS listener on 127.0.0.1 that asks for (but does not require) client certificates. */
export function serveHttps(opts: {
  port: number;
  certPEM: string;
  keyPEM: string;
  /** CAs client certificates must chain to. */
  clientCAs: string[];
  handler: (req: Request) => Promise<Response>;
}): Promise<HttpsListener> {
  const sockets = new Set<Socket>();
  const server = https.createServer({
    cert: opts.certPEM,
    key: opts.keyPEM,
    ca: opts.clientCAs,
    requestCert: true,
    rejectUnauthorized: false,
  }, (req, res) => {
    void bridge(req, res, opts.handler).catch(() => {
      try {
        res.destroy();
      } catch { /* gone */ }
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("secureConnection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : opts.port;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

async function bridge(req: IncomingMessage, res: ServerResponse, handler: (req: Request) => Promise<Response>) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.toLowerCase() === CLIENT_CERT_HEADER) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const socket = req.socket as TLSSocket;
  if (socket.authorized) {
    const cn = socket.getPeerCertificate()?.subject?.CN;
    headers.set(CLIENT_CERT_HEADER, String(cn ?? ""));
  }
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(`https://127.0.0.1${req.url ?? "/"}`, {
    method: req.method,
    headers,
    body: hasBody ? Readable.toWeb(req) as ReadableStream<Uint8Array> : undefined,
    signal: abort.signal,
    // @ts-ignore: required by fetch for streaming request bodies
    duplex: "half",
  });
  const response = await handler(request);
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((v, k) => outHeaders[k] = v);
  res.writeHead(response.status, outHeaders);
  res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } finally {
    res.end();
  }
}
