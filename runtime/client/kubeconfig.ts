/**
 * Finds and reads the cluster to talk to: `--kubeconfig` flag → `$KUBECONFIG` (first file) → `~/.kube/config` →
 * in-cluster service account. The result is a flat {@link ClusterConfig} (PEM strings, token or token file, exec
 * plugin) that {@link KubeClient} turns into one HTTP client. Parsing uses the `yaml` package only.
 * @module
 */

import YAML from "yaml";

/** An exec credential plugin (kubeconfig `users[].user.exec`). */
export interface ExecConfig {
  /** Program to run (resolved against the kubeconfig directory when it contains a slash). */
  command: string;
  /** Arguments. */
  args?: string[];
  /** Extra environment variables. */
  env?: { name: string; value: string }[];
  /** `client.authentication.k8s.io/v1` (default) or `v1beta1`. */
  apiVersion?: string;
  /** Resolved against the kubeconfig's directory when relative and containing a slash. */
  cwd?: string;
}

/** Everything needed to reach and authenticate to one API server. */
export interface ClusterConfig {
  /** Base URL, e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** Cluster CA bundle (PEM). */
  caPEM?: string;
  /** Client certificate (PEM). */
  certPEM?: string;
  /** Client private key (PEM). */
  keyPEM?: string;
  /** Static bearer token. */
  token?: string;
  /** Bearer token file, re-read when it changes (in-cluster tokens rotate). */
  tokenFile?: string;
  /** Exec credential plugin. */
  exec?: ExecConfig;
  /** `insecure-skip-tls-verify` of the cluster entry: the server's certificate is not verified (a warning is logged). */
  insecureSkipTLSVerify?: boolean;
  /** The context's namespace (or the service account's namespace in-cluster). */
  namespace?: string;
  /** `tls-server-name` from the cluster entry: the name the server's certificate is verified against. */
  tlsServerName?: string;
  /** The cluster entry's name (for messages). */
  clusterName?: string;
  /** The kubeconfig file it came from (for messages). */
  source?: string;
  /** The context it came from (for messages: `kubeop run` names it at start). */
  contextName?: string;
  /** The context's user entry name (for messages; never its credentials). */
  userName?: string;
  /** True when it came from the pod's service account (no kubeconfig). */
  inCluster?: boolean;
}

/** Where to look; both optional. */
export interface LoadClusterConfigOptions {
  /** Explicit kubeconfig path (`--kubeconfig`). */
  kubeconfig?: string;
  /** Context name (`--context`); default the file's current-context. */
  context?: string;
  /** Environment lookup, for tests (default Deno.env.get). */
  env?: (name: string) => string | undefined;
  /** Service-account directory, for tests (default /var/run/secrets/kubernetes.io/serviceaccount). */
  serviceAccountDir?: string;
}

/**
 * Raised when no configuration can be found (`reason` "none") or the chosen one is unusable ("invalid": a file that
 * cannot be read or parsed, a context that does not exist, a field with a wrong value). The CLI maps "invalid" to a
 * usage error (exit 2).
 */
