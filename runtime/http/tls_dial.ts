/**
 * The TLS dial of kubeop's own HTTP/1.1 connections (http1_connection.ts), as a kubeconfig asks for it: the cluster's
 * CA only (the default roots without one), a client certificate, `tls-server-name` (the name the certificate is
 * checked against, and SNI) and `insecure-skip-tls-verify`. It dials with node:tls, which honours all four and, like
 * Go's crypto/tls, accepts a server certificate that is itself the trusted CA (`openssl req -x509` makes such
 * certificates; Deno.connectTls, on rustls, refuses them with CaUsedAsEndEntity). Measured no slower than
 * Deno.connectTls for the pool's request loop (bench/tls_dial_bench.ts). A certificate that fails verification
 * becomes a {@link TlsVerifyError} naming the cluster and the kubeconfig field that would make it pass.
 * @module
 */

import { isIP } from "node:net";
import nodeTls from "node:tls";
import type { TLSSocket } from "node:tls";

/** TLS material for an https URL. */
export interface TlsOptions {
  /** Trusted CA certificates (PEM); when given, the only ones trusted (kubectl's behaviour). */
  caCerts?: string[];
  /** Client certificate (PEM). */
  cert?: string;
  /** Client private key (PEM). */
  key?: string;
  /** The kubeconfig's `tls-server-name`: the name the server's certificate is verified against (and sent as SNI). */
  serverName?: string;
  /** The kubeconfig's `insecure-skip-tls-verify`: the server's certificate is not verified at all. */
  insecureSkipVerify?: boolean;
  /** Names the cluster in errors, e.g. `cluster "lab" of kubeconfig /home/me/.kube/config`. */
  cluster?: string;
  /**
   * The TLS implementation: `node` (node:tls), `deno` (Deno.connectTls, which honours neither field above), or by
   * default the choice the module doc describes.
   */
  engine?: "node" | "deno";
}

/** The socket operations kubeop's HTTP/1.1 code needs: a `Deno.Conn` satisfies it, and so does a node:tls socket. */
export interface ByteConn {
  /** Reads into `buf`; resolves with the byte count, or null at end of stream. */
  read(buf: Uint8Array): Promise<number | null>;
  /** Writes (some of) `bytes`; resolves with the count written. */
  write(bytes: Uint8Array): Promise<number>;
  /** Closes the socket; a read in flight rejects. */
  close(): void;
}

/** A server certificate that failed verification, with the kubeconfig field that would make it pass. */
export class TlsVerifyError extends Error {
  /** node:tls's code, e.g. `DEPTH_ZERO_SELF_SIGNED_CERT` or `ERR_TLS_CERT_ALTNAME_INVALID`. */
  readonly code: string;
  /** Creates the error. */
  constructor(message: string, code: string, cause?: unknown) {
    super(message, { cause });
    this.name = "TlsVerifyError";
    this.code = code;
  }
}

/** node:tls codes of a chain no trusted CA signs. */
const UNTRUSTED = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
]);

/**
 * The {@link TlsVerifyError} for a failed handshake with `host`, or undefined when `err` is not a verification
 * failure. The message names the cluster and the field to set; it holds no key material.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { explainTlsError } from "./tls_dial.ts";
 * const err = Object.assign(new Error("self-signed certificate"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
 * const out = explainTlsError(err, "10.0.0.1:6443", { cluster: 'cluster "lab"' });
 * assert.match(out!.message, /cluster "lab".*certificate-authority-data.*insecure-skip-tls-verify/);
 * assert.equal(explainTlsError(new Error("ECONNREFUSED"), "10.0.0.1:6443", {}), undefined);
 * ```
 */
