/**
 * An envtest-style real control plane for tests that want a real server: etcd, kube-apiserver and
 * kube-controller-manager (garbage collector, namespace, serviceaccount, clusterrole-aggregation and the storage
 * protection controllers: a deleted claim, volume or VolumeAttributesClass goes once unused), all on 127.0.0.1 with
 * throwaway certificates (made with `openssl`, which must be on PATH). The apiserver runs with a static admin token
 * (the fake's admin identity: `kubeop-dev` in system:masters), RBAC, ServiceAccount token signing, and the
 * front-proxy (requestheader) options an aggregated API server needs.
 *
 * The binaries come from `$KUBEOP_K8S_BIN` (a directory holding etcd, kube-apiserver, kube-controller-manager and
 * kubectl), else `~/.cache/kubeop/k8s-bin/<$KUBEOP_K8S_VERSION or DEFAULT_K8S_VERSION>`, where the repository's
 * `scripts/k8s-bin.sh` builds them from source. No kubelet runs: Pods are stored but never scheduled.
 * @module
 */

import { eventually } from "../eventually.ts";
import { ADMIN_USER } from "../apiserver/authn.ts";
import { freePort } from "./free_port.ts";

/** A running real control plane. */
export interface RealControlPlane {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Admin kubeconfig YAML (static bearer token, cluster CA). */
  kubeconfig: string;
  /** Path of the kubeconfig file. */
  kubeconfigPath: string;
  /** Directory holding the certificates (front-proxy CA/client cert, serving CA). */
  dir: string;
  /**
   * Starts one more kube-apiserver over the same etcd (same certificates and admin token) with `args` added after
   * the plane's own (a later `--feature-gates` wins), waits for its /readyz and returns its kubeconfig path. It runs
   * until {@link RealControlPlane.stop}. For behaviour that differs by flag (a feature gate on and off) without a
   * second cluster.
   */
  startExtraApiServer(args: string[]): Promise<string>;
  /**
   * Kills (SIGKILL) kube-apiserver and etcd, optionally wipes etcd's data directory (the cluster loses its state),
   * starts both again on the same ports and waits for /readyz. kube-controller-manager keeps running and reconnects,
   * except after a wipe: its caches then hold revisions the new store never had, so it is restarted too (as a
   * cluster restored from nothing restarts its whole control plane).
   * For fault tests: a crash of the control plane as clients see it (connections reset, then refused).
   */
  restart(opts?: RestartOptions): Promise<void>;
  /** Stops every process and removes the directory. */
  stop(): Promise<void>;
}

/** Options of {@link RealControlPlane.restart}. */
export interface RestartOptions {
  /** Start etcd from an empty data directory: the cluster loses every object. */
  wipeEtcd?: boolean;
  /**
   * With `wipeEtcd`, advance the new store's revision past the old one (read once kube-apiserver is dead, so past
   * every revision a client saw) and compact it there before kube-apiserver starts (default true) — what `etcdutl snapshot restore --bump-revision --mark-compacted` does and etcd's restore
   * guidance for Kubernetes asks for, so that a client resuming a watch from an old resourceVersion gets 410 and
   * relists. Without it the new revisions start at 1 and such a watch is accepted and stays silent until the new
   * store passes the old revision (client-go's reflector is as blind then as any client).
   */
  bumpRevision?: boolean;
  /** How long the control plane stays down, ms. */
  downMs?: number;
  /**
   * Runs just before the processes are killed, while kube-apiserver still serves (tests: the last writes clients
   * see before the crash).
   */
  beforeKill?: () => Promise<void>;
  /**
   * Runs once kube-apiserver and etcd are dead (etcd's data wiped, with `wipeEtcd`) and before they start again, after
   * `downMs`: every request the old processes answered came before it, every one the new ones answer after it (tests:
   * the moment the state was lost, and an outage of the tests' own length).
   */
  whileDown?: () => Promise<void>;
}

/** The Kubernetes release scripts/k8s-bin.sh builds by default (keep the two in step). */
export const DEFAULT_K8S_VERSION = "v1.37.2";

/**
 * The directory holding etcd, kube-apiserver, kube-controller-manager and kubectl (`$KUBEOP_K8S_BIN`, else where
 * scripts/k8s-bin.sh caches them), or undefined when any is missing — tests use it to skip themselves.
 */
