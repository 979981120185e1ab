/**
 * Who kubeop talks to the cluster as, in words for the startup lines: the kubeconfig's user entry and the kind of
 * credential (the client certificate's subject, as RBAC sees it; an exec plugin's command), or the pod's service
 * account (the `sub` claim of its token). Never a token, key or certificate body: only names.
 * @module
 */
import type { ClusterConfig } from "../runtime/client/kubeconfig.ts";

/**
 * Describes the identity `config` authenticates as. `readFile` reads an in-cluster token file (for tests); only its
 * `sub` claim is kept, the token itself is dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeIdentity } from "./identity.ts";
 * assert.equal(
 *   await describeIdentity({ server: "https://k", userName: "ci", token: "s3cret" }),
 *   'user "ci" (bearer token)',
 * );
 * ```
 */
export async function describeIdentity(
  config: ClusterConfig,
  readFile: (path: string) => Promise<string> = (path) => Deno.readTextFile(path),
): Promise<string> {
  if (config.inCluster && config.tokenFile) {
    const subject = await tokenSubject(config.tokenFile, readFile);
    const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(subject ?? "");
    if (sa) return `service account ${sa[1]}/${sa[2]} (in-cluster token)`;
    return subject ? `${subject} (in-cluster token)` : "the pod's service account (in-cluster token)";
  }
  const user = config.userName ? `user "${config.userName}"` : "no user entry";
  const kinds: string[] = [];
  if (config.certPEM) {
    const subject = certificateSubject(config.certPEM);
    kinds.push(subject ? `client certificate ${subject}` : "client certificate");
  }
  if (config.exec) kinds.push(`exec plugin ${config.exec.command.split("/").pop()}`);
  if (config.token) kinds.push("bearer token");
  if (config.tokenFile) kinds.push(`token file ${config.tokenFile}`);
  return `${user} (${kinds.length ? kinds.join(", ") : "no credentials: anonymous"})`;
}

/** The `sub` claim of a JWT in `path` (not verified: only for the message), or undefined. */
async function tokenSubject(
  path: string,
  readFile: (path: string) => Promise<string>,
): Promise<string | undefined> {
  try {
    const payload = (await readFile(path)).trim().split(".")[1];
    if (!payload) return undefined;
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(payload.length / 4) * 4, "="));
    const sub = JSON.parse(json)?.sub;
    return typeof sub === "string" && /^[\w:.@-]+$/.test(sub) ? sub : undefined;
  } catch {
    return undefined;
  }
}

const SUBJECT_ATTRIBUTES: Record<string, string> = { "2.5.4.3": "CN", "2.5.4.10": "O" };

/**
 * The subject of the first certificate in `pem` as `CN=…, O=…` (CN and O only: the user name and groups Kubernetes
 * takes from it), or undefined when it cannot be read. A small DER walk: the x509 library is not loaded at start.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { certificateSubject } from "./identity.ts";
 * assert.equal(certificateSubject("not a certificate"), undefined);
 * ```
 */
export function certificateSubject(pem: string): string | undefined {
  const body = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)?.[1];
  if (!body) return undefined;
  try {
    const der = Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    const cert = children(der, read(der, 0))[0]; // Certificate ::= SEQUENCE { tbsCertificate, ... }
    const tbs = children(der, cert);
    const fields = der[tbs[0].start] === 0xa0 ? tbs.slice(1) : tbs; // [0] version is optional
    const subject = fields[4]; // serialNumber, signature, issuer, validity, subject
    const parts: string[] = [];
    for (const rdn of children(der, subject)) {
      for (const atv of children(der, rdn)) {
        const [oid, value] = children(der, atv);
        const name = SUBJECT_ATTRIBUTES[oidString(der.subarray(oid.body, oid.end))];
        if (name) parts.push(`${name}=${new TextDecoder().decode(der.subarray(value.body, value.end))}`);
      }
    }
    return parts.length ? parts.join(", ") : undefined;
  } catch {
    return undefined;
  }
}

interface Tlv {
  /** Offset of the tag. */
  start: number;
  /** Offset of the contents. */
  body: number;
  /** Offset after the contents. */
  end: number;
}

function read(der: Uint8Array, start: number): Tlv {
  let at = start + 1;
  let len = der[at++];
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error("unsupported DER length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[at++];
  }
  if (at + len > der.length) throw new Error("DER element past the end");
  return { start, body: at, end: at + len };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.body; at < parent.end;) {
    const tlv = read(der, at);
    out.push(tlv);
    at = tlv.end;
  }
  return out;
}

function oidString(bytes: Uint8Array): string {
  const parts = [Math.floor(bytes[0] / 40), bytes[0] % 40];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join(".");
}
