/**
 * Conformance cases: ResourceQuota validation (pkg/apis/core/validation ValidateResourceQuota*; found by comparing 17
 * quotas against v1.37.2: the fake accepted every one kube refuses). A `hard` entry names a resource a quota may
 * limit and holds a non-negative amount, whole for counted resources; scopes and scope selectors are known, apply to
 * the limited resources and do not contradict each other; an update may not change the scopes; a status write's
 * `used` is checked as `hard` is.
 * @module
 */
import assert from "node:assert/strict";
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";
import { assertCauses } from "./status_assert.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const quota = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name },
  spec,
});
const EXISTS_ONLY = "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, " +
  "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or " +
  "ResourceQuotaScopeCrossNamespacePodAffinity";

/** Invalid quota specs and kube's causes for them (v1.37.2's answers; one `hard` entry each: Go map order). */
const INVALID: Array<[what: string, spec: Record<string, unknown>, causes: string[]]> = [
  ["a negative count", { hard: { pods: "-1" } }, [
    'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0',
  ]],
  ["a fractional count", { hard: { pods: "1.5" } }, ['spec.hard[pods]: Invalid value: "1500m": must be an integer']],
  ["an object count below a milli-unit, rounded first", { hard: { "count/configmaps": "100u" } }, [
    'spec.hard[count/configmaps]: Invalid value: "1m": must be an integer',
  ]],
  ["a fractional extended resource", { hard: { "example.com/gpu": "0.5" } }, [
    'spec.hard[example.com/gpu]: Invalid value: "500m": must be an integer',
  ]],
  ["a resource quotas do not limit", { hard: { storage: "1Gi" } }, [
    'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
  ]],
  ["an unknown resource", { hard: { foo: "1" } }, [
    'spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
    'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota',
  ]],
  ["conflicting scopes", { hard: { pods: "5" }, scopes: ["BestEffort", "NotBestEffort"] }, [
    'spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes',
  ]],
  ["a scope that does not apply", { hard: { cpu: "5" }, scopes: ["BestEffort"] }, [
    'spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource',
  ]],
  ["one error for several resources", {
    hard: { pods: "5", "requests.hugepages-2Mi": "1Gi", "hugepages-1Gi": "2Gi", "services.loadbalancers": "1" },
    scopes: ["NotTerminating"],
  }, ['spec.scopes: Invalid value: ["NotTerminating"]: unsupported scope applied to resource']],
  ["an unknown scope", { hard: { pods: "5" }, scopes: ["Whatever"] }, [
    'spec.scopes: Invalid value: ["Whatever"]: unsupported scope',
  ]],
  ["a selecting scope with In and no values", {
    hard: { pods: "5" },
    scopeSelector: { matchExpressions: [{ scopeName: "BestEffort", operator: "In", values: [] }] },
  }, [
    `spec.scopeSelector.matchExpressions.operator: Invalid value: "In": ${EXISTS_ONLY}`,
    "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is " +
    "'In' or 'NotIn' for scope selector",
  ]],
  ["bad selector expressions", {
    hard: { pods: "5" },
    scopeSelector: {
      matchExpressions: [
        { scopeName: "PriorityClass", operator: "Exists", values: ["a"] },
        { scopeName: "Nope", operator: "Foo" },
      ],
    },
  }, [
    'spec.scopeSelector.matchExpressions.values: Invalid value: ["a"]: must be no value when `operator` is ' +
    "'Exist' or 'DoesNotExist' for scope selector",
    'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Nope": unsupported scope',
    'spec.scopeSelector.matchExpressions.operator: Invalid value: "Foo": not a valid selector operator',
  ]],
  ["a selector scope that does not apply", {
    hard: { "requests.storage": "5Gi" },
    scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] },
  }, [
    "spec.scopeSelector.matchExpressions: Invalid value: " +
    '{"MatchExpressions":[{"ScopeName":"PriorityClass","Operator":"In","Values":["high"]}]}: ' +
    "unsupported scope applied to resource",
  ]],
];

export const resourceQuotaValidationCases: ConformanceCase[] = [
  {
    name: "an invalid ResourceQuota is 422 with kube's causes: resources, amounts, scopes, scope selectors",
    async run({ noRetry, ns }) {
      const path = `/api/v1/namespaces/${ns}/resourcequotas`;
      for (const [i, [what, spec, causes]] of INVALID.entries()) {
        const res = await sendBody(noRetry, "POST", path, quota(`rq-invalid-${i}`, spec), "application/json", {
          dryRun: "All",
        });
        assertCauses(res, causes, what);
      }
      const ok = await sendBody(
        noRetry,
        "POST",
        path,
        quota("rq-valid", {
          hard: { pods: "5", "requests.cpu": "2", "example.com/gpu": "4", "requests.nvidia.com/gpu": "2" },
          scopes: ["NotBestEffort"],
        }),
        "application/json",
        { dryRun: "All" },
      );
      assert.equal(ok.code, 201, JSON.stringify(ok.json)); // extended resources are not checked against scopes
    },
  },
  {
    name: "a ResourceQuota's scopes are immutable; its status write may not hold negative or fractional counts",
    async run({ noRetry, ns }) {
      const path = `/api/v1/namespaces/${ns}/resourcequotas`;
      const created = await sendBody(
        noRetry,
        "POST",
        path,
        quota("rq-scoped", { hard: { pods: "5" }, scopes: ["BestEffort"] }),
      );
      assert.equal(created.code, 201, JSON.stringify(created.json));
      // The quota would limit the other cases' pods in the shared namespace: it goes when the case ends.
      try {
        const patch = (body: unknown, sub = "") =>
          sendBody(noRetry, "PATCH", `${path}/rq-scoped${sub}`, body, "application/merge-patch+json");
        const scopes = await patch({ spec: { scopes: ["NotTerminating"] } });
        assertCauses(scopes, [
          'spec.scopes: Invalid value: ["NotTerminating"]: field is immutable',
        ]);
        const status = await patch({ status: { hard: { pods: "5" }, used: { pods: "0.5" } } }, "/status");
        assertCauses(status, ['status.used[pods]: Invalid value: "500m": must be an integer']);
        const fine = await patch({ status: { hard: { pods: "5" }, used: { pods: "2" } } }, "/status");
        assert.equal(fine.code, 200, JSON.stringify(fine.json));
      } finally {
        await sendBody(noRetry, "DELETE", `${path}/rq-scoped`);
      }
    },
  },
];
