/**
 * Pods: created Pending (BestEffort) with the defaults kube-apiserver fills (restartPolicy Always, dnsPolicy
 * ClusterFirst, the default scheduler and ServiceAccount, 30 s termination grace); a pod bound to a node that has not
 * finished is deleted gracefully (kube: the pod strategy's CheckGracefulDelete).
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceStrategy } from "../strategy.ts";

/** The strategy of core v1 pods. */
export const PODS: ResourceStrategy = {
  prepareForCreate(obj: KubeObject): void {
    obj.spec = { restartPolicy: "Always", dnsPolicy: "ClusterFirst", schedulerName: "default-scheduler", ...obj.spec };
    obj.spec.serviceAccountName ??= "default";
    obj.spec.terminationGracePeriodSeconds ??= 30;
    obj.status = { phase: "Pending", qosClass: "BestEffort" };
  },
  gracePeriodSeconds(pod: KubeObject, requestedSeconds: number | undefined): number {
    if (!pod.spec?.nodeName || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return 0;
    const grace = requestedSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    return Number.isFinite(grace) && grace > 0 ? Math.floor(grace) : 0;
  },
};
