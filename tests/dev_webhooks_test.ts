// `kubeop dev` serves the seed webhooks on 127.0.0.1 and registers them by URL: Netperf's validating webhook refuses a
// missing Node, and At v1beta1 is served through kubeop's conversion webhook (over HTTP, as kubectl would call it).
import assert from "node:assert/strict";
import { startDev } from "../cli/dev.ts";
import { AT_V1BETA1, type AtV1beta1 } from "../controllers/at/conversion.ts";
import { type At, AtType } from "../controllers/at/schema.ts";
import { MultiSecretType } from "../controllers/multisecret/schema.ts";
import { NetperfType } from "../controllers/netperf/schema.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { ApiError } from "../runtime/client/errors.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { VALIDATING_WEBHOOK_CONFIGURATIONS } from "../runtime/webhook/ca_bundle_injector.ts";

const AtV1beta1Type = { ...AtType, version: "v1beta1" };

Deno.test({
  name: "kubeop dev: Netperf's webhook refuses a missing Node, MultiSecret's defaults secretName, At v1beta1 converts",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubeop-dev-webhooks-" });
    const dev = await startDev({ kubeconfigOut: `${dir}/dev.kubeconfig`, kubelet: false });
    const client = new KubeClient({ config: await parseKubeconfig(dev.server.kubeconfig) });
    try {
      const config = await client.get(VALIDATING_WEBHOOK_CONFIGURATIONS, "kubeop-validating-webhook-configuration");
      const hooks =
        (config as unknown as { webhooks: { clientConfig: { url?: string; caBundle?: string } }[] }).webhooks;
      assert.match(String(hooks[0].clientConfig.url), /^https:\/\/127\.0\.0\.1:\d+\/validate-/);
      assert.ok(hooks[0].clientConfig.caBundle, "the in-memory CA is the caBundle");

      const bad: KubeObject = {
        apiVersion: "app.example.com/v1alpha1",
        kind: "Netperf",
        metadata: { name: "bad-node", namespace: "default" },
        spec: { serverNode: "no-such-node" },
      };
      const refused = await client.create(NetperfType, bad).then(() => undefined, (e) => e);
      assert.ok(refused instanceof ApiError, String(refused));
      assert.equal(refused.status.code, 422);
      assert.equal(
        refused.status.message,
        'admission webhook "vnetperf.app.example.com" denied the request: spec.serverNode: Node "no-such-node" not found',
      );
      // A Node that exists: admitted.
      await client.create(CoreTypes.Node, { metadata: { name: "node-a" } });
      await client.create(NetperfType, {
        ...bad,
        metadata: { name: "good", namespace: "default" },
        spec: { serverNode: "node-a" },
      });

      // MultiSecret's mutating webhook: spec.secretName defaults to the MultiSecret's name.
      const ms = await client.create(MultiSecretType, {
        apiVersion: "multi.ddnw.ml/v1alpha1",
        kind: "MultiSecret",
        metadata: { name: "creds", namespace: "default" },
        spec: { stringData: { password: "s3cr3t" } },
      });
      assert.equal((ms.spec as { secretName?: string }).secretName, "creds");

      // v1alpha1 manifests apply unchanged; v1beta1 reads them as argv.
      const at: At = {
        apiVersion: "cnat.ishankhare.dev/v1alpha1",
        kind: "At",
        metadata: { name: "later", namespace: "default" },
        spec: { schedule: "2999-01-01T00:00:00Z", command: "echo hello  world" },
      };
      await client.create(AtType, at);
      const beta = await client.get<AtV1beta1>(AtV1beta1Type, "later", { namespace: "default" });
      assert.equal(beta.apiVersion, AT_V1BETA1);
      assert.deepEqual(beta.spec.command, ["echo", "hello", "world"]);
      const list = await client.list<AtV1beta1>(AtV1beta1Type, { namespace: "default" });
      assert.deepEqual(list.items.map((i) => [i.apiVersion, i.spec.command]), [[AT_V1BETA1, [
        "echo",
        "hello",
        "world",
      ]]]);

      // Written as v1beta1 with an argument holding spaces: stored as v1alpha1, read back as written.
      const argv: AtV1beta1 = {
        apiVersion: AT_V1BETA1,
        kind: "At",
        metadata: { name: "argv", namespace: "default" },
        spec: { schedule: "2999-01-01T00:00:00Z", command: ["sh", "-c", "echo a  b"] },
      };
      await client.create(AtV1beta1Type, argv as unknown as KubeObject);
      const alpha = await client.get<At>(AtType, "argv", { namespace: "default" });
      assert.equal(alpha.spec.command, "sh -c echo a  b");
      const back = await client.get<AtV1beta1>(AtV1beta1Type, "argv", { namespace: "default" });
      assert.deepEqual(back.spec.command, ["sh", "-c", "echo a  b"]);

      // kubectl picks the preferred version: v1beta1, whose reads go through the webhook `kubeop dev` serves.
      const group = await client.request("GET", "/apis/cnat.ishankhare.dev");
      assert.equal(JSON.parse(new TextDecoder().decode(group.body)).preferredVersion.version, "v1beta1");
      const crd = await client.get(CoreTypes.CustomResourceDefinition, "ats.cnat.ishankhare.dev");
      const stanza = (crd.spec as { conversion: { strategy: string; webhook: { clientConfig: { url: string } } } })
        .conversion;
      assert.equal(stanza.strategy, "Webhook");
      assert.match(stanza.webhook.clientConfig.url, /^https:\/\/127\.0\.0\.1:\d+\/convert$/);
    } finally {
      client.close();
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
