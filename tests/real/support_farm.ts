/**
 * Helpers for the farm aggregated API server on a real kube-apiserver: real kubectl runs, the `kubeop apiserver`
 * subprocess, and the manifests (deploy/apiservice/) adapted to a server listening on 127.0.0.1.
 * @module
 */

import YAML from "yaml";
import { collectText, poll } from "./support_real.ts";

const ROOT = new URL("../../", import.meta.url);

/** Result of one kubectl run. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kubectl` (binary `bin`) with `--kubeconfig` and a private cache dir; `stdin` is piped when given. */
export async function kubectl(
  bin: string,
  opts: { kubeconfigPath: string; cacheDir: string },
  args: string[],
  stdin?: string,
): Promise<KubectlResult> {
  const child = new Deno.Command(bin, {
    args: ["--kubeconfig", opts.kubeconfigPath, "--cache-dir", opts.cacheDir, ...args],
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * The Service and APIService of deploy/apiservice/, adapted for a server on 127.0.0.1:`port`: the Service becomes
 * `type: ExternalName` (externalName localhost, which the aggregator dials with --enable-aggregator-routing) named
 * `serviceName`, and both carry `port` (the aggregator dials the APIService's port on the ExternalName host).
 */
export async function farmManifests(opts: { serviceName: string; namespace: string; port: number }): Promise<string> {
  const service = YAML.parse(await Deno.readTextFile(new URL("deploy/apiservice/service.yaml", ROOT)));
  service.metadata.name = opts.serviceName;
  service.metadata.namespace = opts.namespace;
  delete service.spec.selector;
  service.spec.type = "ExternalName";
  service.spec.externalName = "localhost";
  service.spec.ports = [{ name: "https", port: opts.port, targetPort: opts.port, protocol: "TCP" }];
  const apiService = YAML.parse(await Deno.readTextFile(new URL("deploy/apiservice/apiservice.yaml", ROOT)));
  apiService.spec.service = { name: opts.serviceName, namespace: opts.namespace, port: opts.port };
  return [YAML.stringify(service), YAML.stringify(apiService)].join("---\n");
}

/** A running `kubeop apiserver` subprocess. */
export interface FarmProcess {
  /** Its stderr so far (logs). */
  logs(): string;
  /** SIGTERM and wait; returns the exit code. */
  stop(): Promise<number>;
}

/** Starts `deno run -A main.ts apiserver <args>` and waits until https://127.0.0.1:`port`/healthz answers. */
export async function startFarmProcess(port: number, args: string[]): Promise<FarmProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("main.ts", ROOT).pathname, "apiserver", "--secure-port", String(port), ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = collectText(child.stdout);
  const err = collectText(child.stderr);
  const logs = () => out.text() + err.text();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    const s = await status;
    await Promise.all([out.done, err.done]);
    return s.code;
  };
  try {
    await poll(`kubeop apiserver on port ${port}`, async () => {
      if (exited) throw new Error("exited");
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return true;
    }, { deadlineMs: 60_000, intervalMs: 200 });
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\nkubeop apiserver output:\n${logs().slice(-4000)}`);
  }
  return { logs, stop };
}

/**
 * A bin directory for startRealCluster whose kube-apiserver wrapper first re-signs the front-proxy client
 * certificate as an X.509 v3 certificate (extendedKeyUsage clientAuth) and then runs the real kube-apiserver with
 * `--enable-aggregator-routing=false` appended. Why: `openssl x509 -req` without extensions makes a v1 certificate,
 * which Go accepts but Deno's TLS (rustls/webpki) rejects as a client certificate, so the farm server would see an
 * unverified peer (401); kubeadm and every real cluster issue v3 front-proxy certificates. Aggregator routing off:
 * with it on, the aggregator resolves a Service through its endpoints and refuses ExternalName ("unsupported service
 * type"); off (the kube-apiserver default) it dials https://<externalName>:<APIService port>.
 */
export async function farmBinDir(binDir: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-real-farm-bin-" });
  for (const name of ["etcd", "kube-controller-manager"]) await Deno.symlink(`${binDir}/${name}`, `${dir}/${name}`);
  const script = [
    "#!/bin/sh",
    "set -e",
    "printf 'extendedKeyUsage=clientAuth\\n' > front-proxy-client.ext",
    "openssl x509 -req -in front-proxy-client.csr -CA front-proxy-ca.crt -CAkey front-proxy-ca.key -CAcreateserial \\",
    "  -out front-proxy-client.crt -days 2 -extfile front-proxy-client.ext 2>/dev/null",
    `exec '${binDir}/kube-apiserver' "$@" --enable-aggregator-routing=false`,
    "",
  ].join("\n");
  await Deno.writeTextFile(`${dir}/kube-apiserver`, script);
  await Deno.chmod(`${dir}/kube-apiserver`, 0o755);
  return { dir, remove: () => Deno.remove(dir, { recursive: true }) };
}
