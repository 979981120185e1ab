/**
 * HorizontalPodAutoscaler validation as kube-apiserver v1.37 applies it (pkg/apis/autoscaling/validation, with the
 * registry's options and the declarative rules v1.37 enforces), on the stored autoscaling/v2 form — so a v1 request
 * is judged after its conversion, as kube judges the internal form. Causes come in kube's order: the hand-written
 * checks (`maxReplicas` against `minReplicas`, `scaleTargetRef`, `metrics`, `behavior`), then the declarative ones
 * that replaced their hand-written twins (`minReplicas` ≥ 0 — HPAScaleToZero is GA — and `maxReplicas` required,
 * ≥ 1). A status write checks only the status counts.
 * @module
 */
import { isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { dns1123LabelErrors, pathSegmentNameErrors } from "../../../runtime/apimachinery/names.ts";
import type { KubeObject } from "../../../runtime/types.ts";
import { formatQuantity, type Quantity, quantity } from "../resource_quantity.ts";
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, negativeFieldCauses } from "./field_errors.ts";
import { containerResourceNameErrors } from "./resource_names.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** What may be relaxed on an update (kube: validationOptionsForHorizontalPodAutoscaler). */
interface RefOptions {
  /** Skip the apiVersion check (an update that keeps the reference's apiVersion and kind). */
  allowInvalidApiVersion: boolean;
  /** A group-less apiVersion is fine (ReplicationController targets, metrics' described objects). */
  allowEmptyGroup: boolean;
}

const SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
/** A metric's source field per type, in the order kube checks which are present. */
const SOURCES: ReadonlyArray<[field: string, type: string]> = [
  ["object", "Object"],
  ["external", "External"],
  ["pods", "Pods"],
  ["resource", "Resource"],
  ["containerResource", "ContainerResource"],
];
const SELECT_POLICIES = ["Disabled", "Max", "Min"];
const POLICY_TYPES = ["Percent", "Pods"];
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

const present = (v: unknown) => v !== undefined && v !== null;

/** Causes for a create or update of an HPA's spec (`old`: the stored object of an update). */
export function validateHpaSpec(hpa: KubeObject, old?: KubeObject): StatusCause[] {
  const spec: Record<string, Any> = isPlainObject(hpa.spec) ? hpa.spec : {};
  const ref: Record<string, Any> = isPlainObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  const oldSpec: Record<string, Any> = isPlainObject(old?.spec) ? old.spec : {};
  const oldRef: Record<string, Any> | undefined = old && isPlainObject(oldSpec.scaleTargetRef)
    ? oldSpec.scaleTargetRef
    : undefined;
  const sameRef = oldRef !== undefined && oldRef.apiVersion === ref.apiVersion && oldRef.kind === ref.kind;
  const targetOptions = {
    allowInvalidApiVersion: sameRef,
    allowEmptyGroup: !sameRef && ref.kind === "ReplicationController",
  };
  const metricOptions = {
    allowInvalidApiVersion: hasInvalidObjectMetric(oldSpec.metrics),
    allowEmptyGroup: true,
  };
  const minReplicas = typeof spec.minReplicas === "number" ? spec.minReplicas : undefined;
  const maxReplicas = typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0;
  const causes: StatusCause[] = [];
  if (minReplicas !== undefined && maxReplicas < minReplicas) {
    causes.push(fieldInvalid("spec.maxReplicas", maxReplicas, "must be greater than or equal to `minReplicas`"));
  }
  causes.push(...crossVersionObjectReference(ref, "spec.scaleTargetRef", targetOptions));
  causes.push(...metrics(spec.metrics, minReplicas, metricOptions));
  if (isPlainObject(spec.behavior)) {
    causes.push(...scalingRules(spec.behavior.scaleUp, "spec.behavior.scaleUp"));
    causes.push(...scalingRules(spec.behavior.scaleDown, "spec.behavior.scaleDown"));
  }
  // The declarative rules v1.37 enforces, after the hand-written ones.
  if (minReplicas !== undefined && minReplicas < 0) {
    causes.push(fieldInvalid("spec.minReplicas", minReplicas, "must be greater than or equal to 0"));
  }
  if (maxReplicas === 0) causes.push(fieldRequired("spec.maxReplicas"));
  else if (maxReplicas < 1) {
    causes.push(fieldInvalid("spec.maxReplicas", maxReplicas, "must be greater than or equal to 1"));
  }
  return causes;
}

/** Causes for a status write: the replica counts and conditions' observedGeneration are not negative. */
export function validateHpaStatus(hpa: KubeObject): StatusCause[] {
  const status: Record<string, Any> = isPlainObject(hpa.status) ? hpa.status : {};
  const causes: StatusCause[] = [];
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  conditions.forEach((c: Any, i: number) => {
    if (isPlainObject(c)) causes.push(...negativeFieldCauses(c, ["observedGeneration"], `status.conditions[${i}]`));
  });
  causes.push(...negativeFieldCauses(status, ["currentReplicas", "desiredReplicas"], "status"));
  return causes;
}

