/**
 * One call from registered {@link Webhook}s to a running webhook server: routes, the certificate source
 * (`certDir` files, else self-managed with the CA bundle injected into the generated configurations and converting
 * CRDs), metrics and clock. `kubeop run` uses it; add the result to the Manager (it starts in the servers group).
 * @module
 */
import type { KubeClient } from "../client/client.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import { injectCaBundle } from "./ca_bundle_injector.ts";
import { CertDirSource } from "./cert_dir.ts";
import { caBundleTargets, WEBHOOK_DEFAULTS, type WebhookServiceRef } from "./manifests.ts";
import { SelfManagedCerts } from "./self_managed_certs.ts";
import { WebhookServer } from "./server.ts";
import { WebhookTokenVerifier } from "./webhook_token.ts";
import { authMetrics } from "../observe/auth_metrics.ts";
import { RealClock } from "../clock.ts";
import { type RegisteredWebhook, webhookRoutes } from "./webhook.ts";

/** Options of {@link createWebhookServer}. */
export interface WebhookSetupOptions {
  /** The webhooks to serve. */
  webhooks: readonly RegisteredWebhook[];
  /** `--webhook-bind-address` (default `:9443`). */
  bindAddress?: string;
  /** `--webhook-cert-dir`: serve `tls.crt`/`tls.key` from there (cert-manager); absent: self-managed. */
  certDir?: string;
  /** Reads/writes the CA Secret and injects the bundle (self-managed only). */
  client: KubeClient;
  /** `--webhook-service-name` (default `kubeop-webhook`). */
  serviceName?: string;
  /** `--webhook-service-namespace`: the Service's and the CA Secret's namespace (default `kubeop-system`). */
  namespace?: string;
  /** Names of the WebhookConfigurations the CA bundle is injected into (default kubeop's). */
  configurationNames?: Pick<WebhookServiceRef, "validatingConfiguration" | "mutatingConfiguration">;
  /** The Manager's registry. */
  metrics?: Metrics;
  /** Default real time. */
  clock?: Clock;
  /** Default `kubeop.webhook`. */
  logger?: Logger;
  /** `--webhook-client-ca`: require kube-apiserver's client certificate, signed by the CA in this PEM file. */
  clientCAFile?: string;
  /**
   * `--webhook-token-audience`: every request must carry a bearer token that a TokenReview finds valid for this
   * audience (KEP-6060 webhook tokens; ./webhook_token.ts). Default: no token asked.
   */
  tokenAudience?: string;
}

/**
 * Builds the webhook server for `webhooks`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { createCA } from "../http/pki.ts";
 * import { startRunnable } from "../manager/runnable.ts";
 * import { CoreTypes } from "../types.ts";
 * import { createWebhookServer } from "./setup.ts";
 * import { denied } from "./admission.ts";
 * import { Webhook } from "./webhook.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * type Cm = { metadata: { name?: string }; data?: Record<string, string> };
 * const configMaps = new Webhook<Cm>(CoreTypes.ConfigMap)
 *   .validate(({ object }) => object?.data?.bad ? denied("data.bad: not allowed") : undefined);
 * // --webhook-cert-dir: a certificate from cert-manager; without certDir the server manages its own CA.
 * const ca = await createCA({ commonName: "example-ca" });
 * const leaf = await ca.issue({ commonName: "webhook", hosts: ["127.0.0.1"], usage: "server" });
 * const certDir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${certDir}/tls.crt`, leaf.certPEM);
 * await Deno.writeTextFile(`${certDir}/tls.key`, leaf.keyPEM);
 * const server = createWebhookServer({ webhooks: [configMaps], client, certDir, bindAddress: "127.0.0.1:0" });
 * const stop = new AbortController();
 * const run = startRunnable(server, stop.signal); // in an operator: manager.add(server)
 * await run.ready;
 * assert.match(server.url ?? "", /^https:\/\/127\.0\.0\.1:\d+$/);
 * stop.abort();
 * await run.done;
 * client.close();
 * await cluster.stop();
 * await Deno.remove(certDir, { recursive: true });
 * ```
 */
export function createWebhookServer(opts: WebhookSetupOptions): WebhookServer {
  const namespace = opts.namespace ?? WEBHOOK_DEFAULTS.namespace;
  const serviceName = opts.serviceName ?? WEBHOOK_DEFAULTS.serviceName;
  const targets = caBundleTargets(opts.webhooks, opts.configurationNames);
  const certificates = opts.certDir
    ? new CertDirSource({ dir: opts.certDir, clock: opts.clock, logger: opts.logger?.getChild("certs") })
    : new SelfManagedCerts({
      client: opts.client,
      namespace,
      serviceName,
      clock: opts.clock,
      logger: opts.logger?.getChild("certs"),
      injectCaBundle: async (pem, signal) => void await injectCaBundle(opts.client, targets, pem, { signal }),
    });
  const verifier = opts.tokenAudience === undefined ? undefined : new WebhookTokenVerifier({
    client: opts.client,
    audience: opts.tokenAudience,
    clock: opts.clock ?? new RealClock(),
    metrics: opts.metrics ? authMetrics(opts.metrics.registry) : undefined,
    logger: opts.logger,
  });
  return new WebhookServer({
    bindAddress: opts.bindAddress ?? ":9443",
    certificates,
    routes: webhookRoutes(opts.webhooks),
    metrics: opts.metrics,
    clock: opts.clock,
    logger: opts.logger,
    clientCAFile: opts.clientCAFile,
    authenticate: opts.tokenAudience === undefined ? undefined : (head) => verifier!.verify(head),
  });
}