export class KubeconfigError extends Error {
  /** "none": no kubeconfig and not in a pod; "invalid": the chosen configuration is unusable. */
  readonly reason: "none" | "invalid";
  /** Creates the error. */
  constructor(message: string, reason: "none" | "invalid" = "invalid") {
    super(message);
    this.name = "KubeconfigError";
    this.reason = reason;
  }
}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Loads the cluster configuration following kubectl's precedence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadClusterConfig } from "./kubeconfig.ts";
 * const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
 * await Deno.writeTextFile(
 *   kubeconfig,
 *   `apiVersion: v1
 * kind: Config
 * clusters: [{ name: kind, cluster: { server: "https://127.0.0.1:6443" } }]
 * users: [{ name: me, user: { token: example-token } }]
 * contexts: [{ name: kind-kind, context: { cluster: kind, user: me, namespace: apps } }]
 * current-context: kind-kind
 * `,
 * );
 * // Without `kubeconfig`: $KUBECONFIG, then ~/.kube/config, then the Pod's service account.
 * const config = await loadClusterConfig({ kubeconfig, context: "kind-kind" });
 * assert.equal(config.server, "https://127.0.0.1:6443");
 * assert.equal(config.namespace, "apps");
 * await Deno.remove(kubeconfig);
 * ```
 */
export async function loadClusterConfig(opts: LoadClusterConfigOptions = {}): Promise<ClusterConfig> {
  const env = opts.env ?? ((name: string) => Deno.env.get(name));
  if (opts.kubeconfig) return await loadKubeconfigFile(opts.kubeconfig, opts.context);
  const fromEnv = env("KUBECONFIG");
  if (fromEnv) {
    const first = fromEnv.split(":").find((p) => p.length > 0);
    if (first) return await loadKubeconfigFile(first, opts.context);
  }
  const home = env("HOME");
  if (home) {
    const path = `${home}/.kube/config`;
    if (await exists(path)) return await loadKubeconfigFile(path, opts.context);
  }
  const inCluster = await loadInClusterConfig(env, opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  if (inCluster) return inCluster;
  throw new KubeconfigError(
    "no cluster configuration: pass --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run in a pod",
    "none",
  );
}

/** Reads one kubeconfig file and resolves the given (or current) context. */
export async function loadKubeconfigFile(path: string, context?: string): Promise<ClusterConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    throw new KubeconfigError(`kubeconfig ${path}: ${(err as Error).message}`);
  }
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) || "/" : ".";
  return await parseKubeconfig(text, { context, baseDir: dir, source: path });
}

// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

function named(list: unknown, name: string, what: string, source: string, from: string): Doc {
  const entries: Doc[] = Array.isArray(list) ? list : [];
  const entry = entries.find((e: Doc) => e?.name === name);
  if (!entry) {
    const known = entries.map((e) => e?.name).filter((n) => typeof n === "string");
    throw new KubeconfigError(
      `kubeconfig ${source}: ${what} "${name}" (${from}) not found; ${what}s: ` +
        (known.length ? known.map((n) => `"${n}"`).join(", ") : "none"),
    );
  }
  return entry;
}

/** Parses kubeconfig YAML text; relative file paths resolve against `baseDir`. */
export async function parseKubeconfig(
  text: string,
  opts: { context?: string; baseDir?: string; source?: string } = {},
): Promise<ClusterConfig> {
  const source = opts.source ?? "(inline)";
  const baseDir = opts.baseDir ?? ".";
  let doc: Doc;
  try {
    doc = YAML.parse(text, { logLevel: "error" }) ?? {}; // no YAMLWarning on stderr: errors are ours to report
  } catch (err) {
    // The parser's message continues with a code frame; the first line names the line and column.
    throw new KubeconfigError(`kubeconfig ${source}: invalid YAML: ${(err as Error).message.split("\n")[0]}`);
  }
  const contextName = opts.context ?? doc["current-context"];
  if (!contextName) throw new KubeconfigError(`kubeconfig ${source}: no current-context and no --context`);
  const ctxFrom = opts.context ? "--context" : "current-context";
  const ctx = named(doc.contexts, contextName, "context", source, ctxFrom).context ?? {};
  const cluster = named(doc.clusters, ctx.cluster, "cluster", source, `context "${contextName}"`).cluster ?? {};
  const user = ctx.user ? named(doc.users, ctx.user, "user", source, `context "${contextName}"`).user ?? {} : {};
  const resolve = (p: string) => (p.startsWith("/") ? p : `${baseDir}/${p}`);
  const fail = (message: string) => new KubeconfigError(`kubeconfig ${source}: ${message}`);
  /** A string field, or undefined when absent; anything else is an error naming the field. */
  const stringField = (value: unknown, field: string): string | undefined => {
    if (value === undefined || value === null || value === "") return undefined;
    if (typeof value !== "string") throw fail(`${field} must be a string, got ${JSON.stringify(value)}`);
    return value;
  };
  /** A PEM from `<field>-data` or the file `<field>` names; `entry` says where, e.g. `cluster "lab"`. */
  const pem = async (data: unknown, file: unknown, field: string, entry: string): Promise<string | undefined> => {
    const inline = stringField(data, `${entry} ${field}-data`);
    if (inline) {
      try {
        return new TextDecoder().decode(decodeBase64(inline));
      } catch {
        throw fail(`${entry} ${field}-data is not valid base64`);
      }
    }
    const path = stringField(file, `${entry} ${field}`);
    if (!path) return undefined;
    try {
      return await Deno.readTextFile(resolve(path));
    } catch (err) {
      const why = err instanceof Deno.errors.NotFound ? "no such file" : (err as Error).message;
      throw fail(`${entry} ${field}: cannot read ${resolve(path)}: ${why}`);
    }
  };
  if (!cluster.server) throw new KubeconfigError(`kubeconfig ${source}: cluster "${ctx.cluster}" has no server`);
  const config: ClusterConfig = {
    server: String(cluster.server).replace(/\/+$/, ""),
    clusterName: String(ctx.cluster),
    source,
    contextName: String(contextName),
  };
  if (ctx.user) config.userName = String(ctx.user);
  const clusterEntry = `cluster "${ctx.cluster}"`;
  const userEntry = `user "${ctx.user}"`;
  const ca = await pem(
    cluster["certificate-authority-data"],
    cluster["certificate-authority"],
    "certificate-authority",
    clusterEntry,
  );
  if (ca) config.caPEM = ca;
  const insecure = cluster["insecure-skip-tls-verify"];
  if (insecure !== undefined && insecure !== null && typeof insecure !== "boolean") {
    throw fail(`${clusterEntry} insecure-skip-tls-verify must be true or false, got ${JSON.stringify(insecure)}`);
  }
  if (insecure === true) config.insecureSkipTLSVerify = true;
  const serverName = stringField(cluster["tls-server-name"], `${clusterEntry} tls-server-name`);
  if (serverName) config.tlsServerName = serverName;
  const cert = await pem(
    user["client-certificate-data"],
    user["client-certificate"],
    "client-certificate",
    userEntry,
  );
  const key = await pem(user["client-key-data"], user["client-key"], "client-key", userEntry);
  if (!cert !== !key) {
    throw fail(
      `${userEntry} has ${cert ? "client-certificate but no client-key" : "client-key but no client-certificate"}`,
    );
  }
  if (cert) config.certPEM = cert;
  if (key) config.keyPEM = key;
  if (user.token) config.token = String(user.token);
  const tokenFile = stringField(user.tokenFile, "tokenFile");
  if (tokenFile) config.tokenFile = resolve(tokenFile);
  if (user.exec) {
    const exec = user.exec as Doc;
    const command = String(exec.command ?? "");
    if (!command) throw new KubeconfigError(`kubeconfig ${source}: user "${ctx.user}" exec has no command`);
    config.exec = {
      command: command.includes("/") && !command.startsWith("/") ? resolve(command) : command,
      args: Array.isArray(exec.args) ? exec.args.map(String) : undefined,
      env: Array.isArray(exec.env)
        ? exec.env.map((e: Doc) => ({ name: String(e?.name), value: String(e?.value) }))
        : undefined,
      apiVersion: exec.apiVersion,
      cwd: baseDir,
    };
  }
  if (user.username && user.password && !config.token) {
    throw new KubeconfigError(`kubeconfig ${source}: basic auth (username/password) is not supported`);
  }
  if (ctx.namespace) config.namespace = String(ctx.namespace);
  return config;
}

async function loadInClusterConfig(
  env: (name: string) => string | undefined,
  dir: string,
): Promise<ClusterConfig | undefined> {
  const host = env("KUBERNETES_SERVICE_HOST");
  const port = env("KUBERNETES_SERVICE_PORT");
  if (!host || !port) return undefined;
  const tokenFile = `${dir}/token`;
  if (!(await exists(tokenFile))) return undefined;
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const config: ClusterConfig = { server, tokenFile, inCluster: true };
  try {
    config.caPEM = await Deno.readTextFile(`${dir}/ca.crt`);
  } catch { /* no CA: system roots */ }
  try {
    config.namespace = (await Deno.readTextFile(`${dir}/namespace`)).trim();
  } catch { /* optional */ }
  return config;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

function decodeBase64(data: string): Uint8Array {
  const bin = atob(data.replace(/\s+/g, ""));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
