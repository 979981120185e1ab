/**
 * The serving certificate: from --tls-cert-file/--tls-private-key-file when given, otherwise a CA and a serving
 * certificate it signs, generated once into --cert-dir (ca.crt, ca.key, apiserver.crt, apiserver.key) and reused on
 * every later start, so the APIService caBundle stays valid. The leaf is re-issued (same CA) when it lacks a wanted
 * SAN or expires within 30 days. {@link watchFiles} reports when the files change so the server can reload them.
 * @module
 */
import { dirname, join } from "node:path";
import type { Clock } from "../runtime/clock.ts";
import { certificateHosts, certificateNotAfterMs, type CertKeyPEM, createCA, importCA } from "../runtime/http/pki.ts";

/** A loaded serving certificate. */
export interface ServingCert extends CertKeyPEM {
  /** The PEM that clients (and APIService.spec.caBundle) should trust. */
  caPEM: string;
  /** File the certificate was read from (empty when it came from a Secret). */
  certFile: string;
  /** File the key was read from. */
  keyFile: string;
}

/** Options of {@link loadServingCert}. */
export interface ServingCertOptions {
  /** Serving certificate file (PEM). */
  tlsCertFile?: string;
  /** Serving key file (PEM). */
  tlsPrivateKeyFile?: string;
  /** Default `.kubeop/farm-certs`. */
  certDir?: string;
  /** SANs the generated cert must carry (default localhost, 127.0.0.1). */
  hosts?: string[];
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`reading ${path}: ${(err as Error).message}`);
  }
}

async function writePrivate(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, text, { mode: 0o600 });
  await Deno.rename(tmp, path);
}

/**
 * Loads (or generates once) the serving certificate.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RealClock } from "../runtime/clock.ts";
 * import { loadServingCert } from "./serving_cert.ts";
 * const certDir = await Deno.makeTempDir(); // --cert-dir
 * const cert = await loadServingCert({ certDir, hosts: ["localhost"], clock: new RealClock() });
 * const again = await loadServingCert({ certDir, hosts: ["localhost"], clock: new RealClock() });
 * assert.equal(again.caPEM, cert.caPEM); // generated once, reused: APIService.spec.caBundle stays valid
 * await Deno.remove(certDir, { recursive: true });
 * ```
 */
export async function loadServingCert(opts: ServingCertOptions): Promise<ServingCert> {
  if (opts.tlsCertFile || opts.tlsPrivateKeyFile) {
    if (!opts.tlsCertFile || !opts.tlsPrivateKeyFile) {
      throw new Error("--tls-cert-file and --tls-private-key-file must be given together");
    }
    const certPEM = await Deno.readTextFile(opts.tlsCertFile);
    const keyPEM = await Deno.readTextFile(opts.tlsPrivateKeyFile);
    // With a given cert the trust anchor is unknown: hand out the chain itself (right for self-signed certs).
    return { certPEM, keyPEM, caPEM: certPEM, certFile: opts.tlsCertFile, keyFile: opts.tlsPrivateKeyFile };
  }
  const dir = opts.certDir ?? ".kubeop/farm-certs";
  const files = {
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    cert: join(dir, "apiserver.crt"),
    key: join(dir, "apiserver.key"),
  };
  const hosts = opts.hosts?.length ? opts.hosts : ["localhost", "127.0.0.1"];
  const [caPEM, caKeyPEM, certPEM, keyPEM] = await Promise.all(
    [files.caCert, files.caKey, files.cert, files.key].map(readIfExists),
  );
  const fresh = (pem: string) => certificateNotAfterMs(pem) - opts.clock.now() > 30 * 86_400_000;
  if (caPEM && certPEM && keyPEM && fresh(certPEM)) {
    const have = new Set(certificateHosts(certPEM));
    if (hosts.every((h) => have.has(h))) return { certPEM, keyPEM, caPEM, certFile: files.cert, keyFile: files.key };
  }
  // Keep an existing CA (so the caBundle already registered stays valid); otherwise create one.
  let ca = caPEM && caKeyPEM && fresh(caPEM) ? await importCA(caPEM, caKeyPEM) : undefined;
  if (!ca) {
    ca = await createCA({ commonName: "kubeop-farm-ca", notBeforeMs: opts.clock.now() - 3_600_000 });
    await writePrivate(files.caKey, ca.keyPEM);
    await writePrivate(files.caCert, ca.certPEM);
  }
  const leaf = await ca.issue({
    commonName: hosts[0],
    hosts,
    usage: "server",
    notBeforeMs: opts.clock.now() - 3_600_000,
  });
  await writePrivate(files.key, leaf.keyPEM);
  await writePrivate(files.cert, leaf.certPEM);
  return { ...leaf, caPEM: ca.certPEM, certFile: files.cert, keyFile: files.key };
}

/**
 * Polls the modification times of `paths` every `intervalMs` (on the injected clock) and calls `onChange` when any
 * changed; returns a stop function.
 */
export function watchFiles(opts: {
  paths: string[];
  clock: Clock;
  intervalMs: number;
  onChange: () => void | Promise<void>;
  onError?: (err: unknown) => void;
}): () => void {
  let stopped = false;
  let cancel = () => {};
  let last: string | undefined;
  const stamp = async () =>
    (await Promise.all(opts.paths.map(async (p) => {
      try {
        const st = await Deno.stat(p);
        return `${st.mtime?.getTime()}:${st.size}`;
      } catch {
        return "missing";
      }
    }))).join("|");
  const tick = async () => {
    if (stopped) return;
    try {
      const now = await stamp();
      if (last !== undefined && now !== last) await opts.onChange();
      last = now;
    } catch (err) {
      opts.onError?.(err);
    }
    if (!stopped) cancel = opts.clock.setTimer(opts.intervalMs, tick);
  };
  stamp().then((s) => {
    last = s;
    if (!stopped) cancel = opts.clock.setTimer(opts.intervalMs, tick);
  });
  return () => {
    stopped = true;
    cancel();
  };
}
