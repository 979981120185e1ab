/**
 * Conformance cases: HorizontalPodAutoscalers served as autoscaling/v1 and autoscaling/v2, one stored object (found by
 * the differential battery, tests/differential/: the fake answered 404 for every autoscaling/v1 request). An object
 * written in one version reads in the other: v1's `targetCPUUtilizationPercentage` is v2's CPU Utilization metric,
 * the metrics, current metrics, conditions and behavior v1 cannot express travel in `autoscaling.alpha.kubernetes.io/*`
 * annotations (and are not stored as annotations; a v1 watch sees the same), v1 writes are recorded in managedFields as autoscaling/v1, a v1
 * status write reaches v2's currentMetrics, Tables print the same row through both, a strict patch quotes the stored
 * object in Go's field order, a v1 apply conflicts with a v2 manager as compared in the v2 form, and an HPA without spec is 422 in kube's words through both.
 * @module
 */
import assert from "node:assert/strict";
import { boundedWatch, sendBody, TABLE_ACCEPT } from "./support.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const METRICS = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior";

const collection = (version: "v1" | "v2", ns: string) =>
  `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers`;
const ref = (name: string) => ({ apiVersion: "apps/v1", kind: "Deployment", name });
const cpu = (averageUtilization: number) => ({
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization } },
});
const memory = {
  type: "Resource",
  resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } },
};

