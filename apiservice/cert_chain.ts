/**
 * Which CA bundle a client's certificate chain was issued from. The TLS listener trusts the front-proxy CA and the
 * cluster's client CA at once (node verifies against one `ca` list); k8s.io/apiserver verifies the requestheader
 * and x509 authenticators each against its own pool, so the authenticator asks this which pool the chain belongs to.
 * @module
 */
import { X509Certificate } from "node:crypto";

/** The certificates of a PEM bundle; unparsable blocks are skipped. */
export function pemCertificates(bundlePEM: string): X509Certificate[] {
  const blocks = bundlePEM.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.flatMap((block) => {
    try {
      return [new X509Certificate(block)];
    } catch {
      return [];
    }
  });
}

/**
 * True when some certificate of `chain` (DER, leaf first, as the peer sent it) is a CA of `bundlePEM` or was signed
 * by one. Chain validity itself (dates, usages, each link's signature) is the TLS layer's: call this only for a
 * chain node already verified.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { X509Certificate } from "node:crypto";
 * import { createCA } from "../runtime/http/pki.ts";
 * import { chainIssuedBy } from "./cert_chain.ts";
 * const [ca, other] = await Promise.all([createCA({ commonName: "a" }), createCA({ commonName: "b" })]);
 * const leaf = await ca.issue({ commonName: "alice", usage: "client" });
 * const der = new Uint8Array(new X509Certificate(leaf.certPEM).raw);
 * assert.ok(chainIssuedBy([der], ca.certPEM));
 * assert.ok(!chainIssuedBy([der], other.certPEM));
 * ```
 */
export function chainIssuedBy(chain: Uint8Array[], bundlePEM: string): boolean {
  const cas = pemCertificates(bundlePEM);
  for (const der of chain) {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(der);
    } catch {
      return false;
    }
    for (const ca of cas) {
      if (cert.fingerprint256 === ca.fingerprint256) return true;
      if (cert.checkIssued(ca) && cert.verify(ca.publicKey)) return true;
    }
  }
  return false;
}
