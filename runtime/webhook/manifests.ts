/**
 * The objects kube-apiserver needs to call registered webhooks, generated from the {@link Webhook}s themselves (as
 * controller-gen does from `+kubebuilder:webhook` markers): one ValidatingWebhookConfiguration and one
 * MutatingWebhookConfiguration whose entries point at the webhook Service, the CRD `spec.conversion` stanza of each
 * converting kind, and the names the CA bundle is injected into (./ca_bundle_injector.ts). `kubeop webhooks` prints
 * them; deploy/webhook/ is their output.
 * @module
 */
import type { KubeObject } from "../types.ts";
import type { CaBundleTargets } from "./ca_bundle_injector.ts";
import { CONVERSION_PATH, type RegisteredWebhook } from "./webhook.ts";

/** Where the webhooks are served. */
export interface WebhookServiceRef {
  /** The Service's name (default `kubeop-webhook`). */
  name?: string;
  /** The Service's namespace (default `kubeop-system`). */
  namespace?: string;
  /** The Service port (default 443; it targets the server's 9443). */
  port?: number;
  /**
   * Instead of the Service: the server's base URL (`https://127.0.0.1:9443`), each path appended — how `kubeop dev`
   * and the real-cluster tests register a webhook kube-apiserver reaches on loopback.
   */
  url?: string;
  /** Base64 PEM bundle to write into each clientConfig (default: none, injected at run time). */
  caBundle?: string;
  /** Name of the ValidatingWebhookConfiguration (default `kubeop-validating-webhook-configuration`). */
  validatingConfiguration?: string;
  /** Name of the MutatingWebhookConfiguration (default `kubeop-mutating-webhook-configuration`). */
  mutatingConfiguration?: string;
}

/** Default names of the generated configurations and Service. */
export const WEBHOOK_DEFAULTS = {
  validatingConfiguration: "kubeop-validating-webhook-configuration",
  mutatingConfiguration: "kubeop-mutating-webhook-configuration",
  serviceName: "kubeop-webhook",
  namespace: "kubeop-system",
  servicePort: 443,
} as const;

function clientConfig(ref: WebhookServiceRef, path: string): Record<string, unknown> {
  const caBundle = ref.caBundle ? { caBundle: ref.caBundle } : {};
  if (ref.url) return { url: `${ref.url.replace(/\/+$/, "")}${path}`, ...caBundle };
  return {
    service: {
      name: ref.name ?? WEBHOOK_DEFAULTS.serviceName,
      namespace: ref.namespace ?? WEBHOOK_DEFAULTS.namespace,
      path,
      port: ref.port ?? WEBHOOK_DEFAULTS.servicePort,
    },
    ...caBundle,
  };
}

/**
 * The Validating and MutatingWebhookConfigurations for `webhooks` (an empty kind is left out).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webhookConfigurations } from "./manifests.ts";
 * import { Webhook } from "./webhook.ts";
 * const rt = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };
 * const [validating] = webhookConfigurations([new Webhook(rt).validate(() => {})]);
 * assert.equal(validating.kind, "ValidatingWebhookConfiguration");
 * ```
 */
export function webhookConfigurations(
  webhooks: readonly RegisteredWebhook[],
  ref: WebhookServiceRef = {},
): KubeObject[] {
  const out: KubeObject[] = [];
  for (const type of ["validating", "mutating"] as const) {
    const entries = webhooks.flatMap((w) => w.admission()).filter((a) => a.type === type).map((a) => ({
      name: a.name,
      admissionReviewVersions: ["v1"],
      clientConfig: clientConfig(ref, a.path),
      failurePolicy: a.failurePolicy,
      sideEffects: a.sideEffects,
      timeoutSeconds: a.timeoutSeconds,
      matchPolicy: "Equivalent",
      rules: [{
        apiGroups: [a.resource.group],
        apiVersions: [a.resource.version],
        operations: a.operations,
        resources: [a.resource.plural],
        scope: a.resource.namespaced ? "Namespaced" : "Cluster",
      }],
      ...(type === "mutating" ? { reinvocationPolicy: "Never" } : {}),
    }));
    if (!entries.length) continue;
    out.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: type === "validating" ? "ValidatingWebhookConfiguration" : "MutatingWebhookConfiguration",
      metadata: {
        name: configurationName(type, ref),
        labels: { "app.kubernetes.io/name": "kubeop", "app.kubernetes.io/managed-by": "kubeop" },
      },
      webhooks: entries,
    });
  }
  return out;
}

/** The name of the `type` WebhookConfiguration: `ref`'s, else kubeop's default. */
function configurationName(type: "validating" | "mutating", ref: WebhookServiceRef): string {
  return type === "validating"
    ? ref.validatingConfiguration ?? WEBHOOK_DEFAULTS.validatingConfiguration
    : ref.mutatingConfiguration ?? WEBHOOK_DEFAULTS.mutatingConfiguration;
}

/** The `spec.conversion` of a converting kind's CRD (the caBundle is injected at run time). */
export function crdConversion(ref: WebhookServiceRef = {}): Record<string, unknown> {
  return {
    strategy: "Webhook",
    webhook: { conversionReviewVersions: ["v1"], clientConfig: clientConfig(ref, CONVERSION_PATH) },
  };
}

/** The CRD name (`<plural>.<group>`) of each converting kind. */
export function convertingCrdNames(webhooks: readonly RegisteredWebhook[]): string[] {
  return webhooks.filter((w) => w.conversion).map((w) => `${w.resource.plural}.${w.resource.group}`);
}

/** What the self-managed certificates inject the CA bundle into, for `webhooks` (configurations named as in `ref`). */
export function caBundleTargets(webhooks: readonly RegisteredWebhook[], ref: WebhookServiceRef = {}): CaBundleTargets {
  const types = new Set(webhooks.flatMap((w) => w.admission().map((a) => a.type)));
  return {
    validating: types.has("validating") ? [configurationName("validating", ref)] : [],
    mutating: types.has("mutating") ? [configurationName("mutating", ref)] : [],
    crds: convertingCrdNames(webhooks),
  };
}
