/**
 * autoscaling/v1 HorizontalPodAutoscalers, stored as autoscaling/v2 (one object, two served versions), converted as
 * kube-apiserver v1.37 converts them (pkg/apis/autoscaling/v1/conversion.go, defaults.go):
 *
 * - v1 `spec.targetCPUUtilizationPercentage` is the v2 CPU `Utilization` resource metric (v1 → v2: the metric, last
 *   after the annotation's; v2 → v1: the first CPU resource metric's averageUtilization); a v1 object without any
 *   metric gets the 80 % CPU metric; `minReplicas` defaults to 1;
 * - `status.currentCPUUtilizationPercentage` is the CPU resource metric's current averageUtilization;
 * - what v1 cannot express travels in annotations, in v1's JSON form: the other metrics
 *   (`autoscaling.alpha.kubernetes.io/metrics`), all current metrics (`.../current-metrics`), the conditions
 *   (`.../conditions`) and the behavior (`.../behavior`, Go's internal struct marshalled without JSON tags: Go field
 *   names); reading v1 writes them, writing v1 reads and removes them.
 * @module
 */
import type { StorageConversion } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** The annotations that carry v2 fields through autoscaling/v1 (kube's round-trip annotations). */
export const HPA_ANNOTATIONS = {
  metrics: "autoscaling.alpha.kubernetes.io/metrics",
  currentMetrics: "autoscaling.alpha.kubernetes.io/current-metrics",
  conditions: "autoscaling.alpha.kubernetes.io/conditions",
  behavior: "autoscaling.alpha.kubernetes.io/behavior",
  scaleDownTolerance: "autoscaling.alpha.kubernetes.io/scale-down-tolerance",
  scaleUpTolerance: "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
} as const;

const isObject = (v: unknown): v is Record<string, Any> => typeof v === "object" && v !== null && !Array.isArray(v);
const objectOr = (v: unknown): Record<string, Any> => isObject(v) ? v : {};
const present = (v: unknown) => v !== undefined && v !== null;

/** Copies `from[key]` to `to[as]` when set (Go: an omitempty pointer). */
function copyIf(to: Record<string, Any>, as: string, from: Record<string, Any>, key = as): void {
  if (present(from[key])) to[as] = from[key];
}

/** A Go `resource.Quantity` that is not a pointer: its zero value encodes as "0". */
const quantity = (v: unknown) => present(v) ? v : "0";

function crossVersionRef(ref: unknown): Record<string, Any> {
  const r = objectOr(ref);
  const out: Record<string, Any> = { kind: r.kind ?? "", name: r.name ?? "" };
  if (r.apiVersion) out.apiVersion = r.apiVersion;
  return out;
}

function isCpuResource(metric: Any): boolean {
  return isObject(metric) && metric.type === "Resource" && isObject(metric.resource) && metric.resource.name === "cpu";
}

// ---- v2 → v1 -------------------------------------------------------------------------------------------------

function metricSpecToV1(m: Any): Record<string, Any> {
  const out: Record<string, Any> = { type: m.type ?? "" };
  if (isObject(m.object)) {
    const target = objectOr(m.object.target);
    const v: Record<string, Any> = {
      target: crossVersionRef(m.object.describedObject),
      metricName: objectOr(m.object.metric).name ?? "",
      targetValue: quantity(target.value),
    };
    copyIf(v, "selector", objectOr(m.object.metric));
    copyIf(v, "averageValue", target);
    out.object = v;
  }
  if (isObject(m.pods)) {
    const v: Record<string, Any> = {
      metricName: objectOr(m.pods.metric).name ?? "",
      targetAverageValue: quantity(objectOr(m.pods.target).averageValue),
    };
    copyIf(v, "selector", objectOr(m.pods.metric));
    out.pods = v;
  }
  for (const key of ["resource", "containerResource"]) {
    if (!isObject(m[key])) continue;
    const target = objectOr(m[key].target);
    const v: Record<string, Any> = { name: m[key].name ?? "" };
    copyIf(v, "targetAverageUtilization", target, "averageUtilization");
    copyIf(v, "targetAverageValue", target, "averageValue");
    if (key === "containerResource") v.container = m[key].container ?? "";
    out[key] = v;
  }
  if (isObject(m.external)) {
    const target = objectOr(m.external.target);
    const metric = objectOr(m.external.metric);
    const v: Record<string, Any> = { metricName: metric.name ?? "" };
    copyIf(v, "metricSelector", metric, "selector");
    copyIf(v, "targetValue", target, "value");
    copyIf(v, "targetAverageValue", target, "averageValue");
    out.external = v;
  }
  return out;
}

function metricStatusToV1(m: Any): Record<string, Any> {
  const out: Record<string, Any> = { type: m.type ?? "" };
  if (isObject(m.object)) {
    const current = objectOr(m.object.current);
    const v: Record<string, Any> = {
      target: crossVersionRef(m.object.describedObject),
      metricName: objectOr(m.object.metric).name ?? "",
      currentValue: quantity(current.value),
    };
    copyIf(v, "selector", objectOr(m.object.metric));
    copyIf(v, "averageValue", current);
    out.object = v;
  }
  if (isObject(m.pods)) {
    const v: Record<string, Any> = {
      metricName: objectOr(m.pods.metric).name ?? "",
      currentAverageValue: quantity(objectOr(m.pods.current).averageValue),
    };
    copyIf(v, "selector", objectOr(m.pods.metric));
    out.pods = v;
  }
  for (const key of ["resource", "containerResource"]) {
    if (!isObject(m[key])) continue;
    const current = objectOr(m[key].current);
    const v: Record<string, Any> = { name: m[key].name ?? "" };
    copyIf(v, "currentAverageUtilization", current, "averageUtilization");
    v.currentAverageValue = quantity(current.averageValue);
    if (key === "containerResource") v.container = m[key].container ?? "";
    out[key] = v;
  }
  if (isObject(m.external)) {
    const current = objectOr(m.external.current);
    const metric = objectOr(m.external.metric);
    const v: Record<string, Any> = { metricName: metric.name ?? "" };
    copyIf(v, "metricSelector", metric, "selector");
    v.currentValue = quantity(current.value);
    copyIf(v, "currentAverageValue", current, "averageValue");
    out.external = v;
  }
  return out;
}

function conditionToV1(c: Any): Record<string, Any> {
  const r = objectOr(c);
  const out: Record<string, Any> = {
    type: r.type ?? "",
    status: r.status ?? "",
    lastTransitionTime: r.lastTransitionTime ?? null,
  };
  if (r.reason) out.reason = r.reason;
  if (r.message) out.message = r.message;
  return out;
}

/** Go's JSON of the internal HorizontalPodAutoscalerBehavior (no JSON tags: Go field names, nil as null). */
function behaviorToGo(behavior: Record<string, Any>): Record<string, Any> {
  const rules = (r: unknown) =>
    !isObject(r) ? null : {
      StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
      SelectPolicy: r.selectPolicy ?? null,
      Policies: Array.isArray(r.policies)
        ? r.policies.map((p: Any) => ({
          Type: objectOr(p).type ?? "",
          Value: objectOr(p).value ?? 0,
          PeriodSeconds: objectOr(p).periodSeconds ?? 0,
        }))
        : null,
      Tolerance: r.tolerance ?? null,
    };
  return { ScaleUp: rules(behavior.scaleUp), ScaleDown: rules(behavior.scaleDown) };
}

/** The annotations without kube's round-trip ones (a copy), or undefined when none is left. */
function withoutRoundTrip(annotations: unknown): Record<string, string> | undefined {
  if (!isObject(annotations)) return undefined;
  const out: Record<string, string> = { ...annotations };
  for (const key of Object.values(HPA_ANNOTATIONS)) delete out[key];
  return Object.keys(out).length ? out : undefined;
}

/**
 * A stored autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 serves it (a new object; nested values shared).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hpaV2ToV1 } from "./hpa_v1_conversion.ts";
 * const v1 = hpaV2ToV1({ apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "a" },
 *   spec: { maxReplicas: 3, metrics: [{ type: "Resource",
 *     resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 55 } } }] } });
 * assert.equal(v1.spec.targetCPUUtilizationPercentage, 55);
 * ```
 */
export function hpaV2ToV1(obj: KubeObject): KubeObject {
  const spec = objectOr(obj.spec);
  const status = objectOr(obj.status);
  const metrics: Any[] = Array.isArray(spec.metrics) ? spec.metrics : [];
  const currentMetrics: Any[] = Array.isArray(status.currentMetrics) ? status.currentMetrics : [];
  const conditions: Any[] = Array.isArray(status.conditions) ? status.conditions : [];
  const v1Spec: Record<string, Any> = { scaleTargetRef: crossVersionRef(spec.scaleTargetRef) };
  copyIf(v1Spec, "minReplicas", spec);
  v1Spec.maxReplicas = spec.maxReplicas ?? 0;
  const cpu = metrics.find(isCpuResource);
  if (cpu && present(cpu.resource.target?.averageUtilization)) {
    v1Spec.targetCPUUtilizationPercentage = cpu.resource.target.averageUtilization;
  }
  const v1Status: Record<string, Any> = {};
  copyIf(v1Status, "observedGeneration", status);
  copyIf(v1Status, "lastScaleTime", status);
  v1Status.currentReplicas = status.currentReplicas ?? 0;
  v1Status.desiredReplicas = status.desiredReplicas ?? 0;
  for (const m of currentMetrics) {
    if (isCpuResource(m) && present(m.resource.current?.averageUtilization)) {
      v1Status.currentCPUUtilizationPercentage = m.resource.current.averageUtilization;
    }
  }
  const annotations: Record<string, string> = withoutRoundTrip(obj.metadata?.annotations) ?? {};
  const others = metrics.filter((m) => !(isCpuResource(m) && present(m.resource.target?.averageUtilization)));
  if (others.length) annotations[HPA_ANNOTATIONS.metrics] = JSON.stringify(others.map(metricSpecToV1));
  if (currentMetrics.length) {
    annotations[HPA_ANNOTATIONS.currentMetrics] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  }
  if (conditions.length) annotations[HPA_ANNOTATIONS.conditions] = JSON.stringify(conditions.map(conditionToV1));
  if (isObject(spec.behavior)) annotations[HPA_ANNOTATIONS.behavior] = JSON.stringify(behaviorToGo(spec.behavior));
  const metadata = { ...obj.metadata };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  const out: KubeObject = { ...obj, apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", metadata };
  out.spec = v1Spec;
  out.status = v1Status;
  return out;
}

// ---- v1 → v2 -------------------------------------------------------------------------------------------------

function identifier(src: Record<string, Any>, selectorKey: string): Record<string, Any> {
  const out: Record<string, Any> = { name: src.metricName ?? "" };
  copyIf(out, "selector", src, selectorKey);
  return out;
}

function metricSpecToV2(m: Any): Record<string, Any> {
  const r = objectOr(m);
  const out: Record<string, Any> = { type: r.type ?? "" };
  if (isObject(r.object)) {
    const o = r.object;
    const target: Record<string, Any> = { type: present(o.averageValue) ? "AverageValue" : "Value" };
    target.value = quantity(o.targetValue);
    copyIf(target, "averageValue", o);
    out.object = { describedObject: crossVersionRef(o.target), target, metric: identifier(o, "selector") };
  }
  if (isObject(r.pods)) {
    out.pods = {
      metric: identifier(r.pods, "selector"),
      target: { type: "AverageValue", averageValue: quantity(r.pods.targetAverageValue) },
    };
  }
  for (const key of ["resource", "containerResource"]) {
    if (!isObject(r[key])) continue;
    const s = r[key];
    const target: Record<string, Any> = { type: present(s.targetAverageUtilization) ? "Utilization" : "AverageValue" };
    copyIf(target, "averageUtilization", s, "targetAverageUtilization");
    copyIf(target, "averageValue", s, "targetAverageValue");
    out[key] = key === "containerResource"
      ? { name: s.name ?? "", target, container: s.container ?? "" }
      : { name: s.name ?? "", target };
  }
  if (isObject(r.external)) {
    const e = r.external;
    const target: Record<string, Any> = { type: present(e.targetValue) ? "Value" : "AverageValue" };
    copyIf(target, "value", e, "targetValue");
    copyIf(target, "averageValue", e, "targetAverageValue");
    out.external = { metric: identifier(e, "metricSelector"), target };
  }
  return out;
}

function metricStatusToV2(m: Any): Record<string, Any> {
  const r = objectOr(m);
  const out: Record<string, Any> = { type: r.type ?? "" };
  if (isObject(r.object)) {
    const o = r.object;
    const current: Record<string, Any> = { value: quantity(o.currentValue) };
    copyIf(current, "averageValue", o);
    out.object = { metric: identifier(o, "selector"), current, describedObject: crossVersionRef(o.target) };
  }
  if (isObject(r.pods)) {
    out.pods = {
      metric: identifier(r.pods, "selector"),
      current: { averageValue: quantity(r.pods.currentAverageValue) },
    };
  }
  for (const key of ["resource", "containerResource"]) {
    if (!isObject(r[key])) continue;
    const s = r[key];
    const current: Record<string, Any> = { averageValue: quantity(s.currentAverageValue) };
    copyIf(current, "averageUtilization", s, "currentAverageUtilization");
    out[key] = key === "containerResource"
      ? { name: s.name ?? "", current, container: s.container ?? "" }
      : { name: s.name ?? "", current };
  }
  if (isObject(r.external)) {
    const e = r.external;
    const current: Record<string, Any> = { value: quantity(e.currentValue) };
    copyIf(current, "averageValue", e, "currentAverageValue");
    out.external = { metric: identifier(e, "metricSelector"), current };
  }
  return out;
}

/** A key of a Go-marshalled struct, read as encoding/json reads it: exactly, else ignoring case. */
function goField(obj: Record<string, Any>, name: string): Any {
  if (name in obj) return obj[name];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

function behaviorFromGo(raw: unknown): Record<string, Any> | undefined {
  if (!isObject(raw)) return undefined;
  const rules = (r: unknown) => {
    if (!isObject(r)) return undefined;
    const out: Record<string, Any> = {};
    const set = (as: string, v: unknown) => present(v) && (out[as] = v);
    set("stabilizationWindowSeconds", goField(r, "StabilizationWindowSeconds"));
    set("selectPolicy", goField(r, "SelectPolicy"));
    const policies = goField(r, "Policies");
    if (Array.isArray(policies)) {
      out.policies = policies.map((p) => ({
        type: goField(objectOr(p), "Type") ?? "",
        value: goField(objectOr(p), "Value") ?? 0,
        periodSeconds: goField(objectOr(p), "PeriodSeconds") ?? 0,
      }));
    }
    set("tolerance", goField(r, "Tolerance"));
    return out;
  };
  const out: Record<string, Any> = {};
  const up = rules(goField(raw, "ScaleUp"));
  const down = rules(goField(raw, "ScaleDown"));
  if (up) out.scaleUp = up;
  if (down) out.scaleDown = down;
  return Object.keys(out).length ? out : undefined;
}

/** The JSON an annotation holds, or undefined when it is absent or not JSON. */
function annotationJson(annotations: Record<string, Any>, key: string): Any {
  const text = annotations[key];
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * An autoscaling/v1 HorizontalPodAutoscaler (a request body, v1's defaults applied) as the autoscaling/v2 object it
 * is stored as; the round-trip annotations are read and removed. A new object; nested values shared.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hpaV1ToV2 } from "./hpa_v1_conversion.ts";
 * const v2 = hpaV1ToV2({ apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", metadata: { name: "a" },
 *   spec: { scaleTargetRef: { kind: "Deployment", name: "a" }, maxReplicas: 3 } });
 * assert.equal(v2.spec.minReplicas, 1);
 * assert.equal(v2.spec.metrics[0].resource.target.averageUtilization, 80);
 * ```
 */
export function hpaV1ToV2(obj: KubeObject): KubeObject {
  const spec = objectOr(obj.spec);
  const status = objectOr(obj.status);
  const annotations = objectOr(obj.metadata?.annotations);
  const v2Spec: Record<string, Any> = { ...spec };
  delete v2Spec.targetCPUUtilizationPercentage;
  v2Spec.minReplicas ??= 1; // SetDefaults_HorizontalPodAutoscaler (v1)
  let metrics: Any[] = [];
  if (present(spec.targetCPUUtilizationPercentage)) {
    metrics.push({
      type: "Resource",
      resource: {
        name: "cpu",
        target: { type: "Utilization", averageUtilization: spec.targetCPUUtilizationPercentage },
      },
    });
  }
  const others = annotationJson(annotations, HPA_ANNOTATIONS.metrics);
  if (Array.isArray(others)) metrics = [...others.map(metricSpecToV2), ...metrics];
  if (metrics.length === 0) {
    metrics.push({
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
    });
  }
  v2Spec.metrics = metrics;
  const behavior = behaviorFromGo(annotationJson(annotations, HPA_ANNOTATIONS.behavior));
  if (behavior) v2Spec.behavior = behavior;
  const v2Status: Record<string, Any> = {};
  copyIf(v2Status, "observedGeneration", status);
  copyIf(v2Status, "lastScaleTime", status);
  if (status.currentReplicas) v2Status.currentReplicas = status.currentReplicas;
  v2Status.desiredReplicas = status.desiredReplicas ?? 0;
  if (present(status.currentCPUUtilizationPercentage)) {
    v2Status.currentMetrics = [{
      type: "Resource",
      resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } },
    }];
  }
  const current = annotationJson(annotations, HPA_ANNOTATIONS.currentMetrics);
  if (Array.isArray(current)) v2Status.currentMetrics = current.map(metricStatusToV2);
  const conditions = annotationJson(annotations, HPA_ANNOTATIONS.conditions);
  if (Array.isArray(conditions)) v2Status.conditions = conditions;
  const out: KubeObject = { ...obj, apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler" };
  if (isObject(obj.metadata)) {
    out.metadata = { ...obj.metadata };
    const kept = withoutRoundTrip(obj.metadata.annotations);
    if (kept) out.metadata.annotations = kept;
    else if (obj.metadata.annotations !== undefined) delete out.metadata.annotations;
  }
  out.spec = v2Spec;
  out.status = v2Status;
  return out;
}

/** autoscaling/v1 HorizontalPodAutoscalers stored as autoscaling/v2. */
export const HPA_V1_CONVERSION: StorageConversion = {
  storageApiVersion: "autoscaling/v2",
  toStorage: hpaV1ToV2,
  fromStorage: hpaV2ToV1,
  fieldSelector: (selector) => selector,
};
