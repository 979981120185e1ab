/**
 * Helpers shared by the real-cluster runtime and operator tests: condition polls with deadlines, a seeded random
 * source, a TCP forwarder whose connections a test can cut (to break watch streams on a real kube-apiserver), and
 * a kubeconfig writer for other identities.
 * @module
 */

import YAML from "yaml";
import { eventually } from "../../testing/eventually.ts";

/** {@link eventually} for the real tier: until `check` returns a truthy value (15 s, every 100 ms, errors retried). */
export function poll<T>(
  what: string,
  check: () => T | Promise<T>,
  opts: { deadlineMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  return eventually(what, async () => (await check()) || undefined, {
    timeoutMs: opts.deadlineMs ?? 15_000,
    intervalMs: opts.intervalMs ?? 100,
    retryErrors: true,
  }) as Promise<NonNullable<T>>;
}

/** A deterministic uniform [0, 1) source for reproducible random workloads (runtime/random.ts). */
export { seededRandom } from "../../runtime/random.ts";

/** A TCP forwarder on 127.0.0.1:0 to `target`; {@link TcpProxy.cutAll} drops every open connection. */
export interface TcpProxy {
  /** The forwarder's port. */
  port: number;
  /** Connections accepted so far. */
  accepted(): number;
  /** Closes every open connection (both sides) without stopping the listener. */
  cutAll(): number;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** Starts a {@link TcpProxy} forwarding to `hostname:port` (TLS passes through untouched). */
export function startTcpProxy(target: { hostname: string; port: number }): TcpProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<{ close(): void; done: Promise<void> }>();
  let accepted = 0;
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable, { preventClose: false });
    } catch { /* cut or peer closed */ }
  };
  const serving = (async () => {
    for await (const inbound of listener) {
      accepted++;
      let outbound: Deno.Conn;
      try {
        outbound = await Deno.connect(target);
      } catch {
        inbound.close();
        continue;
      }
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        for (const c of [inbound, outbound]) {
          try {
            c.close();
          } catch { /* already closed */ }
        }
      };
      const entry = {
        close,
        done: Promise.all([pipe(inbound, outbound), pipe(outbound, inbound)]).then(() => {
          close();
          open.delete(entry);
        }),
      };
      open.add(entry);
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: () => accepted,
    cutAll() {
      const n = open.size;
      for (const c of open) c.close();
      return n;
    },
    async close() {
      listener.close();
      await serving;
      for (const c of open) c.close();
      await Promise.all([...open].map((c) => c.done));
    },
  };
}

/** Rewrites an admin kubeconfig: another server URL and/or a bearer token for another identity. */
export function rewriteKubeconfig(adminYaml: string, opts: { server?: string; token?: string }): string {
  // deno-lint-ignore no-explicit-any
  const doc = YAML.parse(adminYaml) as any;
  if (opts.server) doc.clusters[0].cluster.server = opts.server;
  if (opts.token) doc.users[0].user = { token: opts.token };
  return YAML.stringify(doc);
}

/** A port that was free a moment ago on 127.0.0.1 (for a subprocess that must be told its port). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Collects a subprocess stream as text in the background (so the pipe never fills). */
export function collectText(stream: ReadableStream<Uint8Array>): { text(): string; done: Promise<void> } {
  let text = "";
  const decoder = new TextDecoder();
  const done = stream.pipeTo(
    new WritableStream({ write: (chunk) => void (text += decoder.decode(chunk, { stream: true })) }),
  ).catch(() => {});
  return { text: () => text, done };
}

/**
 * A bin directory for startRealCluster whose kube-apiserver is the real one with extra flags appended (e.g.
 * `--feature-gates=WatchList=true`); etcd and kube-controller-manager are symlinks. Returns the directory and a
 * cleanup function.
 */
export async function binDirWithApiServerFlags(
  binDir: string,
  extraFlags: string[],
): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-real-bin-" });
  for (const name of ["etcd", "kube-controller-manager"]) await Deno.symlink(`${binDir}/${name}`, `${dir}/${name}`);
  const quoted = extraFlags.map((f) => `'${f.replaceAll("'", "'\\''")}'`).join(" ");
  await Deno.writeTextFile(`${dir}/kube-apiserver`, `#!/bin/sh\nexec '${binDir}/kube-apiserver' "$@" ${quoted}\n`);
  await Deno.chmod(`${dir}/kube-apiserver`, 0o755);
  return { dir, remove: () => Deno.remove(dir, { recursive: true }) };
}
