/**
 * Conformance cases: HorizontalPodAutoscaler validation and defaults (pkg/apis/autoscaling/validation and v2's
 * SetDefaults; found by comparing 50 HPA bodies against v1.37.2: the fake accepted 26 that kube refuses). Each
 * invalid spec is 422 with kube's causes in kube's order (the hand-written checks, then the declarative ones); a v2
 * `behavior` is completed from kube's scaling rules, a null one left out, quantities stored as kube's decoder writes
 * them; a status write may not make the counts negative; a v1 write is judged in the stored v2 form, its behavior
 * before kube's defaults complete it (they apply when the stored object is read).
 * @module
 */
import assert from "node:assert/strict";
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";
import { assertCauses } from "./status_assert.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const collection = (version: "v1" | "v2", ns: string) =>
  `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers`;
const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const hpa = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name },
  spec,
});
const resource = (name: string, target: Record<string, unknown>) => ({ type: "Resource", resource: { name, target } });

/** Invalid specs and kube's causes for them, `field: message` in order (v1.37.2's answers). */
const INVALID: Array<[what: string, spec: Record<string, unknown>, causes: string[]]> = [
  ["negative maxReplicas", { scaleTargetRef: ref, maxReplicas: -1 }, [
    "spec.maxReplicas: Invalid value: -1: must be greater than or equal to `minReplicas`",
    "spec.maxReplicas: Invalid value: -1: must be greater than or equal to 1",
  ]],
  ["negative minReplicas", { scaleTargetRef: ref, minReplicas: -1, maxReplicas: 3 }, [
    "spec.minReplicas: Invalid value: -1: must be greater than or equal to 0",
  ]],
  ["scale to zero on resource metrics", { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 3 }, [
    "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
  ]],
  ["a core apiVersion for a Deployment", { scaleTargetRef: { ...ref, apiVersion: "v1" }, maxReplicas: 3 }, [
    'spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group',
  ]],
  ["a reference that is no path segment", {
    scaleTargetRef: { apiVersion: "x/y/z", name: "web%" },
    minReplicas: 4,
    maxReplicas: -2,
    metrics: [resource("cpu", { type: "Utilization", averageUtilization: -5 })],
    behavior: { scaleUp: { policies: [{ type: "Pods", value: -1, periodSeconds: 15 }] } },
  }, [
    "spec.maxReplicas: Invalid value: -2: must be greater than or equal to `minReplicas`",
    "spec.scaleTargetRef.kind: Required value",
    "spec.scaleTargetRef.name: Invalid value: \"web%\": may not contain '%'",
    'spec.scaleTargetRef.apiVersion: Invalid value: "x/y/z": unexpected GroupVersion string: x/y/z',
    "spec.metrics[0].resource.target.averageUtilization: Invalid value: -5: must be greater than 0",
    "spec.behavior.scaleUp.policies[0].value: Invalid value: -1: must be greater than zero",
    "spec.maxReplicas: Invalid value: -2: must be greater than or equal to 1",
  ]],
  ["a bad target type and a negative value", {
    scaleTargetRef: ref,
    maxReplicas: 3,
    metrics: [resource("cpu", { type: "Bogus", averageValue: "-1" })],
  }, [
    'spec.metrics[0].resource.target.type: Invalid value: "Bogus": must be either Utilization, Value, or AverageValue',
    'spec.metrics[0].resource.target.averageValue: Invalid value: "-1": must be positive',
  ]],
  ["an empty metric", { scaleTargetRef: ref, maxReplicas: 3, metrics: [{}] }, [
    "spec.metrics[0].type: Required value: must specify a metric source type",
    'spec.metrics[0].type: Unsupported value: "": supported values: "ContainerResource", "External", "Object", "Pods", ' +
    '"Resource"',
  ]],
  ["two sources in one metric", {
    scaleTargetRef: ref,
    maxReplicas: 3,
    metrics: [{
      type: "Pods",
      pods: { metric: { name: "" }, target: { type: "Value", value: "0" } },
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 5 } },
    }],
  }, [
    "spec.metrics[0].pods.metric.name: Required value: must specify a metric name",
    'spec.metrics[0].pods.target.value: Invalid value: "0": must be positive',
    "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue",
    "spec.metrics[0].resource: Forbidden: must populate the given metric source only",
  ]],
  ["an External target with both values", {
    scaleTargetRef: ref,
    maxReplicas: 3,
    metrics: [{
      type: "External",
      external: { metric: { name: "q" }, target: { type: "Value", value: "1", averageValue: "2" } },
    }],
  }, [
    "spec.metrics[0].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
  ]],
  ["a container resource that is not one", {
    scaleTargetRef: ref,
    maxReplicas: 3,
    metrics: [{
      type: "ContainerResource",
      containerResource: { name: "pods", container: "Bad_Name", target: { type: "Utilization" } },
    }],
  }, [
    'spec.metrics[0].containerResource.name: Invalid value: "pods": must be a standard resource for containers',
    'spec.metrics[0].containerResource.container: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist ' +
    "of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. " +
    "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    "spec.metrics[0].containerResource.target.averageUtilization: Required value: must set either a target raw value " +
    "or a target utilization",
  ]],
  ["scaling rules out of range", {
    scaleTargetRef: ref,
    maxReplicas: 3,
    behavior: {
      scaleUp: { stabilizationWindowSeconds: -1, selectPolicy: "Sometimes", policies: [], tolerance: "-1" },
      scaleDown: {
        stabilizationWindowSeconds: 4000,
        policies: [{ type: "Nodes", value: 0, periodSeconds: 0 }, { type: "Pods", value: 1, periodSeconds: 1801 }],
      },
    },
  }, [
    "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
    'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Sometimes": supported values: "Disabled", "Max", "Min"',
    "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
    'spec.behavior.scaleUp.tolerance: Invalid value: "-1": must be greater than or equal to 0',
    "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
    'spec.behavior.scaleDown.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"',
    "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
    "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 0: must be greater than zero",
    "spec.behavior.scaleDown.policies[1].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
  ]],
];

