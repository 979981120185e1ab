/**
 * The webhook serving certificate when no `--webhook-cert-dir` is given (open-policy-agent/cert-controller's rotator,
 * which many controller-runtime operators embed): a self-signed CA kept in a Secret every replica shares — the first
 * replica creates it, the others read it (AlreadyExists and Conflict mean "someone else won": read again) — and, on
 * each replica, a serving certificate for the Service's DNS names signed by that CA (each replica holds its own
 * key; only the CA key is shared). The CA bundle is injected into the WebhookConfigurations and CRDs kubeop owns
 * (./ca_bundle_injector.ts) before a certificate signed by a new CA is served.
 *
 * Rotation, checked every `checkIntervalMs` on the injected clock: a CA within `renewBeforeMs` of its expiry is
 * replaced by a new one, and the Secret's `ca-bundle.crt` then holds the new CA and the old one until the old one
 * expires, so kube-apiserver trusts both the certificates still served by replicas that have not yet switched and
 * the new ones; a serving certificate within `renewBeforeMs` of expiry, or signed by a CA that is no longer current,
 * is reissued.
 *
 * Secret data (Opaque): `ca.crt`, `ca.key` (the current CA) and `ca-bundle.crt` (current first, then older CAs not
 * yet expired).
 * @module
 */
import type { KubeClient } from "../client/client.ts";
import { type Clock, RealClock } from "../clock.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../client/errors.ts";
import { kubeopLogger, type Logger } from "../observe/log.ts";
import { type CertAuthority, certificateNotAfterMs, type CertKeyPEM, createCA, importCA } from "../http/pki.ts";
import { CoreTypes, type KubeObject } from "../types.ts";
import type { ServingCertSource } from "./server.ts";

/** Options of {@link SelfManagedCerts}. */
export interface SelfManagedCertsOptions {
  /** Reads and writes the CA Secret. */
  client: KubeClient;
  /** Namespace of the Service and the Secret (the operator's namespace). */
  namespace: string;
  /** The webhook Service's name; the certificate is for `<svc>`, `<svc>.<ns>`, `<svc>.<ns>.svc` and `…cluster.local`. */
  serviceName: string;
  /** The CA Secret (default `<serviceName>-ca`). */
  secretName?: string;
  /** Extra SANs (e.g. `127.0.0.1` for a webhook reached by URL in tests). */
  extraHosts?: string[];
  /** Writes the CA bundle (PEM) where kube-apiserver reads it; called before a certificate of a new CA is served. */
  injectCaBundle?: (caBundlePEM: string, signal: AbortSignal) => Promise<void>;
  /** Default real time. Certificates' validity is taken from it too. */
  clock?: Clock;
  /** CA validity (default 365 days). */
  caValidityMs?: number;
  /** Serving certificate validity (default 90 days). */
  certValidityMs?: number;
  /** Renew a CA or certificate this long before it expires (default 30 days). */
  renewBeforeMs?: number;
  /** How often to check (default 1 h). */
  checkIntervalMs?: number;
  /** Default `kubeop.webhook.certs`. */
  logger?: Logger;
}

const DAY_MS = 86_400_000;
const SKEW_MS = 3_600_000;

/** The CA as read from the Secret. */
interface SharedCA {
  ca: CertAuthority;
  /** PEM of every trusted CA, current first. */
  bundlePEM: string;
}

/** Splits a PEM bundle into its certificates. */
export function splitPEM(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g)?.map((c) =>
    c.endsWith("\n") ? c : `${c}\n`
  ) ?? [];
}

function b64(text: string): string {
  return btoa(text);
}

function unb64(text: unknown): string {
  return typeof text === "string" ? atob(text) : "";
}