export function explainTlsError(err: unknown, host: string, tls: TlsOptions): TlsVerifyError | undefined {
  const code = String((err as { code?: unknown })?.code ?? "");
  const reason = err instanceof Error ? err.message : String(err);
  const who = tls.cluster ?? "the cluster";
  const head = `TLS: the certificate of ${host} failed verification (${reason}, ${code})`;
  if (UNTRUSTED.has(code)) {
    const trusted = tls.caCerts?.length ? "the certificate-authority(-data) of" : "no certificate-authority(-data) in";
    return new TlsVerifyError(
      `${head}: it is not signed by ${trusted} ${who}; set certificate-authority-data there to the CA that ` +
        `signed it, or insecure-skip-tls-verify: true (no verification at all: lab clusters only)`,
      code,
      err,
    );
  }
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    const checked = tls.serverName ? `tls-server-name ${tls.serverName}` : `the server URL's host`;
    return new TlsVerifyError(
      `${head}: it does not name ${checked}; set tls-server-name on ${who} to a name the certificate holds`,
      code,
      err,
    );
  }
  if (code.startsWith("CERT_") || code.startsWith("ERR_TLS_CERT")) return new TlsVerifyError(`${head}`, code, err);
  return undefined;
}

/**
 * Dials `hostname:port` with TLS as `tls` says (ALPN http/1.1, TCP no-delay and keep-alive); resolves once the
 * handshake (and verification, unless skipped) is done.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { dialTls } from "./tls_dial.ts";
 * const cluster = await startFakeApiServer({ tls: true }); // its certificate names localhost and 127.0.0.1
 * const port = Number(new URL(cluster.url).port);
 * // Reached as 127.0.0.1, checked against the name `tls-server-name` gives (and sent as SNI):
 * const conn = await dialTls("127.0.0.1", port, { caCerts: [cluster.caPEM!], serverName: "localhost" });
 * await conn.write(new TextEncoder().encode("GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n"));
 * const buf = new Uint8Array(1024);
 * const n = await conn.read(buf);
 * assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 200/);
 * conn.close();
 * await cluster.stop();
 * ```
 */
export async function dialTls(hostname: string, port: number, tls: TlsOptions = {}): Promise<ByteConn> {
  if (tls.engine === "node" || (tls.engine === undefined && needsNodeTls(tls))) {
    return await dialNode(hostname, port, tls);
  }
  try {
    return await dialDeno(hostname, port, tls);
  } catch (err) {
    // rustls refused the certificate: ask node:tls, whose verification is Go's (a CA as its own end entity passes).
    if (tls.engine === "deno" || !/certificate/i.test((err as Error)?.message ?? "")) throw err;
    const conn = await dialNode(hostname, port, tls);
    nodeVerified.add(tls);
    return conn;
  }
}

/** Options whose server certificate node:tls accepted after Deno.connectTls refused it. */
const nodeVerified = new WeakSet<TlsOptions>();

/**
 * Whether `tls` dials with node:tls by default: `tls-server-name` or `insecure-skip-tls-verify` is set, or node:tls
 * accepted a certificate Deno.connectTls refused with these very options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { needsNodeTls } from "./tls_dial.ts";
 * assert.equal(needsNodeTls({ caCerts: ["CA"] }), false);
 * assert.equal(needsNodeTls({ serverName: "kubernetes.internal" }), true);
 * assert.equal(needsNodeTls({ insecureSkipVerify: true }), true);
 * ```
 */
export function needsNodeTls(tls: TlsOptions): boolean {
  return tls.insecureSkipVerify === true || tls.serverName !== undefined || nodeVerified.has(tls);
}

function dialNode(hostname: string, port: number, tls: TlsOptions): Promise<ByteConn> {
  const host = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  const servername = tls.serverName ?? (isIP(hostname) ? undefined : hostname);
  return new Promise((resolve, reject) => {
    const socket = nodeTls.connect({
      host: hostname,
      port,
      ca: tls.caCerts,
      cert: tls.cert,
      key: tls.key,
      servername,
      rejectUnauthorized: !tls.insecureSkipVerify,
      ALPNProtocols: ["http/1.1"],
    });
    const onError = (err: Error) => {
      socket.destroy();
      reject(explainTlsError(err, host, tls) ?? err);
    };
    socket.once("error", onError);
    socket.once("secureConnect", () => {
      socket.off("error", onError);
      try {
        socket.setNoDelay(true);
        socket.setKeepAlive(true);
      } catch { /* not supported here */ }
      resolve(new NodeTlsConn(socket));
    });
  });
}

