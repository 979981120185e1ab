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
 * ```ts ignore
 * const server = createWebhookServer({ webhooks: [netperfWebhook()], client, metrics: manager.metrics });
 * manager.add(server);
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