function crossVersionObjectReference(ref: Record<string, Any>, path: string, opts: RefOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ["kind", "name"]) {
    const value = typeof ref[key] === "string" ? ref[key] : "";
    if (!value) causes.push(fieldRequired(`${path}.${key}`));
    for (const msg of value ? pathSegmentNameErrors(value) : []) {
      causes.push(fieldInvalid(`${path}.${key}`, value, msg));
    }
  }
  const apiVersion = typeof ref.apiVersion === "string" ? ref.apiVersion : "";
  const problem = opts.allowInvalidApiVersion ? undefined : apiVersionProblem(apiVersion, opts.allowEmptyGroup);
  if (problem) causes.push(fieldInvalid(`${path}.apiVersion`, apiVersion, problem));
  return causes;
}

/** schema.ParseGroupVersion's refusal, or a missing group where one is needed. */
function apiVersionProblem(apiVersion: string, allowEmptyGroup: boolean): string | undefined {
  const slashes = apiVersion.split("/").length - 1;
  if (slashes > 1) return `unexpected GroupVersion string: ${apiVersion}`;
  const group = slashes === 1 ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return !allowEmptyGroup && group === "" ? "apiVersion must specify API group" : undefined;
}

/** Whether the stored object already holds an Object metric whose described apiVersion does not parse. */
function hasInvalidObjectMetric(metrics: unknown): boolean {
  if (!Array.isArray(metrics)) return false;
  return metrics.some((m: Any) =>
    m?.type === "Object" && isPlainObject(m.object) &&
    apiVersionProblem(String(m.object.describedObject?.apiVersion ?? ""), true) !== undefined
  );
}

function metrics(list: unknown, minReplicas: number | undefined, opts: RefOptions): StatusCause[] {
  const all = Array.isArray(list) ? list : [];
  const causes = all.flatMap((m, i) => metricSpec(isPlainObject(m) ? m : {}, `spec.metrics[${i}]`, opts));
  if (minReplicas === 0 && !all.some((m: Any) => m?.type === "Object" || m?.type === "External")) {
    causes.push(
      fieldForbidden(
        "spec.metrics",
        "must specify at least one Object or External metric to support scaling to zero replicas",
      ),
    );
  }
  return causes;
}

function metricSpec(spec: Record<string, Any>, path: string, opts: RefOptions): StatusCause[] {
  const type = typeof spec.type === "string" ? spec.type : "";
  const causes: StatusCause[] = [];
  if (!type) causes.push(fieldRequired(`${path}.type`, "must specify a metric source type"));
  if (!SOURCE_TYPES.includes(type)) causes.push(fieldNotSupported(`${path}.type`, type, SOURCE_TYPES));
  const presentSources = SOURCES.filter(([field]) => present(spec[field]));
  if (presentSources.length > 0) {
    const [field] = presentSources[0];
    causes.push(...metricSource(field, isPlainObject(spec[field]) ? spec[field] : {}, `${path}.${field}`, opts));
  }
  const expected = SOURCES.find(([, t]) => t === type)?.[0];
  if (expected && !present(spec[expected])) {
    causes.push(fieldRequired(`${path}.${expected}`, "must populate information for the given metric source"));
  }
  if (presentSources.length !== 1) {
    for (const [field] of presentSources) {
      if (field !== expected) {
        causes.push(fieldForbidden(`${path}.${field}`, "must populate the given metric source only"));
      }
    }
  }
  return causes;
}