const SCALE_UP = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [{ type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }],
};
const SCALE_DOWN = { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };

export const hpaValidationCases: ConformanceCase[] = [
  {
    name: "an invalid HPA spec is 422 with kube's causes, in kube's order",
    async run({ noRetry, ns }) {
      for (const [i, [what, spec, causes]] of INVALID.entries()) {
        const res = await sendBody(noRetry, "POST", collection("v2", ns), hpa(`hpa-invalid-${i}`, spec));
        assertCauses(res, causes, what);
        const list = causes.length === 1 ? causes[0] : `[${causes.join(", ")}]`;
        assert.equal(res.json.message, `HorizontalPodAutoscaler.autoscaling "hpa-invalid-${i}" is invalid: ${list}`);
      }
    },
  },
  {
    name:
      "a v2 HPA's behavior is completed from kube's scaling rules; a null one is left out; quantities as kube writes them",
    async run({ noRetry, ns }) {
      const create = async (name: string, spec: Record<string, unknown>) => {
        const res = await sendBody(noRetry, "POST", collection("v2", ns), hpa(name, spec));
        assert.equal(res.code, 201, JSON.stringify(res.json));
        return res.json.spec;
      };
      assert.deepEqual(
        (await create("hpa-behavior-empty", { scaleTargetRef: ref, maxReplicas: 3, behavior: {} })).behavior,
        {
          scaleUp: SCALE_UP,
          scaleDown: SCALE_DOWN,
        },
      );
      const given = await create("hpa-behavior-given", {
        scaleTargetRef: ref,
        maxReplicas: 3,
        behavior: {
          scaleUp: { selectPolicy: "Disabled", tolerance: "0.05" },
          scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
        },
      });
      assert.deepEqual(given.behavior, {
        scaleUp: { ...SCALE_UP, selectPolicy: "Disabled", tolerance: "50m" },
        scaleDown: {
          stabilizationWindowSeconds: 300,
          selectPolicy: "Max",
          policies: [{ type: "Pods", value: 1, periodSeconds: 60 }],
        },
      });
      const none = await create("hpa-behavior-null", {
        scaleTargetRef: ref,
        maxReplicas: 3,
        behavior: null,
        metrics: [{
          type: "Object",
          object: {
            describedObject: { apiVersion: "v1", kind: "Service", name: "s" },
            metric: { name: "rps" },
            target: { type: "AverageValue", averageValue: "0.5" },
          },
        }],
      });
      assert.ok(!("behavior" in none), JSON.stringify(none));
      assert.equal(none.metrics[0].object.target.averageValue, "500m");
      // Go's struct order: describedObject, target, metric.
      assert.deepEqual(Object.keys(none.metrics[0].object), ["describedObject", "target", "metric"]);
    },
  },
  {
    name: "an HPA update is validated as a create; its status write may not make the counts negative",
    async run({ noRetry, ns }) {
      const path = `${collection("v2", ns)}/hpa-update`;
      const created = await sendBody(
        noRetry,
        "POST",
        collection("v2", ns),
        hpa("hpa-update", { scaleTargetRef: ref, maxReplicas: 3 }),
      );
      assert.equal(created.code, 201, JSON.stringify(created.json));
      const patch = (body: unknown, sub = "") =>
        sendBody(noRetry, "PATCH", `${path}${sub}`, body, "application/merge-patch+json");
      const spec = await patch({ spec: { maxReplicas: 0, scaleTargetRef: { name: "a/b" } } });
      assertCauses(spec, [
        "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
        "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'",
        "spec.maxReplicas: Required value",
      ]);
      const status = await patch({ status: { currentReplicas: -1, desiredReplicas: -2 } }, "/status");
      assertCauses(status, [
        "status.currentReplicas: Invalid value: -1: must be greater than or equal to 0",
        "status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0",
      ]);
      const ok = await patch({ status: { currentReplicas: 2, desiredReplicas: 3 } }, "/status");
      assert.equal(ok.code, 200, JSON.stringify(ok.json));
    },
  },
  {
    name:
      "a v1 HPA is judged in the stored v2 form; its behavior annotation is validated before kube's defaults, read with them",
    async run({ noRetry, ns }) {
      const v1 = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
        apiVersion: "autoscaling/v1",
        kind: "HorizontalPodAutoscaler",
        metadata: { name, annotations },
        spec,
      });
      const zero = await sendBody(
        noRetry,
        "POST",
        collection("v1", ns),
        v1("hpa-v1-zero", { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 0 }),
      );
      assertCauses(zero, [
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
      ]);
      // Go's JSON of the internal behavior (field names, no tags): kube validates a v1 write's rules as sent and
      // completes them when it decodes the stored v2 object.
      const withBehavior = (name: string, scaleUp: Record<string, unknown>) =>
        sendBody(
          noRetry,
          "POST",
          collection("v1", ns),
          v1(name, { scaleTargetRef: ref, maxReplicas: 3 }, {
            "autoscaling.alpha.kubernetes.io/behavior": JSON.stringify({ ScaleUp: scaleUp }),
          }),
        );
      const partial = await withBehavior("hpa-v1-partial", { StabilizationWindowSeconds: 10 });
      assertCauses(partial, [
        "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
      ]);
      const policy = { Type: "Pods", Value: 2, PeriodSeconds: 30 };
      const created = await withBehavior("hpa-v1-behavior", { StabilizationWindowSeconds: 10, Policies: [policy] });
      assert.equal(created.code, 201, JSON.stringify(created.json));
      const read = await sendBody(noRetry, "GET", `${collection("v2", ns)}/hpa-v1-behavior`);
      assert.deepEqual(read.json.spec.behavior, {
        scaleUp: {
          stabilizationWindowSeconds: 10,
          selectPolicy: "Max",
          policies: [{ type: "Pods", value: 2, periodSeconds: 30 }],
        },
        scaleDown: SCALE_DOWN,
      });
    },
  },
];
