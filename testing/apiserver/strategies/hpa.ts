/**
 * autoscaling HorizontalPodAutoscalers, stored as autoscaling/v2 and served as v1 too (hpa_v1_conversion.ts), as
 * kube-apiserver v1.37 writes them:
 *
 * - defaults (SetDefaults_HorizontalPodAutoscaler): minReplicas 1, the 80 % CPU utilisation metric when none is
 *   given; a v2 write's `behavior` has each of scaleUp and scaleDown completed from kube's rules (scale up: no
 *   stabilization window, the larger of 4 Pods or 100 % per 15 s; scale down: 100 % per 15 s), the fields given kept;
 *   a v1 write's behavior (an annotation) is validated as converted — kube's v1 defaults have none, so a partial
 *   rule set is 422 — and completed on its way to storage (kube defaults it when it decodes the stored v2 object);
 * - validation (validation/hpa.ts): spec on create and update, status counts on a status write;
 * - status `currentMetrics: null` and `desiredReplicas` 0 stored, spec and status in Go's field order.
 * @module
 */
import { isPlainObject } from "../../../runtime/apimachinery/equality.ts";
import type { ResourceStrategy } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";
import { goJson } from "../go_struct_json.ts";
import { validateHpaSpec, validateHpaStatus } from "../validation/hpa.ts";
import { HPA_V1_CONVERSION } from "./hpa_v1_conversion.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** `obj[key]` as an object, set to `{}` when absent or not an object. */
function objectAt(obj: Json, key: string): Json {
  if (!isPlainObject(obj[key])) obj[key] = {};
  return obj[key];
}

/** kube's defaultHPAScaleUpRules and defaultHPAScaleDownRules (pkg/apis/autoscaling/v2/defaults.go). */
const SCALE_UP: Json = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [{ type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }],
};
const SCALE_DOWN: Json = { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };

/** copyHPAScalingRules over a copy of `defaults`: each field `given` sets (null is unset) replaces the default. */
function withDefaultRules(given: unknown, defaults: Json): Json {
  const out = copyJson(defaults);
  if (!isPlainObject(given)) return out;
  for (const key of ["selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"]) {
    if (given[key] !== undefined && given[key] !== null) out[key] = given[key];
  }
  return out;
}

/** The spec defaults every write gets, whichever version it came in. */
function defaultSpec(hpa: KubeObject): Json {
  const spec = objectAt(hpa, "spec");
  spec.minReplicas ??= 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
    }];
  }
  return spec;
}

/** SetDefaults_HorizontalPodAutoscalerBehavior: each rule set completed from kube's; a null behavior left out. */
function completeBehavior(spec: Json): void {
  if (spec.behavior === null) delete spec.behavior; // a nil pointer: omitted
  if (!isPlainObject(spec.behavior)) return;
  spec.behavior.scaleUp = withDefaultRules(spec.behavior.scaleUp, SCALE_UP);
  spec.behavior.scaleDown = withDefaultRules(spec.behavior.scaleDown, SCALE_DOWN);
}

/** `value` with its keys in the order Go's struct `message` (autoscaling/v2) declares them. */
function inGoOrder(value: Json, message: string): Json {
  return JSON.parse(goJson(value, { type: `api.autoscaling.v2.${message}`, map: false, repeated: false }));
}

/** autoscaling horizontalpodautoscalers (stored as autoscaling/v2). */
export const HORIZONTAL_POD_AUTOSCALERS: ResourceStrategy = {
  default(hpa: KubeObject): void {
    completeBehavior(defaultSpec(hpa));
  },
  validate: (hpa) => validateHpaSpec(hpa),
  validateUpdate: (next, old, ctx) =>
    ctx.subresource === "status" ? validateHpaStatus(next) : validateHpaSpec(next, old),
  encode(hpa: KubeObject): void {
    completeBehavior(objectAt(hpa, "spec")); // a v1 write's, validated as sent
    const status = objectAt(hpa, "status");
    status.currentMetrics ??= null;
    status.desiredReplicas ??= 0;
    hpa.spec = inGoOrder(objectAt(hpa, "spec"), "HorizontalPodAutoscalerSpec");
    hpa.status = inGoOrder(status, "HorizontalPodAutoscalerStatus");
  },
};

/** What autoscaling/v1 adds: its conversion, and defaults without the behavior's (kube's v1 defaults have none). */
export const HORIZONTAL_POD_AUTOSCALERS_V1: ResourceStrategy = {
  conversion: HPA_V1_CONVERSION,
  default(hpa: KubeObject): void {
    defaultSpec(hpa);
  },
};