function metricSource(field: string, src: Record<string, Any>, path: string, opts: RefOptions): StatusCause[] {
  const target: Record<string, Any> = isPlainObject(src.target) ? src.target : {};
  const has = (key: string) => present(target[key]);
  const causes: StatusCause[] = [];
  switch (field) {
    case "object":
      causes.push(
        ...crossVersionObjectReference(
          isPlainObject(src.describedObject) ? src.describedObject : {},
          `${path}.describedObject`,
          opts,
        ),
      );
      causes.push(...metricIdentifier(src.metric, `${path}.metric`), ...metricTarget(target, `${path}.target`));
      if (!has("value") && !has("averageValue")) {
        causes.push(fieldRequired(`${path}.target.averageValue`, "must set either a target value or averageValue"));
      }
      break;
    case "external":
      causes.push(...metricIdentifier(src.metric, `${path}.metric`), ...metricTarget(target, `${path}.target`));
      if (!has("value") && !has("averageValue")) {
        causes.push(
          fieldRequired(`${path}.target.averageValue`, "must set either a target value for metric or a per-pod target"),
        );
      }
      if (has("value") && has("averageValue")) {
        causes.push(
          fieldForbidden(`${path}.target.value`, "may not set both a target value for metric and a per-pod target"),
        );
      }
      break;
    case "pods":
      causes.push(...metricIdentifier(src.metric, `${path}.metric`), ...metricTarget(target, `${path}.target`));
      if (!has("averageValue")) {
        causes.push(fieldRequired(`${path}.target.averageValue`, "must specify a positive target averageValue"));
      }
      break;
    default: { // resource, containerResource
      const name = typeof src.name === "string" ? src.name : "";
      if (!name) causes.push(fieldRequired(`${path}.name`, "must specify a resource name"));
      else if (field === "containerResource") causes.push(...containerResourceNameErrors(name, `${path}.name`));
      if (field === "containerResource") {
        const container = typeof src.container === "string" ? src.container : "";
        if (!container) causes.push(fieldRequired(`${path}.container`, "must specify a container"));
        for (const msg of container ? dns1123LabelErrors(container) : []) {
          causes.push(fieldInvalid(`${path}.container`, container, msg));
        }
      }
      causes.push(...metricTarget(target, `${path}.target`));
      if (!has("averageUtilization") && !has("averageValue")) {
        causes.push(
          fieldRequired(
            `${path}.target.averageUtilization`,
            "must set either a target raw value or a target utilization",
          ),
        );
      }
      if (has("averageUtilization") && has("averageValue")) {
        causes.push(
          fieldForbidden(`${path}.target.averageValue`, "may not set both a target raw value and a target utilization"),
        );
      }
    }
  }
  return causes;
}

function metricTarget(target: Record<string, Any>, path: string): StatusCause[] {
  const type = typeof target.type === "string" ? target.type : "";
  const causes: StatusCause[] = [];
  if (!type) causes.push(fieldRequired(`${path}.type`, "must specify a metric target type"));
  if (!["Utilization", "Value", "AverageValue"].includes(type)) {
    causes.push(fieldInvalid(`${path}.type`, type, "must be either Utilization, Value, or AverageValue"));
  }
  for (const key of ["value", "averageValue"]) {
    const q = present(target[key]) ? quantity(target[key]) : undefined;
    if (q && sign(q) !== 1) causes.push(fieldInvalid(`${path}.${key}`, formatQuantity(q), "must be positive"));
  }
  const utilization = target.averageUtilization;
  if (typeof utilization === "number" && utilization < 1) {
    causes.push(fieldInvalid(`${path}.averageUtilization`, utilization, "must be greater than 0"));
  }
  return causes;
}

function metricIdentifier(metric: unknown, path: string): StatusCause[] {
  const name = isPlainObject(metric) && typeof metric.name === "string" ? metric.name : "";
  if (!name) return [fieldRequired(`${path}.name`, "must specify a metric name")];
  return pathSegmentNameErrors(name).map((msg) => fieldInvalid(`${path}.name`, name, msg));
}

function scalingRules(rules: unknown, path: string): StatusCause[] {
  if (!isPlainObject(rules)) return [];
  const causes: StatusCause[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === "number" && window < 0) {
    causes.push(fieldInvalid(`${path}.stabilizationWindowSeconds`, window, "must be greater than or equal to zero"));
  }
  if (typeof window === "number" && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    causes.push(
      fieldInvalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  }
  if (typeof rules.selectPolicy === "string" && !SELECT_POLICIES.includes(rules.selectPolicy)) {
    causes.push(fieldNotSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  }
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0) causes.push(fieldRequired(`${path}.policies`, "must specify at least one Policy"));
  policies.forEach((p: Any, i: number) =>
    causes.push(...scalingPolicy(isPlainObject(p) ? p : {}, `${path}.policies[${i}]`))
  );
  const tolerance = present(rules.tolerance) ? quantity(rules.tolerance) : undefined;
  if (tolerance && sign(tolerance) < 0) {
    causes.push(fieldInvalid(`${path}.tolerance`, formatQuantity(tolerance), "must be greater than or equal to 0"));
  }
  return causes;
}

function scalingPolicy(policy: Record<string, Any>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = typeof policy.type === "string" ? policy.type : "";
  if (!POLICY_TYPES.includes(type)) causes.push(fieldNotSupported(`${path}.type`, type, POLICY_TYPES));
  const value = typeof policy.value === "number" ? policy.value : 0;
  if (value <= 0) causes.push(fieldInvalid(`${path}.value`, value, "must be greater than zero"));
  const period = typeof policy.periodSeconds === "number" ? policy.periodSeconds : 0;
  if (period <= 0) causes.push(fieldInvalid(`${path}.periodSeconds`, period, "must be greater than zero"));
  if (period > MAX_PERIOD_SECONDS) {
    causes.push(fieldInvalid(`${path}.periodSeconds`, period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  }
  return causes;
}

const sign = (q: Quantity) => q.num === 0n ? 0 : (q.num < 0n) !== (q.den < 0n) ? -1 : 1;