/**
 * Self-managed serving certificates for the webhook server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { startRunnable } from "../manager/runnable.ts";
 * import { CoreTypes } from "../types.ts";
 * import { SelfManagedCerts } from "./self_managed_certs.ts";
 * import { WebhookServer } from "./server.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * await client.create(CoreTypes.Namespace, { metadata: { name: "kubeop-system" } });
 * const bundles: string[] = [];
 * const certs = new SelfManagedCerts({
 *   client,
 *   namespace: "kubeop-system",
 *   serviceName: "kubeop-webhook",
 *   extraHosts: ["127.0.0.1"],
 *   // in an operator: (pem, signal) => injectCaBundle(client, caBundleTargets(webhooks), pem, { signal })
 *   injectCaBundle: (pem) => Promise.resolve(void bundles.push(pem)),
 * });
 * const server = new WebhookServer({ bindAddress: "127.0.0.1:0", certificates: certs, routes: [] }); // :9443 in a Pod
 * const stop = new AbortController();
 * const run = startRunnable(server, stop.signal);
 * await run.ready;
 * assert.ok(await client.get(CoreTypes.Secret, "kubeop-webhook-ca", { namespace: "kubeop-system" })); // shared CA
 * assert.equal(bundles.length, 1); // injected before its certificate was served
 * stop.abort();
 * await run.done;
 * client.close();
 * await cluster.stop();
 * ```
 */
export class SelfManagedCerts implements ServingCertSource {
  readonly #opts: SelfManagedCertsOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #secretName: string;
  #serving: CertKeyPEM | undefined;
  #servingCA = "";
  #injected = "";

  /** Nothing is read or written until {@link SelfManagedCerts.initial}. */
  constructor(opts: SelfManagedCertsOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? new RealClock();
    this.#log = opts.logger ?? kubeopLogger("webhook.certs");
    this.#secretName = opts.secretName ?? `${opts.serviceName}-ca`;
  }

