/**
 * Conformance cases: what kube-apiserver v1.37 refuses in an admissionregistration.k8s.io/v1 webhook configuration
 * (pkg/apis/admissionregistration/validation), each refused alone with its 422 message.
 * @module
 */
import assert from "node:assert/strict";
import { call, type Json } from "./crd_helpers.ts";
import { VWC } from "./admission_webhooks_support.ts";
import type { ConformanceCase } from "./support.ts";

const valid = (ns: string): Json => ({
  name: `valid.${ns}.conformance.kubeop.dev`,
  clientConfig: { url: "https://127.0.0.1:1/x" },
  rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
});

export const admissionConfigurationCases: ConformanceCase[] = [
  {
    name: "invalid webhook configurations: sideEffects, name, timeoutSeconds, url scheme, admissionReviewVersions",
    run: async ({ client, ns }) => {
      const name = `${ns}-invalid`;
      const refusals: Array<[string, (hook: Json) => void, string]> = [
        [
          "no sideEffects",
          (h) => delete h.sideEffects,
          "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
        ],
        [
          "sideEffects Some",
          (h) => h.sideEffects = "Some",
          'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        ],
        [
          "short name",
          (h) => h.name = "short.name",
          'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots',
        ],
        [
          "timeout 31",
          (h) => h.timeoutSeconds = 31,
          "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        ],
        [
          "http url",
          (h) => h.clientConfig = { url: "http://127.0.0.1:1/x" },
          `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
        ],
        [
          "no admissionReviewVersions",
          (h) => delete h.admissionReviewVersions,
          "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
        ],
        [
          "url and service",
          (h) => h.clientConfig = { url: "https://a.example/x", service: { name: "s", namespace: ns } },
          "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
        ],
      ];
      for (const [what, change, detail] of refusals) {
        const hook = valid(ns);
        change(hook);
        const got = await call(client, "POST", VWC, { metadata: { name }, webhooks: [hook] }, "?dryRun=All");
        assert.equal(got.code, 422, `${what}: ${JSON.stringify(got.body)}`);
        assert.equal(
          got.body.message,
          `ValidatingWebhookConfiguration.admissionregistration.k8s.io "${name}" is invalid: ${detail}`,
          what,
        );
      }
      const ok = await call(client, "POST", VWC, { metadata: { name }, webhooks: [valid(ns)] }, "?dryRun=All");
      assert.equal(ok.code, 201, JSON.stringify(ok.body));
    },
  },
];
