import assert from "node:assert/strict";
import { startFakeApiServer } from "../../testing/mod.ts";
import { KubeClient } from "../client/client.ts";
import { CoreTypes, type KubeObject } from "../types.ts";
import {
  injectCaBundle,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "./ca_bundle_injector.ts";
import { crdConversion, webhookConfigurations } from "./manifests.ts";
import { Webhook } from "./webhook.ts";

type Hooks = KubeObject & { webhooks: { clientConfig: { caBundle?: string } }[] };
type Crd = KubeObject & {
  spec: Record<string, unknown> & { conversion?: { webhook?: { clientConfig?: { caBundle?: string } } } };
};

Deno.test("caBundle injection writes kubeop's named configurations and converting CRDs, and nothing else", async () => {
  const server = await startFakeApiServer({ anonymousAdmin: true });
  const client = new KubeClient({ config: { server: server.url } });
  try {
    const rt = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };
    const [validating, mutating] = webhookConfigurations([new Webhook(rt).validate(() => {}).default(() => {})]);
    await client.create(VALIDATING_WEBHOOK_CONFIGURATIONS, validating);
    await client.create(MUTATING_WEBHOOK_CONFIGURATIONS, mutating);
    const foreign = { ...validating, metadata: { name: "someone-elses" } };
    await client.create(VALIDATING_WEBHOOK_CONFIGURATIONS, foreign);
    // A CRD whose conversion is served by the webhook.
    const converting: Crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        }],
        conversion: crdConversion(),
      },
    };
    await client.create(CoreTypes.CustomResourceDefinition, converting);

    const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const targets = {
      validating: [validating.metadata.name!],
      mutating: [mutating.metadata.name!, "not-created-yet"],
      crds: [converting.metadata.name!],
    };
    const written = await injectCaBundle(client, targets, pem);
    assert.deepEqual(written.sort(), [
      `CustomResourceDefinition/${converting.metadata.name}`,
      `MutatingWebhookConfiguration/${mutating.metadata.name}`,
      `ValidatingWebhookConfiguration/${validating.metadata.name}`,
    ]);
    const bundle = btoa(pem);
    const vwc = await client.get<Hooks>(VALIDATING_WEBHOOK_CONFIGURATIONS, validating.metadata.name!);
    assert.equal(vwc.webhooks[0].clientConfig.caBundle, bundle);
    const mwc = await client.get<Hooks>(MUTATING_WEBHOOK_CONFIGURATIONS, mutating.metadata.name!);
    assert.equal(mwc.webhooks[0].clientConfig.caBundle, bundle);
    const crd = await client.get<Crd>(CoreTypes.CustomResourceDefinition, converting.metadata.name!);
    assert.equal(crd.spec.conversion?.webhook?.clientConfig?.caBundle, bundle);
    const untouched = await client.get<Hooks>(VALIDATING_WEBHOOK_CONFIGURATIONS, "someone-elses");
    assert.equal(untouched.webhooks[0].clientConfig.caBundle, undefined);
    // Already injected: nothing is written again.
    const rv = vwc.metadata.resourceVersion;
    assert.deepEqual(await injectCaBundle(client, targets, pem), []);
    assert.equal(
      (await client.get(VALIDATING_WEBHOOK_CONFIGURATIONS, validating.metadata.name!)).metadata.resourceVersion,
      rv,
    );
  } finally {
    client.close();
    await server.stop();
  }
});