  /** The DNS names the serving certificate is for. */
  get hosts(): string[] {
    const { serviceName: svc, namespace: ns } = this.#opts;
    return [
      svc,
      `${svc}.${ns}`,
      `${svc}.${ns}.svc`,
      `${svc}.${ns}.svc.cluster.local`,
      ...(this.#opts.extraHosts ?? []),
    ];
  }

  /** Gets or creates the shared CA, injects its bundle, and issues this replica's serving certificate. */
  async initial(signal: AbortSignal): Promise<CertKeyPEM> {
    const cert = await this.check(signal);
    return cert ?? this.#serving!;
  }

  /** Checks every `checkIntervalMs` until `signal` aborts; a failed check is logged and retried at the next one. */
  async watch(signal: AbortSignal, onChange: (cert: CertKeyPEM) => void): Promise<void> {
    const intervalMs = this.#opts.checkIntervalMs ?? 3_600_000;
    while (!signal.aborted) {
      try {
        await this.#clock.sleep(intervalMs, signal);
      } catch {
        return; // aborted
      }
      try {
        const cert = await this.check(signal);
        if (cert) onChange(cert);
      } catch (err) {
        if (signal.aborted) return;
        this.#log.error("webhook certificate check failed (retrying in {intervalMs} ms): {error}", {
          intervalMs,
          error: String(err),
        });
      }
    }
  }

  /**
   * One check: rotates the CA when due (or adopts one another replica rotated), injects the bundle when it changed,
   * and returns a new serving certificate when one was issued (undefined when the current one stays).
   */
  async check(signal: AbortSignal): Promise<CertKeyPEM | undefined> {
    const shared = await this.#sharedCA(signal);
    if (shared.bundlePEM !== this.#injected && this.#opts.injectCaBundle) {
      await this.#opts.injectCaBundle(shared.bundlePEM, signal);
      this.#log.info("webhook CA bundle injected ({count} CAs)", { count: splitPEM(shared.bundlePEM).length });
    }
    this.#injected = shared.bundlePEM;
    const now = this.#clock.now();
    const renewBefore = this.#opts.renewBeforeMs ?? 30 * DAY_MS;
    const current = this.#serving;
    if (
      current && this.#servingCA === shared.ca.certPEM &&
      certificateNotAfterMs(current.certPEM) - now > renewBefore
    ) return undefined;
    const caLeftMs = certificateNotAfterMs(shared.ca.certPEM) - now;
    const validityMs = Math.min(this.#opts.certValidityMs ?? 90 * DAY_MS, caLeftMs);
    const leaf = await shared.ca.issue({
      commonName: `${this.#opts.serviceName}.${this.#opts.namespace}.svc`,
      hosts: this.hosts,
      usage: "server",
      notBeforeMs: now - SKEW_MS,
      validityDays: (validityMs + SKEW_MS) / DAY_MS,
    });
    this.#serving = { certPEM: leaf.certPEM + shared.ca.certPEM, keyPEM: leaf.keyPEM };
    this.#servingCA = shared.ca.certPEM;
    this.#log.info("webhook serving certificate issued for {hosts}", { hosts: this.hosts.join(", ") });
    return this.#serving;
  }

  /** Reads the CA Secret, creating it or rotating its CA as needed; retries when another replica wrote first. */
  async #sharedCA(signal: AbortSignal): Promise<SharedCA> {
    const { client, namespace } = this.#opts;
    const name = this.#secretName;
    for (let attempt = 1;; attempt++) {
      let secret: KubeObject | undefined;
      try {
        secret = await client.get(CoreTypes.Secret, name, { namespace, signal });
      } catch (err) {
        if (!isNotFound(err)) throw new Error(`webhook CA: reading Secret ${namespace}/${name}: ${errText(err)}`);
      }
      try {
        if (!secret) {
          const ca = await this.#newCA();
          await client.create(CoreTypes.Secret, this.#secret(undefined, ca, ca.certPEM), { namespace, signal });
          this.#log.info("webhook CA created in Secret {namespace}/{name}", { namespace, name });
          return { ca, bundlePEM: ca.certPEM };
        }
        const data = (secret.data ?? {}) as Record<string, string>;
        const [certPEM, keyPEM, bundle] = [unb64(data["ca.crt"]), unb64(data["ca.key"]), unb64(data["ca-bundle.crt"])];
        const now = this.#clock.now();
        const renewBefore = this.#opts.renewBeforeMs ?? 30 * DAY_MS;
        const usable = certPEM && keyPEM && certificateNotAfterMs(certPEM) - now > renewBefore;
        if (usable) {
          const ca = await importCA(certPEM, keyPEM);
          const trusted = splitPEM(bundle || certPEM);
          const live = trusted.filter((c) => certificateNotAfterMs(c) > now);
          if (live.length === trusted.length) return { ca, bundlePEM: bundle || certPEM };
          // The overlap is over: drop the expired CAs from the bundle.
          const bundlePEM = live.join("");
          await client.update(CoreTypes.Secret, this.#secret(secret, ca, bundlePEM), { namespace, signal });
          return { ca, bundlePEM };
        }
        // Due (or unreadable): a new CA, trusted alongside the older ones until they expire.
        const ca = await this.#newCA();
        const keep = splitPEM(bundle || certPEM).filter((c) => certificateNotAfterMs(c) > now);
        const bundlePEM = [ca.certPEM, ...keep].join("");
        await client.update(CoreTypes.Secret, this.#secret(secret, ca, bundlePEM), { namespace, signal });
        this.#log.info("webhook CA rotated in Secret {namespace}/{name}", { namespace, name });
        return { ca, bundlePEM };
      } catch (err) {
        // Another replica created or rotated it first: use theirs.
        if ((isAlreadyExists(err) || isConflict(err)) && attempt < 5) continue;
        throw new Error(`webhook CA: writing Secret ${namespace}/${name}: ${errText(err)}`);
      }
    }
  }

  #newCA(): Promise<CertAuthority> {
    const now = this.#clock.now();
    const validityMs = this.#opts.caValidityMs ?? 365 * DAY_MS;
    return createCA({
      commonName: `${this.#opts.serviceName}-ca@${Math.floor(now / 1000)}`,
      notBeforeMs: now - SKEW_MS,
      validityDays: (validityMs + SKEW_MS) / DAY_MS,
    });
  }

  #secret(existing: KubeObject | undefined, ca: CertAuthority, bundlePEM: string): KubeObject {
    return {
      ...(existing ?? {}),
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        ...(existing?.metadata ?? {}),
        name: this.#secretName,
        namespace: this.#opts.namespace,
        labels: { ...(existing?.metadata?.labels ?? {}), "app.kubernetes.io/managed-by": "kubeop" },
      },
      type: "Opaque",
      data: { "ca.crt": b64(ca.certPEM), "ca.key": b64(ca.keyPEM), "ca-bundle.crt": b64(bundlePEM) },
    };
  }
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
