/**
 * The serving certificate kept in a Secret (`--cert-secret ns/name`: ca.crt, ca.key, tls.crt, tls.key), so every
 * replica and every restart serve with the same CA and the APIService caBundle stays valid. The first server to
 * start generates it (a second one racing it loses the create with 409 and reads the winner's); a leaf that lacks
 * a wanted SAN or expires within 30 days is re-issued from the same CA.
 * @module
 */
import { isAlreadyExists, isConflict } from "../runtime/client/errors.ts";
import type { Clock } from "../runtime/clock.ts";
import type { FarmCluster, SecretObject } from "./cluster.ts";
import { certificateHosts, certificateNotAfterMs, createCA, importCA } from "../runtime/http/pki.ts";

/** PEMs of a serving certificate. */
export interface ServingPEMs {
  /** Certificate, PEM. */
  certPEM: string;
  /** Private key, PEM (PKCS#8). */
  keyPEM: string;
  /** CA certificate to trust, PEM. */
  caPEM: string;
}

const b64 = (s: string) => btoa(s);
const unb64 = (s: string | undefined) => s === undefined ? undefined : atob(s);

/** Options of {@link servingCertFromSecret}. */
export interface CertSecretOptions {
  /** The cluster (SubjectAccessReview, ConfigMaps, Secrets, Pods). */
  cluster: FarmCluster;
  /** Namespace (undefined: cluster scope or all namespaces). */
  namespace: string;
  /** Object name. */
  name: string;
  /** SANs (DNS names or IPs) the certificate must carry. */
  hosts: string[];
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
}

/**
 * Loads the serving certificate from the Secret, creating or refreshing it when needed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RealClock } from "../runtime/clock.ts";
 * import { servingCertFromSecret } from "./cert_secret.ts";
 * import { MemoryFarmCluster } from "./memory_cluster.ts";
 * const cluster = new MemoryFarmCluster(); // KubeFarmCluster in the server
 * const opts = {
 *   cluster,
 *   namespace: "kubeop-system",
 *   name: "kubeop-farm-serving-cert",
 *   hosts: ["kubeop-farm.kubeop-system.svc"],
 *   clock: new RealClock(),
 * };
 * const first = await servingCertFromSecret(opts); // creates the Secret
 * const second = await servingCertFromSecret(opts); // another replica: reads the same CA and certificate
 * assert.equal(second.caPEM, first.caPEM);
 * ```
 */
export async function servingCertFromSecret(opts: CertSecretOptions): Promise<ServingPEMs> {
  const { cluster } = opts;
  if (!cluster.getSecret || !cluster.createSecret || !cluster.updateSecret) {
    throw new Error("--cert-secret needs a cluster connection that can read and write Secrets");
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const secret = await cluster.getSecret(opts.namespace, opts.name);
    const data = secret?.data ?? {};
    const [caPEM, caKeyPEM, certPEM, keyPEM] = ["ca.crt", "ca.key", "tls.crt", "tls.key"].map((k) => unb64(data[k]));
    const fresh = (pem: string) => certificateNotAfterMs(pem) - opts.clock.now() > 30 * 86_400_000;
    if (caPEM && certPEM && keyPEM && fresh(certPEM)) {
      const have = new Set(certificateHosts(certPEM));
      if (opts.hosts.every((h) => have.has(h))) return { certPEM, keyPEM, caPEM };
    }
    const ca = caPEM && caKeyPEM && fresh(caPEM)
      ? await importCA(caPEM, caKeyPEM)
      : await createCA({ commonName: "kubeop-farm-ca", notBeforeMs: opts.clock.now() - 3_600_000 });
    const leaf = await ca.issue({
      commonName: opts.hosts[0],
      hosts: opts.hosts,
      usage: "server",
      notBeforeMs: opts.clock.now() - 3_600_000,
    });
    const body: SecretObject = {
      apiVersion: "v1",
      kind: "Secret",
      type: "kubernetes.io/tls",
      metadata: {
        name: opts.name,
        namespace: opts.namespace,
        labels: { "app.kubernetes.io/name": "kubeop", "app.kubernetes.io/component": "farm-apiserver" },
      },
      data: {
        "ca.crt": b64(ca.certPEM),
        "ca.key": b64(ca.keyPEM),
        "tls.crt": b64(leaf.certPEM),
        "tls.key": b64(leaf.keyPEM),
      },
    };
    try {
      if (secret) {
        body.metadata.resourceVersion = secret.metadata.resourceVersion;
        await cluster.updateSecret(body);
      } else {
        await cluster.createSecret(body);
      }
      return { certPEM: leaf.certPEM, keyPEM: leaf.keyPEM, caPEM: ca.certPEM };
    } catch (err) {
      // Another replica wrote it first: use theirs.
      if (isAlreadyExists(err) || isConflict(err)) continue;
      throw err;
    }
  }
  throw new Error(`Secret ${opts.namespace}/${opts.name}: kept changing while the serving cert was being stored`);
}
