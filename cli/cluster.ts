/**
 * The cluster connection of `run` and `apiserver` as the CLI sees it: a kubeconfig that cannot be read or parsed, or
 * names a context that does not exist, is a usage error (exit 2, the kubeconfig loader's message names the file and
 * the field), and so is a proxy variable (`HTTPS_PROXY`, …) for its server that does not parse; no configuration at
 * all stays a runtime failure (exit 1).
 * @module
 */
import { type ClusterConfig, KubeconfigError, loadClusterConfig } from "../runtime/client/kubeconfig.ts";
import { proxyFor } from "../runtime/http/proxy.ts";
import { UsageError } from "./flags.ts";

/**
 * Loads the cluster configuration for `kubeop <command>`; an unusable kubeconfig becomes a {@link UsageError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UsageError } from "./flags.ts";
 * import { loadCliClusterConfig } from "./cluster.ts";
 * await assert.rejects(loadCliClusterConfig("run", { kubeconfig: "/nonexistent/kubeconfig" }), UsageError);
 * ```
 */
export async function loadCliClusterConfig(
  command: string,
  opts: { kubeconfig?: string; context?: string },
): Promise<ClusterConfig> {
  let config: ClusterConfig;
  try {
    config = await loadClusterConfig(opts);
  } catch (err) {
    if (err instanceof KubeconfigError && err.reason === "invalid") {
      throw new UsageError(`kubeop ${command}: ${err.message}`);
    }
    throw err;
  }
  if (opts.context !== undefined && config.inCluster) {
    throw new UsageError(`kubeop ${command}: flag --context "${opts.context}" needs a kubeconfig, and none was found`);
  }
  try {
    proxyFor(new URL(config.server));
  } catch (err) {
    // proxy.ts names the variable and never echoes its value (a proxy URL may carry a password).
    throw new UsageError(`kubeop ${command}: ${(err as Error).message} (the proxy for ${config.server})`);
  }
  return config;
}
