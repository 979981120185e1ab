/**
 * Starts bench/http_unary_server.ts in its own process (so its CPU is not the client's) with a fresh CA and a serving
 * certificate for 127.0.0.1, and answers where it listens and which CA to trust. Shared by the unary-request benches.
 * @module
 */
import { createCA } from "../runtime/http/pki.ts";

/** A running unary server. */
export interface UnaryServerProcess {
  /** `https://127.0.0.1:<port>`. */
  base: string;
  /** The CA that signed its certificate. */
  caPEM: string;
  /** Kills the process and waits for it. */
  stop(): Promise<void>;
}

/**
 * Spawns the server and waits for its port.
 *
 * @example
 * ```ts ignore
 * const server = await startUnaryServerProcess();
 * try { await fetch(`${server.base}/`, { client: Deno.createHttpClient({ caCerts: [server.caPEM] }) }); }
 * finally { await server.stop(); }
 * ```
 */
export async function startUnaryServerProcess(): Promise<UnaryServerProcess> {
  const ca = await createCA({ commonName: "bench-ca" });
  const leaf = await ca.issue({ commonName: "127.0.0.1", hosts: ["127.0.0.1"], usage: "server" });
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", new URL("./http_unary_server.ts", import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = server.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(leaf)));
  await writer.close();
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const port = Number((await reader.read()).value?.trim());
  reader.releaseLock();
  return {
    base: `https://127.0.0.1:${port}`,
    caPEM: ca.certPEM,
    stop: async () => {
      server.kill();
      await server.status;
    },
  };
}