export const hpaVersionCases: ConformanceCase[] = [
  {
    name: "an HPA created in v1 reads in v2: the CPU target is the Utilization metric, minReplicas 1, v1 managedFields",
    async run({ noRetry, ns }) {
      const body = {
        apiVersion: "autoscaling/v1",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "hpa-v1" },
        spec: { scaleTargetRef: ref("web"), maxReplicas: 4, targetCPUUtilizationPercentage: 70 },
      };
      const created = await sendBody(noRetry, "POST", collection("v1", ns), body, "application/json", {
        fieldManager: "conf",
      });
      assert.equal(created.code, 201, JSON.stringify(created.json));
      assert.deepEqual(created.json.spec, {
        scaleTargetRef: ref("web"),
        minReplicas: 1,
        maxReplicas: 4,
        targetCPUUtilizationPercentage: 70,
      });
      assert.deepEqual(created.json.status, { currentReplicas: 0, desiredReplicas: 0 });
      assert.equal(created.json.metadata.annotations, undefined);
      const [entry] = created.json.metadata.managedFields;
      assert.deepEqual([entry.manager, entry.apiVersion], ["conf", "autoscaling/v1"]);
      // v1's CrossVersionObjectReference is an atomic struct.
      assert.deepEqual(entry.fieldsV1["f:spec"], {
        "f:maxReplicas": {},
        "f:minReplicas": {},
        "f:scaleTargetRef": {},
        "f:targetCPUUtilizationPercentage": {},
      });
      const v2 = await sendBody(noRetry, "GET", `${collection("v2", ns)}/hpa-v1`);
      assert.equal(v2.code, 200, JSON.stringify(v2.json));
      assert.equal(v2.json.apiVersion, "autoscaling/v2");
      assert.deepEqual(v2.json.spec.metrics, [cpu(70)]);
      assert.equal(v2.json.spec.minReplicas, 1);
      assert.equal(v2.json.metadata.managedFields[0].apiVersion, "autoscaling/v1");
      // Without a CPU target, v1 gets kube's 80 % default metric.
      const plain = await sendBody(noRetry, "POST", collection("v1", ns), {
        ...body,
        metadata: { name: "hpa-v1-default" },
        spec: { scaleTargetRef: ref("web"), maxReplicas: 2 },
      });
      assert.equal(plain.code, 201, JSON.stringify(plain.json));
      assert.equal(plain.json.spec.targetCPUUtilizationPercentage, 80);
    },
  },
  {
    name: "an HPA created in v2 reads in v1: other metrics and the behavior go to annotations, and back on a v1 update",
    async run({ noRetry, ns }) {
      const behavior = {
        scaleDown: {
          stabilizationWindowSeconds: 60,
          selectPolicy: "Max",
          policies: [{ type: "Pods", value: 2, periodSeconds: 30 }],
        },
      };
      const created = await sendBody(noRetry, "POST", collection("v2", ns), {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "hpa-v2", annotations: { keep: "me" } },
        spec: { scaleTargetRef: ref("api"), maxReplicas: 5, metrics: [memory, cpu(50)], behavior },
      });
      assert.equal(created.code, 201, JSON.stringify(created.json));
      // A v1 watch sees it converted too.
      const watched = await boundedWatch(noRetry, collection("v1", ns), {
        watch: "true",
        resourceVersion: "0",
        fieldSelector: "metadata.name=hpa-v2",
        timeoutSeconds: 1,
      });
      assert.deepEqual(
        watched.events.map((e) => [e.type, e.object.apiVersion, e.object.spec.targetCPUUtilizationPercentage]),
        [["ADDED", "autoscaling/v1", 50]],
      );
      const v1 = await sendBody(noRetry, "GET", `${collection("v1", ns)}/hpa-v2`);
      assert.equal(v1.code, 200, JSON.stringify(v1.json));
      assert.equal(v1.json.apiVersion, "autoscaling/v1");
      assert.equal(v1.json.spec.targetCPUUtilizationPercentage, 50);
      const annotations = v1.json.metadata.annotations;
      assert.equal(annotations.keep, "me");
      assert.deepEqual(JSON.parse(annotations[METRICS]), [
        { type: "Resource", resource: { name: "memory", targetAverageValue: "100Mi" } },
      ]);
      const goBehavior = JSON.parse(annotations[BEHAVIOR]);
      assert.equal(goBehavior.ScaleDown.StabilizationWindowSeconds, 60);
      assert.deepEqual(goBehavior.ScaleDown.Policies, [{ Type: "Pods", Value: 2, PeriodSeconds: 30 }]);
      // A v1 client writes the object back: the annotations restore the metrics and behavior, and are not stored.
      const put = await sendBody(noRetry, "PUT", `${collection("v1", ns)}/hpa-v2`, {
        ...v1.json,
        spec: { ...v1.json.spec, maxReplicas: 6 },
      });
      assert.equal(put.code, 200, JSON.stringify(put.json));
      const v2 = await sendBody(noRetry, "GET", `${collection("v2", ns)}/hpa-v2`);
      assert.deepEqual(v2.json.spec.metrics, [memory, cpu(50)]);
      assert.equal(v2.json.spec.maxReplicas, 6);
      assert.equal(v2.json.spec.behavior.scaleDown.stabilizationWindowSeconds, 60);
      assert.deepEqual(v2.json.metadata.annotations, { keep: "me" });
      // A v1 write that changes the CPU target keeps the other metric, the CPU one last.
      const patched = await sendBody(
        noRetry,
        "PATCH",
        `${collection("v1", ns)}/hpa-v2`,
        { spec: { targetCPUUtilizationPercentage: 65 } },
        "application/merge-patch+json",
      );
      assert.equal(patched.code, 200, JSON.stringify(patched.json));
      const after = await sendBody(noRetry, "GET", `${collection("v2", ns)}/hpa-v2`);
      assert.deepEqual(after.json.spec.metrics, [memory, cpu(65)]);
    },
  },
  {
    name: "a v1 status write reaches v2's currentMetrics; v2's status and conditions read in v1 and its annotations",
    async run({ noRetry, ns }) {
      const path = `${collection("v1", ns)}/hpa-v1`;
      const current = await sendBody(noRetry, "GET", path);
      assert.equal(current.code, 200, JSON.stringify(current.json));
      const status = { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 40 };
      const put = await sendBody(noRetry, "PUT", `${path}/status`, { ...current.json, status });
      assert.equal(put.code, 200, JSON.stringify(put.json));
      assert.deepEqual(put.json.status, status);
      assert.deepEqual(
        JSON.parse(put.json.metadata.annotations[CURRENT]),
        [{ type: "Resource", resource: { name: "cpu", currentAverageUtilization: 40, currentAverageValue: "0" } }],
      );
      const v2 = await sendBody(noRetry, "GET", `${collection("v2", ns)}/hpa-v1/status`);
      assert.deepEqual(v2.json.status.currentMetrics, [
        { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 40 } } },
      ]);
      assert.equal(v2.json.status.desiredReplicas, 3);
      assert.equal(v2.json.spec.maxReplicas, 4);
      // v2 conditions read in v1 as the conditions annotation.
      const condition = {
        type: "AbleToScale",
        status: "True",
        lastTransitionTime: "2026-01-02T03:04:05Z",
        reason: "ReadyForNewScale",
      };
      const withConditions = await sendBody(
        noRetry,
        "PATCH",
        `${collection("v2", ns)}/hpa-v1/status`,
        { status: { conditions: [condition] } },
        "application/merge-patch+json",
      );
      assert.equal(withConditions.code, 200, JSON.stringify(withConditions.json));
      const v1 = await sendBody(noRetry, "GET", path);
      assert.deepEqual(JSON.parse(v1.json.metadata.annotations[CONDITIONS]), [condition]);
    },
  },
  {
    name: "Tables of HPAs print the same columns and row through autoscaling/v1 and autoscaling/v2",
    async run({ noRetry, ns }) {
      const rows: unknown[][] = [];
      for (const version of ["v1", "v2"] as const) {
        const res = await noRetry.request("GET", `${collection(version, ns)}/hpa-v2`, { accept: TABLE_ACCEPT });
        const table = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 200, JSON.stringify(table));
        assert.deepEqual(table.columnDefinitions.map((c: Any) => c.name), [
          "Name",
          "Reference",
          "Targets",
          "MinPods",
          "MaxPods",
          "Replicas",
          "Age",
        ]);
        rows.push(table.rows[0].cells.slice(0, 6));
      }
      assert.deepEqual(rows[0], ["hpa-v2", "Deployment/api", "memory: <unknown>/100Mi, cpu: <unknown>/65%", "1", 6, 0]);
      assert.deepEqual(rows[1], rows[0]);
    },
  },
  {
    name: "a strict merge patch of an HPA quotes the stored object with spec and status in Go's field order",
    async run({ noRetry, ns }) {
      const created = await sendBody(noRetry, "POST", collection("v2", ns), {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "hpa-strict" },
        spec: { maxReplicas: 3, scaleTargetRef: { name: "db", apiVersion: "apps/v1", kind: "StatefulSet" } },
      });
      assert.equal(created.code, 201, JSON.stringify(created.json));
      const res = await sendBody(
        noRetry,
        "PATCH",
        `${collection("v2", ns)}/hpa-strict`,
        { bogusField: 1 },
        "application/merge-patch+json",
        { fieldValidation: "Strict" },
      );
      assert.equal(res.code, 422, JSON.stringify(res.json));
      const quoted = JSON.parse(
        res.json.message.slice(res.json.message.indexOf('"{'), res.json.message.lastIndexOf('}"') + 2),
      );
      const stored = JSON.parse(quoted);
      assert.deepEqual(Object.keys(stored.spec), ["scaleTargetRef", "minReplicas", "maxReplicas", "metrics"]);
      assert.deepEqual(Object.keys(stored.spec.scaleTargetRef), ["kind", "name", "apiVersion"]);
      assert.deepEqual(Object.keys(stored.status), ["desiredReplicas", "currentMetrics"]);
    },
  },
  {
    name: "a v1 apply of the CPU target conflicts with the v2 manager of spec.metrics (compared in its version)",
    async run({ noRetry, ns }) {
      const created = await sendBody(
        noRetry,
        "POST",
        collection("v2", ns),
        {
          apiVersion: "autoscaling/v2",
          kind: "HorizontalPodAutoscaler",
          metadata: { name: "hpa-apply" },
          spec: { scaleTargetRef: ref("apply"), maxReplicas: 3, metrics: [cpu(50)] },
        },
        "application/json",
        { fieldManager: "v2-writer" },
      );
      assert.equal(created.code, 201, JSON.stringify(created.json));
      const applied = {
        apiVersion: "autoscaling/v1",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "hpa-apply" },
        spec: { scaleTargetRef: ref("apply"), maxReplicas: 3, targetCPUUtilizationPercentage: 60 },
      };
      const path = `${collection("v1", ns)}/hpa-apply`;
      const apply = (force: boolean) =>
        sendBody(noRetry, "PATCH", path, applied, "application/apply-patch+yaml", {
          fieldManager: "v1-applier",
          ...(force ? { force: "true" } : {}),
        });
      const refused = await apply(false);
      assert.equal(refused.code, 409, JSON.stringify(refused.json));
      assert.equal(
        refused.json.message,
        'Apply failed with 1 conflict: conflict with "v2-writer" using autoscaling/v2: .spec.metrics',
      );
      const forced = await apply(true);
      assert.equal(forced.code, 200, JSON.stringify(forced.json));
      assert.equal(forced.json.spec.targetCPUUtilizationPercentage, 60);
      const writer = forced.json.metadata.managedFields.find((e: Any) => e.manager === "v2-writer");
      assert.equal(writer.fieldsV1["f:spec"]["f:metrics"], undefined, JSON.stringify(writer));
    },
  },
  {
    name: "an HPA without spec is 422 through both versions, in kube's words",
    async run({ noRetry, ns }) {
      for (const version of ["v1", "v2"] as const) {
        const res = await sendBody(noRetry, "POST", collection(version, ns), {
          apiVersion: `autoscaling/${version}`,
          kind: "HorizontalPodAutoscaler",
          metadata: { name: `hpa-nospec-${version}` },
        });
        assert.equal(res.code, 422, JSON.stringify(res.json));
        assert.equal(
          res.json.message,
          `HorizontalPodAutoscaler.autoscaling "hpa-nospec-${version}" is invalid: [spec.maxReplicas: Invalid value: 0: ` +
            "must be greater than or equal to `minReplicas`, spec.scaleTargetRef.kind: Required value, " +
            'spec.scaleTargetRef.name: Required value, spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion ' +
            "must specify API group, spec.maxReplicas: Required value]",
        );
      }
    },
  },
];