async function dialDeno(hostname: string, port: number, tls: TlsOptions): Promise<ByteConn> {
  const socket = await Deno.connectTls({
    hostname,
    port,
    caCerts: tls.caCerts,
    cert: tls.cert,
    key: tls.key,
    alpnProtocols: ["http/1.1"],
  } as Deno.ConnectTlsOptions);
  try {
    await socket.handshake(); // verification failures surface here, not at the first write
  } catch (err) {
    socket.close();
    throw err;
  }
  try {
    if ("setKeepAlive" in socket && typeof socket.setKeepAlive === "function") socket.setKeepAlive(true);
    if ("setNoDelay" in socket && typeof socket.setNoDelay === "function") socket.setNoDelay(true);
  } catch { /* not supported on this transport */ }
  return socket;
}

/** Bytes received ahead of the reader before the socket is paused. */
const QUEUE_HIGH_BYTES = 256 * 1024;

/**
 * A node:tls socket as a {@link ByteConn}: the socket stays in paused mode and each read takes what it has buffered
 * (`socket.read()`), so a reader that stops reading stops the flow (backpressure) as a Deno.Conn does.
 */
class NodeTlsConn implements ByteConn {
  readonly #socket: TLSSocket;
  #left: Uint8Array | undefined;
  /** Chunks received and not yet read; the socket is paused while they exceed {@link QUEUE_HIGH_BYTES}. */
  readonly #queue: Uint8Array[] = [];
  #queued = 0;
  #ended = false;
  #closed = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;

  /** Resumes the read waiting for data, if any. */
  readonly #wakeUp = (): void => {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  };

  constructor(socket: TLSSocket) {
    this.#socket = socket;
    const wake = this.#wakeUp;
    socket.on("data", (chunk: Uint8Array) => {
      this.#queue.push(chunk);
      this.#queued += chunk.length;
      if (this.#queued > QUEUE_HIGH_BYTES) socket.pause();
      wake();
    });
    socket.on("end", () => {
      this.#ended = true;
      wake();
    });
    socket.on("close", () => {
      this.#ended = true;
      wake();
    });
    socket.on("error", (err: Error) => {
      this.#error ??= err;
      wake();
    });
  }

  async read(buf: Uint8Array): Promise<number | null> {
    for (;;) {
      if (this.#closed) throw new Error("connection closed");
      const chunk = this.#left ?? this.#shift();
      if (chunk && chunk.length > 0) {
        const n = Math.min(chunk.length, buf.length);
        buf.set(n === chunk.length ? chunk : chunk.subarray(0, n));
        this.#left = n < chunk.length ? chunk.subarray(n) : undefined;
        return n;
      }
      this.#left = undefined;
      if (this.#error) throw this.#error;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
  }

  #shift(): Uint8Array | undefined {
    const chunk = this.#queue.shift();
    if (!chunk) return undefined;
    this.#queued -= chunk.length;
    if (this.#queued <= QUEUE_HIGH_BYTES && this.#socket.isPaused()) this.#socket.resume();
    return chunk;
  }

  write(bytes: Uint8Array): Promise<number> {
    if (this.#closed) return Promise.reject(new Error("connection closed"));
    if (this.#error) return Promise.reject(this.#error);
    if (this.#socket.write(bytes)) return Promise.resolve(bytes.length);
    return new Promise((resolve, reject) => {
      const done = () => {
        this.#socket.off("drain", done);
        this.#socket.off("close", done);
        if (this.#error || this.#closed) reject(this.#error ?? new Error("connection closed"));
        else resolve(bytes.length);
      };
      this.#socket.on("drain", done);
      this.#socket.on("close", done);
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.destroy();
    this.#wakeUp();
  }
}
