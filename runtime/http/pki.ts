/**
 * Small X.509 toolkit on @peculiar/x509 and WebCrypto (ECDSA P-256): a CA, certificates it signs (serving certs with
 * SANs, client certs with a CN and organisations), and PEM helpers. Used for the farm server's self-signed serving
 * cert and by tests for front-proxy client CAs.
 * @module
 */
import "./reflect_shim.ts";
import * as x509 from "@peculiar/x509";

const ALG: EcKeyGenParams & EcdsaParams = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** A certificate with its private key, both PEM. */
export interface CertKeyPEM {
  /** Certificate, PEM. */
  certPEM: string;
  /** Private key, PEM (PKCS#8). */
  keyPEM: string;
}

/** A CA that can sign further certificates. */
export interface CertAuthority extends CertKeyPEM {
  /** Signs a leaf certificate. */
  issue(opts: LeafOptions): Promise<CertKeyPEM>;
}

/** What a leaf certificate says. */
export interface LeafOptions {
  /** Subject CN. */
  commonName: string;
  /** Subject O= entries (Kubernetes groups for client certs). */
  organizations?: string[];
  /** DNS names and IP addresses; a name that parses as an IPv4/IPv6 address becomes an IP SAN. */
  hosts?: string[];
  /** server (serverAuth) or client (clientAuth). */
  usage: "server" | "client";
  /** Validity start, epoch ms (default: now - 1 h, to tolerate skew). */
  notBeforeMs?: number;
  /** Validity, days (default 365). */
  validityDays?: number;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = btoa(String.fromCharCode(...new Uint8Array(der)));
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

async function keyPEM(key: CryptoKey): Promise<string> {
  return pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", key));
}

function escapeDN(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, "\\$1");
}

function serial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function isIP(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}

function validity(opts: { notBeforeMs?: number; validityDays?: number }): { notBefore: Date; notAfter: Date } {
  const start = opts.notBeforeMs ?? Date.now() - 3_600_000;
  return { notBefore: new Date(start), notAfter: new Date(start + (opts.validityDays ?? 365) * 86_400_000) };
}

/**
 * Creates a self-signed CA.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCA } from "./pki.ts";
 * const ca = await createCA({ commonName: "front-proxy-ca" });
 * const client = await ca.issue({ commonName: "front-proxy-client", usage: "client" });
 * assert.ok(client.certPEM.startsWith("-----BEGIN CERTIFICATE-----"));
 * ```
 */
export async function createCA(opts: { commonName: string; notBeforeMs?: number; validityDays?: number }): Promise<
  CertAuthority
> {
  const keys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as CryptoKeyPair;
  const name = `CN=${escapeDN(opts.commonName)}`;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    ...validity({ validityDays: 3650, ...opts }),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return issuerFor(cert, keys.privateKey, await keyPEM(keys.privateKey));
}

function issuerFor(cert: x509.X509Certificate, signingKey: CryptoKey, caKeyPEM: string): CertAuthority {
  return {
    certPEM: cert.toString("pem") + "\n",
    keyPEM: caKeyPEM,
    async issue(leaf: LeafOptions): Promise<CertKeyPEM> {
      const leafKeys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as CryptoKeyPair;
      const subject = [`CN=${escapeDN(leaf.commonName)}`, ...(leaf.organizations ?? []).map((o) => `O=${escapeDN(o)}`)]
        .join(", ");
      const extensions: x509.Extension[] = [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension(
          [leaf.usage === "server" ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth],
          false,
        ),
        await x509.AuthorityKeyIdentifierExtension.create(cert, false),
      ];
      if (leaf.hosts?.length) {
        extensions.push(
          new x509.SubjectAlternativeNameExtension(
            leaf.hosts.map((h) => isIP(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h }),
            false,
          ),
        );
      }
      const leafCert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject,
        issuer: cert.subject,
        ...validity(leaf),
        signingAlgorithm: ALG,
        publicKey: leafKeys.publicKey,
        signingKey,
        extensions,
      });
      return { certPEM: leafCert.toString("pem") + "\n", keyPEM: await keyPEM(leafKeys.privateKey) };
    },
  };
}

/** Rebuilds a {@link CertAuthority} from a PEM certificate and its PKCS#8 ECDSA P-256 key (as written by createCA). */
export async function importCA(certPEM: string, caKeyPEM: string): Promise<CertAuthority> {
  const b64 = caKeyPEM.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("pkcs8", der, ALG, true, ["sign"]);
  return issuerFor(new x509.X509Certificate(certPEM), key, caKeyPEM);
}

/** Reads the DNS and IP SANs of a PEM certificate (for checks and for deciding whether to regenerate). */
export function certificateHosts(certPEM: string): string[] {
  const cert = new x509.X509Certificate(certPEM);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return san ? san.names.items.map((n) => n.value) : [];
}

/** The notAfter of a PEM certificate, epoch ms. */
export function certificateNotAfterMs(certPEM: string): number {
  return new x509.X509Certificate(certPEM).notAfter.getTime();
}
