/**
 * Helpers shared by the real-cluster runtime and operator tests: condition polls with deadlines, a seeded random
 * source, a TCP forwarder whose connections a test can cut (to break watch streams on a real kube-apiserver), and
 * a kubeconfig writer for other identities, and the runtime tests' cluster harness and ConfigMap/informer helpers.
 * @module
 */

import YAML from "yaml";
import type { Informer, InformerMetrics } from "../../runtime/cache/cache.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { isNotFound } from "../../runtime/client/errors.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type RealCluster, startRealCluster } from "../support/real_cluster.ts";
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

/** A port free on 127.0.0.1 now, below the ephemeral range (for a subprocess that must be told its port). */
export { freePort } from "../../testing/envtest/free_port.ts";

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

/** A logger that drops everything (the informers' own logs are noise here). */
export const quietLogger = { debug() {}, info() {}, warn() {} };

/** Informer metrics that remember every watch restart reason and relist cause. */
export class RecordingMetrics implements InformerMetrics {
  restarts: string[] = [];
  relists: string[] = [];
  watchRestarts = { inc: (l: { reason: string }) => void this.restarts.push(l.reason) };
  watchRelists = { inc: (l: { cause: string }) => void this.relists.push(l.cause) };
}

/** A ConfigMap `ns/name` with `data.value`. */
export function configMap(ns: string, name: string, value: string, labels?: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, labels }, data: { value } };
}

/** Creates the Namespace `name`. */
export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(CoreTypes.Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

/** key → resourceVersion of every ConfigMap in `ns`, from a fresh list. */
export async function freshList(client: KubeClient, ns: string): Promise<Map<string, string>> {
  const list = await client.listAll(CoreTypes.ConfigMap, { namespace: ns });
  return new Map(list.items.map((o) => [`${ns}/${o.metadata.name}`, o.metadata.resourceVersion ?? ""]));
}

/** key → resourceVersion of every object in the informer's store. */
export function cacheView(informer: Informer): Map<string, string> {
  return new Map(
    informer.store.list().map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion ?? ""]),
  );
}

/** Whether two key → resourceVersion maps are equal. */
export function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Runs `informer` until the returned stop function is called. */
export function run(informer: { start(signal: AbortSignal): Promise<void> }): () => Promise<void> {
  const ctrl = new AbortController();
  const running = informer.start(ctrl.signal);
  return async () => {
    ctrl.abort();
    await running;
  };
}

/**
 * Starts a real cluster from `binDir` and a client on it, runs `steps`, then deletes `namespaces` (ignoring NotFound),
 * closes the client and stops the cluster.
 */
export async function withRealCluster(
  opts: { binDir: string; namespaces: string[] },
  steps: (env: { cluster: RealCluster; client: KubeClient }) => Promise<void>,
): Promise<void> {
  const cluster: RealCluster = await startRealCluster({ binDir: opts.binDir });
  const client = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath) });
  try {
    await steps({ cluster, client });
  } finally {
    for (const ns of opts.namespaces) {
      await client.delete(CoreTypes.Namespace, ns).catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    }
    client.close();
    await cluster.stop();
  }
}
