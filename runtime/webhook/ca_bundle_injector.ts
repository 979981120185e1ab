/**
 * Writes the webhook CA bundle where kube-apiserver reads it (cert-manager's cainjector, done by the operator
 * itself): `webhooks[*].clientConfig.caBundle` of the Validating/MutatingWebhookConfigurations kubeop owns and
 * `spec.conversion.webhook.clientConfig.caBundle` of its CRDs whose conversion strategy is Webhook — each named
 * explicitly, never found by label, so kubeop never touches another operator's configuration. An object that does
 * not exist (yet) is skipped; one already carrying the bundle is not written; a conflict is retried on a fresh read.
 * @module
 */
import type { KubeClient } from "../client/client.ts";
import { isConflict, isNotFound } from "../client/errors.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../types.ts";

/** admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration. */
export const VALIDATING_WEBHOOK_CONFIGURATIONS: ResourceType = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "validatingwebhookconfigurations",
  kind: "ValidatingWebhookConfiguration",
  namespaced: false,
};

/** admissionregistration.k8s.io/v1 MutatingWebhookConfiguration. */
export const MUTATING_WEBHOOK_CONFIGURATIONS: ResourceType = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "mutatingwebhookconfigurations",
  kind: "MutatingWebhookConfiguration",
  namespaced: false,
};

/** The objects that get the bundle, by name. */
export interface CaBundleTargets {
  /** ValidatingWebhookConfiguration names. */
  validating?: string[];
  /** MutatingWebhookConfiguration names. */
  mutating?: string[];
  /** CRD names (`widgets.example.com`) whose conversion webhook kubeop serves. */
  crds?: string[];
}

/** Base64 of a PEM bundle, as `caBundle` holds it. */
export function encodeCaBundle(pem: string): string {
  return btoa(pem);
}

type Setter = (obj: KubeObject, caBundle: string) => boolean;

/** Sets every webhook's caBundle; true when something changed. */
const setWebhooks: Setter = (obj, caBundle) => {
  let changed = false;
  for (const hook of (obj as { webhooks?: { clientConfig?: { caBundle?: string } }[] }).webhooks ?? []) {
    hook.clientConfig ??= {};
    if (hook.clientConfig.caBundle !== caBundle) {
      hook.clientConfig.caBundle = caBundle;
      changed = true;
    }
  }
  return changed;
};

/** Sets the CRD's conversion webhook caBundle when its strategy is Webhook; true when something changed. */
const setConversion: Setter = (obj, caBundle) => {
  const conversion = (obj as {
    spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } };
  }).spec?.conversion;
  if (conversion?.strategy !== "Webhook") return false;
  conversion.webhook ??= {};
  conversion.webhook.clientConfig ??= {};
  if (conversion.webhook.clientConfig.caBundle === caBundle) return false;
  conversion.webhook.clientConfig.caBundle = caBundle;
  return true;
};

/**
 * Injects `caBundlePEM` into `targets`; returns `kind/name` of every object written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { createCA } from "../http/pki.ts";
 * import { CoreTypes, type KubeObject } from "../types.ts";
 * import { encodeCaBundle, injectCaBundle, VALIDATING_WEBHOOK_CONFIGURATIONS } from "./ca_bundle_injector.ts";
 * import { caBundleTargets, webhookConfigurations } from "./manifests.ts";
 * import { denied } from "./admission.ts";
 * import { Webhook } from "./webhook.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * type Cm = { metadata: { name?: string }; data?: Record<string, string> };
 * const configMaps = new Webhook<Cm>(CoreTypes.ConfigMap)
 *   .validate(({ object }) => object?.data?.bad ? denied("data.bad: not allowed") : undefined);
 * const [validating] = webhookConfigurations([configMaps]); // as `kubectl apply -k deploy/` installs it
 * await client.create(VALIDATING_WEBHOOK_CONFIGURATIONS, validating);
 * const ca = await createCA({ commonName: "example-ca" });
 * const written = await injectCaBundle(client, caBundleTargets([configMaps]), ca.certPEM);
 * assert.equal(written.length, 1);
 * const stored = await client.get<KubeObject & { webhooks: { clientConfig: { caBundle?: string } }[] }>(
 *   VALIDATING_WEBHOOK_CONFIGURATIONS,
 *   validating.metadata.name!,
 * );
 * assert.equal(stored.webhooks[0].clientConfig.caBundle, encodeCaBundle(ca.certPEM));
 * client.close();
 * await cluster.stop();
 * ```
 */
export async function injectCaBundle(
  client: KubeClient,
  targets: CaBundleTargets,
  caBundlePEM: string,
  opts: { signal?: AbortSignal } = {},
): Promise<string[]> {
  const caBundle = encodeCaBundle(caBundlePEM);
  const written: string[] = [];
  const work: [ResourceType, string[], Setter][] = [
    [VALIDATING_WEBHOOK_CONFIGURATIONS, targets.validating ?? [], setWebhooks],
    [MUTATING_WEBHOOK_CONFIGURATIONS, targets.mutating ?? [], setWebhooks],
    [CoreTypes.CustomResourceDefinition, targets.crds ?? [], setConversion],
  ];
  for (const [rt, names, set] of work) {
    for (const name of names) {
      if (await injectOne(client, rt, name, caBundle, set, opts.signal)) written.push(`${rt.kind}/${name}`);
    }
  }
  return written;
}

async function injectOne(
  client: KubeClient,
  rt: ResourceType,
  name: string,
  caBundle: string,
  set: Setter,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  for (let attempt = 1;; attempt++) {
    let obj: KubeObject;
    try {
      obj = await client.get(rt, name, { signal });
    } catch (err) {
      if (isNotFound(err)) return false;
      throw new Error(`caBundle injection: reading ${rt.kind} ${name}: ${(err as Error).message}`);
    }
    if (!set(obj, caBundle)) return false;
    try {
      await client.update(rt, obj, { signal });
      return true;
    } catch (err) {
      if (isConflict(err) && attempt < 5) continue;
      if (isNotFound(err)) return false;
      throw new Error(`caBundle injection: updating ${rt.kind} ${name}: ${(err as Error).message}`);
    }
  }
}
