import assert from "node:assert/strict";
import { caBundleTargets, crdConversion, webhookConfigurations } from "./manifests.ts";
import { mutatePath, validatePath, Webhook, webhookRoutes } from "./webhook.ts";

const WIDGETS = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };
const GADGETS = { group: "tools.example.com", version: "v2", plural: "gadgets", kind: "Gadget", namespaced: false };

Deno.test("paths are those controller-runtime generates", () => {
  assert.equal(validatePath(WIDGETS), "/validate-example-com-v1-widget");
  assert.equal(mutatePath(GADGETS), "/mutate-tools-example-com-v2-gadget");
  assert.equal(validatePath({ ...WIDGETS, group: "", kind: "Pod" }), "/validate--v1-pod");
});

Deno.test("configurations list each kind's webhooks with its rules, service path and policies", () => {
  const webhooks = [
    new Webhook(WIDGETS).validate(() => {}).default(() => {}, { failurePolicy: "Ignore", timeoutSeconds: 5 }),
    new Webhook(GADGETS).validate(() => {}, { operations: ["CREATE", "UPDATE", "DELETE"] })
      .convert("tools.example.com/v2", []),
  ];
  const [validating, mutating] = webhookConfigurations(webhooks, { namespace: "ops" });
  assert.equal(validating.kind, "ValidatingWebhookConfiguration");
  const vhooks = validating.webhooks as Record<string, unknown>[];
  assert.deepEqual(vhooks.map((w) => w.name), ["vwidget.example.com", "vgadget.tools.example.com"]);
  assert.deepEqual(vhooks[1], {
    name: "vgadget.tools.example.com",
    admissionReviewVersions: ["v1"],
    clientConfig: {
      service: { name: "kubeop-webhook", namespace: "ops", path: "/validate-tools-example-com-v2-gadget", port: 443 },
    },
    failurePolicy: "Fail",
    sideEffects: "None",
    timeoutSeconds: 10,
    matchPolicy: "Equivalent",
    rules: [{
      apiGroups: ["tools.example.com"],
      apiVersions: ["v2"],
      operations: ["CREATE", "UPDATE", "DELETE"],
      resources: ["gadgets"],
      scope: "Cluster",
    }],
  });
  const mhooks = mutating.webhooks as Record<string, unknown>[];
  assert.equal(mutating.kind, "MutatingWebhookConfiguration");
  assert.deepEqual([mhooks.length, mhooks[0].failurePolicy, mhooks[0].timeoutSeconds], [1, "Ignore", 5]);
  assert.deepEqual(caBundleTargets(webhooks), {
    validating: ["kubeop-validating-webhook-configuration"],
    mutating: ["kubeop-mutating-webhook-configuration"],
    crds: ["gadgets.tools.example.com"],
  });
  assert.deepEqual(
    (crdConversion() as { webhook: { clientConfig: { service: { path: string } } } }).webhook.clientConfig.service.path,
    "/convert",
  );
});

Deno.test("no admission handlers, no configurations; a second webhook for one kind is refused", () => {
  assert.deepEqual(webhookConfigurations([new Webhook(WIDGETS)]), []);
  assert.throws(() => webhookRoutes([new Webhook(WIDGETS), new Webhook(WIDGETS)]), /registered twice/);
});

Deno.test("by URL: each path appended to the server's base URL, the caBundle written in", () => {
  const webhooks = [new Webhook(WIDGETS).validate(() => {}).convert("example.com/v1", [])];
  const ref = { url: "https://127.0.0.1:9443/", caBundle: "Q0E=" };
  const [validating] = webhookConfigurations(webhooks, ref);
  assert.deepEqual((validating.webhooks as { clientConfig: unknown }[])[0].clientConfig, {
    url: "https://127.0.0.1:9443/validate-example-com-v1-widget",
    caBundle: "Q0E=",
  });
  assert.deepEqual((crdConversion(ref) as { webhook: { clientConfig: unknown } }).webhook.clientConfig, {
    url: "https://127.0.0.1:9443/convert",
    caBundle: "Q0E=",
  });
});

Deno.test("an operator names its own configurations: generated and injected under the same names", () => {
  const webhooks = [new Webhook(WIDGETS).validate(() => {}).default(() => {})];
  const ref = { validatingConfiguration: "demo-validating", mutatingConfiguration: "demo-mutating" };
  assert.deepEqual(webhookConfigurations(webhooks, ref).map((c) => c.metadata.name), [
    "demo-validating",
    "demo-mutating",
  ]);
  assert.deepEqual(caBundleTargets(webhooks, ref), {
    validating: ["demo-validating"],
    mutating: ["demo-mutating"],
    crds: [],
  });
});
