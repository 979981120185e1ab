/**
 * Conformance cases: what kube-apiserver v1.37 refuses in an admissionregistration.k8s.io/v1 webhook configuration
 * (pkg/apis/admissionregistration/validation), each refused alone with its 422 message.
 * @module
 */
import assert from "node:assert/strict";
import { call, type Json } from "./crd_helpers.ts";
import { VWC } from "./admission_webhooks_support.ts";
import type { ConformanceCase } from "./support.ts";
import { causeTexts } from "./status_assert.ts";

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
  {
    name: "webhook rules, selectors and names in kube's order: operations, groups, versions, resources, scope",
    async run({ noRetry }) {
      const body = {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "conf-rules" },
        webhooks: [
          {
            name: "a.b.c",
            clientConfig: { url: "https://x" },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            reinvocationPolicy: "Always",
            namespaceSelector: { matchExpressions: [{ key: "k", operator: "In" }] },
            rules: [
              {
                operations: ["*", "CREATE"],
                apiGroups: ["*", "apps"],
                apiVersions: ["*", ""],
                resources: ["*/*", "pods"],
                scope: "World",
              },
              { operations: [], apiGroups: [], apiVersions: [], resources: [] },
              {
                operations: ["CREATE"],
                apiGroups: [""],
                apiVersions: ["v1"],
                resources: ["pods/*", "pods/log", "*", "deployments"],
              },
            ],
          },
          { name: "a.b.c", clientConfig: { url: "https://x" }, sideEffects: "None", admissionReviewVersions: ["v1"] },
        ],
      };
      const res = await noRetry.request("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
        body: JSON.stringify(body),
        query: { dryRun: "All" },
      });
      const status = JSON.parse(new TextDecoder().decode(res.body));
      assert.equal(res.status, 422, JSON.stringify(status));
      assert.deepEqual(causeTexts(status), [
        'webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations',
        'webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups',
        'webhooks[0].rules[0].apiVersions: Invalid value: ["*",""]: if \'*\' is present, must not specify other API versions',
        "webhooks[0].rules[0].apiVersions[1]: Required value",
        'webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if \'*/*\' is present, must not specify other resources',
        'webhooks[0].rules[0].scope: Unsupported value: "World": supported values: "*", "Cluster", "Namespaced"',
        "webhooks[0].rules[1].operations: Required value",
        "webhooks[0].rules[1].apiGroups: Required value",
        "webhooks[0].rules[1].apiVersions: Required value",
        "webhooks[0].rules[1].resources: Required value",
        "webhooks[0].rules[2].resources[1]: Invalid value: \"pods/log\": if 'pods/*' is present, must not specify pods/log",
        'webhooks[0].rules[2].resources: Invalid value: ["pods/*","pods/log","*","deployments"]: if \'*\' is present, ' +
        "must not specify other resources without subresources",
        "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is " +
        "'In' or 'NotIn'",
        'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
        'webhooks[1].name: Duplicate value: "a.b.c"',
      ]);
    },
  },
];
