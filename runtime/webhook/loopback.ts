/**
 * Webhooks served on loopback and registered by URL: a {@link WebhookServer} on `127.0.0.1` with a serving certificate
 * signed by a CA held only in memory, and the Validating/MutatingWebhookConfigurations and converting CRDs pointed at
 * it with `clientConfig.url` and that CA as `caBundle`. For an API server on the same host — `kubeop dev`'s, or a
 * test's kube-apiserver — which cannot reach a Service; in a cluster use ./setup.ts (Service, Secret-held CA).
 * @module
 */
import type { KubeClient } from "../client/client.ts";
import { isAlreadyExists } from "../client/errors.ts";
import type { Logger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import { createCA } from "../http/pki.ts";
import { startRunnable } from "../manager/runnable.ts";
import { CoreTypes, type KubeObject } from "../types.ts";
import {
  encodeCaBundle,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "./ca_bundle_injector.ts";
import { convertingCrdNames, crdConversion, webhookConfigurations, type WebhookServiceRef } from "./manifests.ts";
import { WebhookServer } from "./server.ts";
import { type RegisteredWebhook, webhookRoutes } from "./webhook.ts";

/** Options of {@link startLoopbackWebhooks}. */
export interface LoopbackWebhookOptions {
  /** The webhooks to serve and register. */
  webhooks: readonly RegisteredWebhook[];
  /** Writes the configurations and the CRDs' conversion stanzas. */
  client: Pick<KubeClient, "get" | "create" | "update">;
  /** Port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  /** The registry of the webhook metrics (default: a private one). */
  metrics?: Metrics;
  /** Default `kubeop.webhook`. */
  logger?: Logger;
}

/** Running loopback webhooks. */
export interface LoopbackWebhooks {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** The in-memory CA that signed the serving certificate (what the configurations trust). */
  readonly caPEM: string;
  /** Stops the server (the configurations stay; a later start re-registers them). */
  stop(): Promise<void>;
}

/**
 * Points kube-apiserver at webhooks by URL: creates or replaces kubeop's Validating/MutatingWebhookConfigurations for
 * `webhooks` with `clientConfig.url` and `caBundle` from `ref`, and sets the conversion stanza of each converting
 * kind's CRD (which must exist). Returns `kind/name` of each object written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { createCA } from "../http/pki.ts";
 * import { CoreTypes } from "../types.ts";
 * import { encodeCaBundle } from "./ca_bundle_injector.ts";
 * import { registerWebhooks } from "./loopback.ts";
 * import { denied } from "./admission.ts";
 * import { Webhook } from "./webhook.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * type Cm = { metadata: { name?: string }; data?: Record<string, string> };
 * const configMaps = new Webhook<Cm>(CoreTypes.ConfigMap)
 *   .validate(({ object }) => object?.data?.bad ? denied("data.bad: not allowed") : undefined);
 * const ca = await createCA({ commonName: "example-ca" }); // the CA of the server listening on :9443
 * const caBundle = encodeCaBundle(ca.certPEM);
 * const written = await registerWebhooks(client, [configMaps], { url: "https://127.0.0.1:9443", caBundle });
 * assert.deepEqual(written, ["ValidatingWebhookConfiguration/kubeop-validating-webhook-configuration"]);
 * client.close();
 * await cluster.stop();
 * ```
 */
export async function registerWebhooks(
  client: Pick<KubeClient, "get" | "create" | "update">,
  webhooks: readonly RegisteredWebhook[],
  ref: WebhookServiceRef,
): Promise<string[]> {
  const written: string[] = [];
  for (const config of webhookConfigurations(webhooks, ref)) {
    const rt = config.kind === "ValidatingWebhookConfiguration"
      ? VALIDATING_WEBHOOK_CONFIGURATIONS
      : MUTATING_WEBHOOK_CONFIGURATIONS;
    try {
      await client.create(rt, config);
    } catch (err) {
      if (!isAlreadyExists(err)) {
        throw new Error(`registering ${config.kind} ${config.metadata.name}: ${(err as Error).message}`);
      }
      const current = await client.get(rt, config.metadata.name!);
      await client.update(rt, {
        ...config,
        metadata: { ...config.metadata, resourceVersion: current.metadata.resourceVersion },
      });
    }
    written.push(`${config.kind}/${config.metadata.name}`);
  }
  for (const name of convertingCrdNames(webhooks)) {
    const crd = await client.get(CoreTypes.CustomResourceDefinition, name) as KubeObject & {
      spec: { conversion?: unknown };
    };
    crd.spec.conversion = crdConversion(ref);
    try {
      await client.update(CoreTypes.CustomResourceDefinition, crd);
    } catch (err) {
      throw new Error(`registering the conversion webhook of CRD ${name}: ${(err as Error).message}`);
    }
    written.push(`CustomResourceDefinition/${name}`);
  }
  return written;
}

/**
 * Serves `webhooks` on 127.0.0.1 with an in-memory CA and registers them by URL; resolves once kube-apiserver can
 * call them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes } from "../types.ts";
 * import { startLoopbackWebhooks } from "./loopback.ts";
 * import { denied } from "./admission.ts";
 * import { Webhook } from "./webhook.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * type Cm = { metadata: { name?: string }; data?: Record<string, string> };
 * const configMaps = new Webhook<Cm>(CoreTypes.ConfigMap)
 *   .validate(({ object }) => object?.data?.bad ? denied("data.bad: not allowed") : undefined);
 * const hooks = await startLoopbackWebhooks({ webhooks: [configMaps], client }); // served and registered
 * const bad = { metadata: { name: "x", namespace: "default" }, data: { bad: "yes" } };
 * await assert.rejects(client.create(CoreTypes.ConfigMap, bad), /data\.bad: not allowed/); // the API server asked it
 * await hooks.stop();
 * client.close();
 * await cluster.stop();
 * ```
 */
export async function startLoopbackWebhooks(opts: LoopbackWebhookOptions): Promise<LoopbackWebhooks> {
  const ca = await createCA({ commonName: "kubeop-loopback-webhook-ca", validityDays: 365 });
  const leaf = await ca.issue({ commonName: "kubeop-webhook", hosts: ["127.0.0.1"], usage: "server" });
  const server = new WebhookServer({
    bindAddress: `127.0.0.1:${opts.port ?? 0}`,
    certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
    routes: webhookRoutes(opts.webhooks),
    metrics: opts.metrics,
    logger: opts.logger,
  });
  const stopper = new AbortController();
  const running = startRunnable(server, stopper.signal);
  const stop = async () => {
    stopper.abort();
    await running.done.catch(() => {});
  };
  try {
    await running.ready;
    await registerWebhooks(opts.client, opts.webhooks, { url: server.url!, caBundle: encodeCaBundle(ca.certPEM) });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: server.url!, caPEM: ca.certPEM, stop };
}
