/**
 * Runs `kubeop` as a Pod would: no kubeconfig, KUBERNETES_SERVICE_HOST/PORT set, and the ServiceAccount's token, CA
 * and namespace files at /var/run/secrets/kubernetes.io/serviceaccount — a host directory bind-mounted there in a
 * private mount namespace (`unshare -Urm`: user + mount namespaces, so no root is needed where unprivileged user
 * namespaces are allowed). Writing a new token into that directory is what the kubelet's rotation looks like.
 * @module
 */

/** Where a Pod finds its ServiceAccount credentials. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The permissions the container's binary is compiled with (deno.json task `compile:in-cluster`). */
export const IN_CLUSTER_PERMISSIONS = [
  "--allow-net",
  // ServiceAccount token/CA/namespace; --metrics-cert-dir's and --webhook-cert-dir's usual mount points (kubebuilder's);
  // the farm server's --cert-dir.
  `--allow-read=${SERVICE_ACCOUNT_DIR},/tmp/k8s-metrics-server/serving-certs,/tmp/k8s-webhook-server/serving-certs,` +
  `/var/run/kubeop`,
  "--allow-write=/var/run/kubeop",
  // runtime/client/kubeconfig.ts loadClusterConfig: the only environment the process reads.
  "--allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,KUBE_FEATURE_WatchListClient",
  // runtime/leader/leader.ts defaultIdentity: the pod name in the Lease's holderIdentity.
  "--allow-sys=hostname",
];

/** Whether `unshare -Urm` works here (Linux with user namespaces). */
export async function userNamespacesWork(): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  try {
    const out = await new Deno.Command("unshare", { args: ["-Urm", "true"], stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Writes `token`, `ca.crt` and `namespace` into `dir` (created), as the kubelet projects them. */
export async function writeServiceAccountDir(
  dir: string,
  files: { token: string; caPEM: string; namespace: string },
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await writeAtomically(`${dir}/token`, files.token);
  await writeAtomically(`${dir}/ca.crt`, files.caPEM);
  await writeAtomically(`${dir}/namespace`, files.namespace);
}

/** Replaces a file by rename, so a reader never sees it half written (the kubelet swaps a symlink). */
export async function writeAtomically(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(`${path}.tmp`, text);
  await Deno.rename(`${path}.tmp`, path);
}

/** A `kubeop` process running as in a Pod. */
export interface InClusterProcess {
  /** The process. */
  child: Deno.ChildProcess;
  /** Everything it wrote so far (stdout and stderr). */
  logs(): string;
  /** SIGTERM, then waits for the exit and the end of its output. */
  stop(): Promise<Deno.CommandStatus>;
}

/** Options of {@link spawnInCluster}. */
export interface SpawnInClusterOptions {
  /** Host directory mounted at {@link SERVICE_ACCOUNT_DIR}. */
  serviceAccountDir: string;
  /** The API server's URL (its host and port become KUBERNETES_SERVICE_HOST/PORT). */
  apiServerUrl: string;
  /** Arguments after `main.ts`, e.g. `["run", "--controllers=at"]`. */
  args: string[];
  /** Deno permission flags (default {@link IN_CLUSTER_PERMISSIONS}). */
  permissions?: string[];
}

/** Starts `deno run <permissions> main.ts <args>` in a private mount namespace with the in-cluster environment. */
export function spawnInCluster(opts: SpawnInClusterOptions): InClusterProcess {
  // A fresh tmpfs on /run (where /var/run points) so the mount point can be created without touching the host.
  const script = [
    "set -e",
    "mount -t tmpfs tmpfs /run",
    `mkdir -p ${SERVICE_ACCOUNT_DIR.replace("/var/run", "/run")}`,
    `mount --bind "$0" ${SERVICE_ACCOUNT_DIR}`,
    'exec "$@"',
  ].join("\n");
  const url = new URL(opts.apiServerUrl);
  const child = new Deno.Command("unshare", {
    args: [
      "-Urm",
      "sh",
      "-c",
      script,
      opts.serviceAccountDir,
      Deno.execPath(),
      "run",
      ...(opts.permissions ?? IN_CLUSTER_PERMISSIONS),
      new URL("../../main.ts", import.meta.url).pathname,
      ...opts.args,
    ],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: "/home/nonroot",
      NO_COLOR: "1",
      KUBERNETES_SERVICE_HOST: url.hostname,
      KUBERNETES_SERVICE_PORT: url.port || "443",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  return {
    child,
    logs: () => text,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already exited
      }
      const status = await child.status;
      await drained;
      return status;
    },
  };
}