export async function realControlPlaneBinDir(): Promise<string | undefined> {
  const explicit = Deno.env.get("KUBEOP_K8S_BIN");
  const version = Deno.env.get("KUBEOP_K8S_VERSION") ?? DEFAULT_K8S_VERSION;
  const dir = explicit ?? `${Deno.env.get("HOME")}/.cache/kubeop/k8s-bin/${version}`;
  for (const name of ["etcd", "kube-apiserver", "kube-controller-manager", "kubectl"]) {
    try {
      await Deno.stat(`${dir}/${name}`);
    } catch {
      return undefined;
    }
  }
  return dir;
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (out.code !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).slice(0, 2000)}`);
  }
}

async function makeCerts(dir: string): Promise<void> {
  const ssl = (...args: string[]) => run("openssl", args, dir);
  await ssl("genrsa", "-out", "sa.key", "2048");
  await ssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub");
  for (const ca of ["ca", "front-proxy-ca"]) {
    await ssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${ca}.key`,
      "-out",
      `${ca}.crt`,
      "-days",
      "2",
      "-subj",
      `/CN=${ca}`,
    );
  }
  // Serving cert for kube-apiserver on 127.0.0.1.
  await Deno.writeTextFile(`${dir}/san.cnf`, "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n");
  await ssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "apiserver.key",
    "-out",
    "apiserver.csr",
    "-subj",
    "/CN=kube-apiserver",
  );
  await ssl(
    "x509",
    "-req",
    "-in",
    "apiserver.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "apiserver.crt",
    "-days",
    "2",
    "-extfile",
    "san.cnf",
  );
  // Client cert the aggregator presents to extension API servers: X.509 v3 with clientAuth, as real clusters issue
  // (a v1 certificate from a bare `openssl x509 -req` is not accepted as verified by node:tls under Deno).
  await Deno.writeTextFile(`${dir}/client.cnf`, "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n");
  await ssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "front-proxy-client.key",
    "-out",
    "front-proxy-client.csr",
    "-subj",
    "/CN=front-proxy-client",
  );
  await ssl(
    "x509",
    "-req",
    "-in",
    "front-proxy-client.csr",
    "-CA",
    "front-proxy-ca.crt",
    "-CAkey",
    "front-proxy-ca.key",
    "-CAcreateserial",
    "-out",
    "front-proxy-client.crt",
    "-days",
    "2",
    "-extfile",
    "client.cnf",
  );
}

