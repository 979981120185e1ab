/**
 * Raw HTTP/1.1 over TCP or TLS for hostile-client tests: send exactly the bytes a test chooses (a header that never
 * ends, a body shorter than its Content-Length), then read what the server answers and whether it closed the
 * connection. Every read runs under a generous deadline so a hung server fails the test instead of hanging it.
 * @module
 */

/** How to reach the server. */
export interface RawTarget {
  /** Port on 127.0.0.1. */
  port: number;
  /** Trust this CA and speak TLS; plain TCP when absent. */
  caPEM?: string;
  /** Client certificate for TLS. */
  cert?: { certPEM: string; keyPEM: string };
}

/** What came back. */
export interface RawAnswer {
  /** Everything the server sent before it closed (or before the deadline). */
  text: string;
  /** The status code of the first response, 0 when none. */
  status: number;
  /** True when the server closed the connection (EOF or reset) before the deadline. */
  closedByServer: boolean;
}

/** Opens a connection to 127.0.0.1. */
export function connectRaw(target: RawTarget): Promise<Deno.Conn> {
  if (!target.caPEM) return Deno.connect({ hostname: "127.0.0.1", port: target.port });
  return Deno.connectTls({
    hostname: "127.0.0.1",
    port: target.port,
    caCerts: [target.caPEM],
    ...(target.cert ? { cert: target.cert.certPEM, key: target.cert.keyPEM } : {}),
  });
}

/**
 * Reads until the server closes the connection, `enough` says the text suffices, or `deadlineMs` passes (then the
 * client closes and `closedByServer` is false).
 */
export async function readUntilClosed(
  conn: Deno.Conn,
  opts: { deadlineMs?: number; enough?: (text: string) => boolean } = {},
): Promise<RawAnswer> {
  let text = "";
  let closedByServer = false;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn.close();
    } catch { /* already closed */ }
  }, opts.deadlineMs ?? 15_000);
  const buf = new Uint8Array(64 * 1024);
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) {
        closedByServer = !timedOut;
        break;
      }
      text += decoder.decode(buf.subarray(0, n), { stream: true });
      if (opts.enough?.(text)) break;
    }
  } catch (err) {
    // A reset by the server counts as closed by it; our own close at the deadline does not.
    closedByServer = !timedOut && !(err instanceof Deno.errors.BadResource);
  } finally {
    clearTimeout(timer);
  }
  if (!timedOut) {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
  const status = Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
  return { text, status, closedByServer };
}

/** Writes a string; a write the server refused (it closed first) is not an error here. */
export async function writeRaw(conn: Deno.Conn, text: string | Uint8Array): Promise<boolean> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  try {
    let off = 0;
    while (off < bytes.length) off += await conn.write(bytes.subarray(off));
    return true;
  } catch {
    return false;
  }
}
