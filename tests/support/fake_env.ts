/**
 * Shared setup for integration tests against the fake API server: the server, its kubeconfig written to a temp
 * file (for child processes and `loadKubeconfigFile`), the parsed config and one KubeClient — and a poll helper
 * with a deadline (tests wait on conditions, never on sleeps).
 * @module
 */
import { type ClientMetrics, KubeClient } from "../../runtime/client/client.ts";
import type { Clock } from "../../runtime/clock.ts";
import { type ClusterConfig, loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { type FakeApiServer, type FakeApiServerOptions, startFakeApiServer } from "../../testing/mod.ts";

/** A running fake API server with a client for it. */
export interface FakeEnv {
  /** The fake API server (its `store` gives direct, synchronous access to objects). */
  server: FakeApiServer;
  /** Path of the server's kubeconfig file (in a temp dir removed by {@link FakeEnv.close}). */
  kubeconfigPath: string;
  /** The parsed kubeconfig, for more clients. */
  config: ClusterConfig;
  /** A client for the server. */
  client: KubeClient;
  /** Closes the client, stops the server and removes the temp dir. */
  close(): Promise<void>;
}

/** Options of {@link startFakeEnv}. */
export interface FakeEnvOptions {
  /** Time source of both the server and the client. */
  clock?: Clock;
  /** Run the fake kubelet (see FakeApiServerOptions.kubelet). */
  kubelet?: FakeApiServerOptions["kubelet"];
  /** Registry the client reports its requests to. */
  metrics?: ClientMetrics;
}

/** Starts a fake API server, writes its kubeconfig to a temp file and connects a KubeClient through that file. */
export async function startFakeEnv(opts: FakeEnvOptions = {}): Promise<FakeEnv> {
  // Plain HTTP, where kubectl drops a kubeconfig's token: tests that drive it here opt in to the admin convenience.
  const server = await startFakeApiServer({ clock: opts.clock, kubelet: opts.kubelet, anonymousAdmin: true });
  const dir = await Deno.makeTempDir({ prefix: "kubeop-test-" });
  const kubeconfigPath = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfigPath);
  const config = await loadKubeconfigFile(kubeconfigPath);
  const client = new KubeClient({ config, clock: opts.clock, metrics: opts.metrics });
  return {
    server,
    kubeconfigPath,
    config,
    client,
    async close() {
      client.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A Deno program running as a child process, its stderr collected as it arrives. */
export interface DenoChild {
  /** The process (send signals, await `status`). */
  child: Deno.ChildProcess;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** Resolves once the child's stderr has ended. */
  drained: Promise<void>;
  /** Test cleanup: SIGKILL the child if it still runs, then wait for its exit and the end of its stderr. */
  killAndReap(): Promise<void>;
}

/**
 * Runs `deno run --allow-all <script> ...args` with HOME and KUBECONFIG neutralised (so only an explicit
 * `--kubeconfig` path reaches the fake server); stdout is discarded, stderr collected.
 */
export function spawnDeno(script: string, args: string[]): DenoChild {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", script, ...args],
    stdout: "null",
    stderr: "piped",
    env: { HOME: "/nonexistent", KUBECONFIG: "" },
  }).spawn();
  let text = "";
  const drained = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) text += decoder.decode(chunk, { stream: true });
  })();
  return {
    child,
    stderr: () => text,
    drained,
    async killAndReap() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
      await child.status;
      await drained;
    },
  };
}