/** etcd's v3 JSON gateway: POST `path` with `body`. */
async function etcdCall(etcdUrl: string, path: string, body: unknown): Promise<{ header?: { revision?: string } }> {
  const res = await fetch(`${etcdUrl}${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return await res.json();
}

/** etcd's current revision. */
async function etcdRevision(etcdUrl: string): Promise<number> {
  const out = await etcdCall(etcdUrl, "/v3/kv/range", { key: btoa("/kubeop-restore/revision") });
  return Number(out.header?.revision ?? 0);
}

/**
 * Writes a key outside kube-apiserver's prefix until the store's revision reaches `target` (every put is one revision;
 * etcd commits concurrent puts together), then compacts there: the state `etcdutl snapshot restore --bump-revision
 * --mark-compacted` leaves.
 */
async function bumpEtcdRevision(etcdUrl: string, target: number): Promise<void> {
  await eventually("etcd serving after restart", () => etcdRevision(etcdUrl).then(() => true), {
    timeoutMs: 60_000,
    intervalMs: 100,
    retryErrors: true,
  });
  let revision = await etcdRevision(etcdUrl);
  const put = { key: btoa("/kubeop-restore/revision"), value: btoa("bump") };
  while (revision < target) {
    const batch = Math.min(64, target - revision);
    const outs = await Promise.all(Array.from({ length: batch }, () => etcdCall(etcdUrl, "/v3/kv/put", put)));
    revision = Math.max(revision, ...outs.map((o) => Number(o.header?.revision ?? 0)));
  }
  await etcdCall(etcdUrl, "/v3/kv/compaction", { revision: String(revision), physical: true });
}

/** Options of {@link startRealControlPlane}. */
export interface RealControlPlaneOptions {
  /** Directory of the binaries (default {@link realControlPlaneBinDir}). */
  binDir?: string;
  /** Extra kube-apiserver flags (e.g. `--audit-log-path`); relative paths resolve in the plane's directory. */
  apiserverArgs?: string[];
  /** Files written into the plane's directory before kube-apiserver starts (e.g. an audit policy). */
  files?: Record<string, string>;
}

/**
 * Starts etcd + kube-apiserver (waits for /readyz) + kube-controller-manager; throws when the binaries are missing.
 * Call `stop()` when done: it terminates the processes and removes the certificates and etcd data.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CoreTypes, KubeClient, loadKubeconfigFile } from "@kubeop/kubeop";
 * import { realControlPlaneBinDir, startRealControlPlane } from "@kubeop/kubeop/testing";
 *
 * Deno.test({
 *   name: "my controller on a real API server",
 *   ignore: !(await realControlPlaneBinDir()), // skipped where the binaries are not installed
 *   async fn() {
 *     const plane = await startRealControlPlane();
 *     const client = new KubeClient({ config: await loadKubeconfigFile(plane.kubeconfigPath) });
 *     try {
 *       assert.equal((await client.get(CoreTypes.Namespace, "default")).metadata.name, "default");
 *       // install CRDs, run a Manager with `client`, assert on objects…
 *     } finally {
 *       client.close();
 *       await plane.stop();
 *     }
 *   },
 * });
 * ```
 */
export async function startRealControlPlane(opts: RealControlPlaneOptions = {}): Promise<RealControlPlane> {
  const bin = opts.binDir ?? await realControlPlaneBinDir();
  if (!bin) {
    throw new Error(
      "real control plane binaries missing: set KUBEOP_K8S_BIN to a directory with etcd, kube-apiserver, " +
        "kube-controller-manager and kubectl (scripts/k8s-bin.sh builds them)",
    );
  }
  const dir = await Deno.makeTempDir({ prefix: "kubeop-real-" });
  await makeCerts(dir);
  for (const [name, text] of Object.entries(opts.files ?? {})) await Deno.writeTextFile(`${dir}/${name}`, text);
  const token = crypto.randomUUID();
  // The fake's admin identity, so answers that name the requester (a CSR's spec.username, a SelfSubjectReview)
  // compare equal between the two servers.
  const { username, uid } = ADMIN_USER;
  await Deno.writeTextFile(`${dir}/tokens.csv`, `${token},${username},${uid},"system:masters"\n`);
  const [etcdClient, etcdPeer, apiPort] = [freePort(), freePort(), freePort()];
  const procs = new Map<string, Deno.ChildProcess>();
  // How each process that is still meant to run ended, if it did: a wait for /readyz fails at once on an exited
  // kube-apiserver or etcd instead of polling out its deadline (issue 28: a port taken under it, a bad flag).
  const exits = new Map<string, Deno.CommandStatus>();
  const spawn = (cmd: string, args: string[], log: string, key = cmd) => {
    const file = Deno.openSync(`${dir}/${log}`, { write: true, create: true, append: true });
    const p = new Deno.Command(`${bin}/${cmd}`, { args, cwd: dir, stdout: "null", stderr: "piped" }).spawn();
    p.stderr.pipeTo(file.writable).catch(() => {});
    procs.set(key, p);
    exits.delete(key);
    p.status.then((status) => procs.get(key) === p && exits.set(key, status));
  };
  const etcdArgs = [
    `--data-dir=${dir}/etcd`,
    `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
    `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
    "--log-level=warn",
  ];
  spawn("etcd", etcdArgs, "etcd.log");
  const url = `https://127.0.0.1:${apiPort}`;
  const apiserverArgs = (port: number, extra: string[]) => [
    `--etcd-servers=http://127.0.0.1:${etcdClient}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${port}`,
    `--tls-cert-file=${dir}/apiserver.crt`,
    `--tls-private-key-file=${dir}/apiserver.key`,
    `--client-ca-file=${dir}/ca.crt`,
    `--token-auth-file=${dir}/tokens.csv`,
    "--authorization-mode=RBAC",
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${dir}/sa.pub`,
    `--service-account-signing-key-file=${dir}/sa.key`,
    "--service-cluster-ip-range=10.96.0.0/16",
    "--endpoint-reconciler-type=none",
    "--enable-aggregator-routing=true",
    `--requestheader-client-ca-file=${dir}/front-proxy-ca.crt`,
    "--requestheader-allowed-names=front-proxy-client",
    "--requestheader-username-headers=X-Remote-User",
    "--requestheader-group-headers=X-Remote-Group",
    "--requestheader-extra-headers-prefix=X-Remote-Extra-",
    `--proxy-client-cert-file=${dir}/front-proxy-client.crt`,
    `--proxy-client-key-file=${dir}/front-proxy-client.key`,
    "--v=0",
    ...(opts.apiserverArgs ?? []),
    ...extra,
  ];
  spawn("kube-apiserver", apiserverArgs(apiPort, []), "kube-apiserver.log");
  const ca = await Deno.readTextFile(`${dir}/ca.crt`);
  const kubeconfigFor = (server: string) =>
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: real",
      "  cluster:",
      `    server: ${server}`,
      `    certificate-authority-data: ${btoa(ca)}`,
      "users:",
      "- name: admin",
      "  user:",
      `    token: ${token}`,
      "contexts:",
      "- name: real",
      "  context: {cluster: real, user: admin, namespace: default}",
      "current-context: real",
      "",
    ].join("\n");
  const kubeconfig = kubeconfigFor(url);
  const kubeconfigPath = `${dir}/admin.kubeconfig`;
  await Deno.writeTextFile(kubeconfigPath, kubeconfig);
  const client = Deno.createHttpClient({ caCerts: [ca] });
  const stop = async () => {
    client.close();
    for (const p of [...procs.values()].reverse()) {
      try {
        p.kill("SIGTERM");
      } catch { /* already gone */ }
      await p.status;
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  /** Waits for `server`/readyz; fails at once, with the log's tail, when process `key` or etcd has exited. */
  const ready = async (server: string, key: string, log: string) => {
    let lastError = "";
    try {
      await eventually(`real control plane: ${key} ${server}/readyz ready`, async () => {
        for (const name of [key, "etcd"]) {
          const status = exits.get(name);
          if (status) throw new Error(`${name} exited (code ${status.code}, signal ${status.signal ?? "none"})`);
        }
        try {
          const res = await fetch(`${server}/readyz`, { client, headers: { authorization: `Bearer ${token}` } });
          await res.body?.cancel();
          lastError = `/readyz answered ${res.status}`;
          return res.ok;
        } catch (err) {
          lastError = (err as Error).message;
          return false;
        }
      }, { timeoutMs: 120_000, intervalMs: 200 });
    } catch (err) {
      const tail = await Deno.readTextFile(`${dir}/${log}`).catch(() => "");
      throw new Error(`${(err as Error).message} (last: ${lastError}); ${dir}/${log} ends:\n${tail.slice(-3000)}`);
    }
  };
  let extraServers = 0;
  const startExtraApiServer = async (args: string[]): Promise<string> => {
    const port = freePort();
    const n = ++extraServers;
    spawn("kube-apiserver", apiserverArgs(port, args), `kube-apiserver-${n}.log`, `kube-apiserver-${n}`);
    const server = `https://127.0.0.1:${port}`;
    await ready(server, `kube-apiserver-${n}`, `kube-apiserver-${n}.log`);
    const path = `${dir}/admin-${n}.kubeconfig`;
    await Deno.writeTextFile(path, kubeconfigFor(server));
    return path;
  };
  const kcmArgs = [
    `--kubeconfig=${kubeconfigPath}`,
    "--controllers=garbagecollector,namespace,serviceaccount,clusterrole-aggregation," +
    "persistentvolumeclaim-protection-controller,persistentvolume-protection-controller," +
    "volumeattributesclass-protection-controller",
    "--leader-elect=false",
    `--service-account-private-key-file=${dir}/sa.key`,
    "--use-service-account-credentials=false",
    "--bind-address=127.0.0.1",
    "--secure-port=0",
  ];
  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  const restart = async (
    { wipeEtcd = false, bumpRevision = true, downMs = 0, beforeKill, whileDown }: RestartOptions = {},
  ) => {
    await beforeKill?.();
    const kill = async (name: string) => {
      const p = procs.get(name)!;
      try {
        p.kill("SIGKILL");
      } catch { /* already gone */ }
      await p.status;
    };
    for (const name of wipeEtcd ? ["kube-controller-manager", "kube-apiserver"] : ["kube-apiserver"]) await kill(name);
    // Every revision a client has seen came through kube-apiserver, which is gone now: etcd's revision is final. Read
    // before the kill, writes landing in between (the operator's, the harness's churn) would be above the bump, and a
    // watch resumed from one would be accepted by the new watch cache instead of answered 410 (issue 28).
    const oldRevision = wipeEtcd && bumpRevision ? await etcdRevision(etcdUrl) : 0;
    await kill("etcd");
    if (wipeEtcd) await Deno.remove(`${dir}/etcd`, { recursive: true });
    if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
    await whileDown?.();
    spawn("etcd", etcdArgs, "etcd.log");
    if (oldRevision > 0) await bumpEtcdRevision(etcdUrl, oldRevision + 1);
    spawn("kube-apiserver", apiserverArgs(apiPort, []), "kube-apiserver.log");
    await ready(url, "kube-apiserver", "kube-apiserver.log");
    if (wipeEtcd) spawn("kube-controller-manager", kcmArgs, "kube-controller-manager.log");
  };
  try {
    await ready(url, "kube-apiserver", "kube-apiserver.log");
    spawn("kube-controller-manager", kcmArgs, "kube-controller-manager.log");
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, kubeconfig, kubeconfigPath, dir, startExtraApiServer, restart, stop };
}
