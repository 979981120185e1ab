/**
 * Pods: created Pending (BestEffort) in the `default` ServiceAccount (the ServiceAccount admission plugin,
 * admission_service_account.ts, sets it and adds the token volume), with kube's pod-spec defaults
 * (testing/apiserver/validation/pod_spec.ts) and enableServiceLinks; containers with names and images are required, and
 * an update may change only images, activeDeadlineSeconds, tolerations and the termination grace (kube's
 * ValidatePodUpdate). A pod bound to a node that has not finished is deleted gracefully (kube: the pod strategy's
 * CheckGracefulDelete); DELETE answers with the pod.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { jsonEqual } from "../object_rules.ts";
import type { ResourceStrategy } from "../strategy.ts";
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { fieldInvalid } from "../validation/field_errors.ts";
import { compareQuantities, quantity } from "../resource_quantity.ts";
import {
  defaultPodSpec,
  defaultRequestsFromLimits,
  validatePodSpec,
  validatePodSpecUpdate,
} from "../validation/pod_spec.ts";
import {
  ephemeralContainersWrite,
  resizeWrite,
  validateEphemeralContainersUpdate,
  validatePodResize,
} from "../validation/pod_subresource_updates.ts";

const MIRROR = "kubernetes.io/config.mirror";

/** kube's ValidatePodSpecificAnnotations: a mirror pod (the kubelet's copy of a static pod) names its node. */
function mirrorPodAnnotation(pod: KubeObject): StatusCause[] {
  const value = pod.metadata.annotations?.[MIRROR];
  if (value === undefined || pod.spec?.nodeName) return [];
  return [
    fieldInvalid(`metadata.annotations[${MIRROR}]`, value, "must set spec.nodeName if mirror pod annotation is set"),
  ];
}

/**
 * kube's GetPodQOS over cpu and memory: BestEffort without any request or limit, Guaranteed when every container
 * limits both and requests what it limits, Burstable otherwise.
 */
function qosClass(spec: KubeObject["spec"]): string {
  let any = false;
  let guaranteed = true;
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
    const requests = c?.resources?.requests ?? {};
    const limits = c?.resources?.limits ?? {};
    for (const k of ["cpu", "memory"]) {
      const [request, limit] = [quantity(requests[k]), quantity(limits[k])];
      if ((request && request.num !== 0n) || (limit && limit.num !== 0n)) any = true;
      if (!limit || limit.num === 0n || (request && compareQuantities(request, limit) !== 0)) guaranteed = false;
    }
  }
  return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

/** The strategy of core v1 pods. */
export const PODS: ResourceStrategy = {
  returnDeletedObject: true,
  prepareForCreate(obj: KubeObject): void {
    obj.spec = obj.spec && typeof obj.spec === "object" ? obj.spec : {};
    // The `default` account is the ServiceAccount admission plugin's (mirror pods have none).
    if (obj.spec.serviceAccount) obj.spec.serviceAccountName ??= obj.spec.serviceAccount;
    // The deprecated mirror of the account admission set is no manager's (kube mirrors it after the field manager).
    if (obj.spec.serviceAccountName) obj.spec.serviceAccount ??= obj.spec.serviceAccountName;
    defaultRequestsFromLimits(obj.spec);
    obj.status = { phase: "Pending", qosClass: qosClass(obj.spec) };
  },
  default(obj: KubeObject): void {
    if (!obj.spec || typeof obj.spec !== "object") return;
    defaultPodSpec(obj.spec);
    defaultRequestsFromLimits(obj.spec);
    obj.spec.enableServiceLinks ??= true;
    if (obj.spec.serviceAccountName) obj.spec.serviceAccount ??= obj.spec.serviceAccountName;
  },
  prepareForUpdate(next: KubeObject, old: KubeObject): void {
    // Scheduling (the binding subresource; the fake kubelet sets nodeName itself) does not bump the generation.
    if (
      !old.spec?.nodeName && next.spec?.nodeName && jsonEqual({ ...next.spec, nodeName: undefined }, { ...old.spec })
    ) {
      next.metadata.generation = old.metadata.generation;
    }
  },
  validate: (obj) => [...mirrorPodAnnotation(obj), ...validatePodSpec(obj.spec, "spec")],
  subresourceWrite: (sub, body, old) =>
    sub === "ephemeralcontainers"
      ? ephemeralContainersWrite(body, old)
      : sub === "resize"
      ? resizeWrite(body, old)
      : body,
  validateUpdate(next, old, ctx) {
    switch (ctx.subresource) {
      case "status":
        return [];
      case "ephemeralcontainers":
        return validateEphemeralContainersUpdate(next, old);
      case "resize":
        return validatePodResize(next, old, qosClass);
      default:
        return validatePodSpecUpdate(next.spec, old.spec);
    }
  },
  gracePeriodSeconds(pod: KubeObject, requestedSeconds: number | undefined): number {
    if (!pod.spec?.nodeName || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return 0;
    const grace = requestedSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    return Number.isFinite(grace) && grace > 0 ? Math.floor(grace) : 0;
  },
};
