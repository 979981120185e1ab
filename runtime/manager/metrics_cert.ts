/**
 * The certificate `/metrics` serves under `--metrics-secure`: `tls.crt` and `tls.key` from `--metrics-cert-dir`
 * (a cert-manager Certificate's Secret mounted there, as kubebuilder's scaffold offers), else a self-signed one made
 * at start, as controller-runtime does when no certificate is configured (Prometheus then scrapes with
 * `insecure_skip_verify`, or with the CA it was given).
 * @module
 */

import { join } from "node:path";
import type { CertKeyPEM } from "../http/pki.ts";

/** Options of {@link loadMetricsServingCert}. */
export interface MetricsCertOptions {
  /** Directory holding `tls.crt` and `tls.key`; absent: generate a self-signed certificate. */
  certDir?: string;
  /** SANs of a generated certificate (default localhost, 127.0.0.1 and `$HOSTNAME`-free defaults). */
  hosts?: string[];
}

/**
 * Reads or generates the metrics serving certificate.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadMetricsServingCert } from "./metrics_cert.ts";
 * const cert = await loadMetricsServingCert({});
 * assert.ok(cert.certPEM.startsWith("-----BEGIN CERTIFICATE-----"));
 * ```
 */
export async function loadMetricsServingCert(opts: MetricsCertOptions): Promise<CertKeyPEM> {
  if (opts.certDir) {
    const read = async (file: string) => {
      const path = join(opts.certDir!, file);
      try {
        return await Deno.readTextFile(path);
      } catch (err) {
        throw new Error(`metrics server: reading ${path} (--metrics-cert-dir): ${(err as Error).message}`);
      }
    };
    return { certPEM: await read("tls.crt"), keyPEM: await read("tls.key") };
  }
  // x509 (with asn1js, tsyringe and its decorators) is loaded only here: a process that never generates a certificate
  // does not pay for evaluating it at startup.
  const { createCA } = await import("../http/pki.ts");
  const ca = await createCA({ commonName: "kubeop-metrics-ca" });
  const leaf = await ca.issue({
    commonName: "kubeop-metrics",
    hosts: opts.hosts ?? ["localhost", "127.0.0.1", "::1"],
    usage: "server",
  });
  return { certPEM: leaf.certPEM + ca.certPEM, keyPEM: leaf.keyPEM };
}
