/**
 * scheduling.k8s.io PriorityClasses: `preemptionPolicy` defaults to PreemptLowerPriority (kube's
 * SetDefaults_PriorityClass), which the Priority admission plugin copies into the pods naming the class.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceStrategy } from "../strategy.ts";

/** The strategy of scheduling.k8s.io/v1 priorityclasses. */
export const PRIORITY_CLASSES: ResourceStrategy = {
  default(pc: KubeObject): void {
    pc.preemptionPolicy ??= "PreemptLowerPriority";
  },
};
