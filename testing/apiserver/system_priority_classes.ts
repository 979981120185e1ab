/**
 * The PriorityClasses kube-apiserver creates at start-up (its `scheduling/bootstrap-system-priority-classes` hook):
 * system-node-critical and system-cluster-critical, which the Priority admission plugin resolves
 * (admission_priority.ts).
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

const PREEMPT_LOWER = "PreemptLowerPriority";
/** scheduling.SystemCriticalPriority: the value of system-cluster-critical; system-node-critical is 1000 above. */
const SYSTEM_CRITICAL = 2_000_000_000;

/** The PriorityClasses kube-apiserver's `scheduling/bootstrap-system-priority-classes` hook creates. */
export const SYSTEM_PRIORITY_CLASSES: readonly KubeObject[] = [
  {
    metadata: { name: "system-node-critical" },
    value: SYSTEM_CRITICAL + 1000,
    description: "Used for system critical pods that must not be moved from their current node.",
    preemptionPolicy: PREEMPT_LOWER,
  },
  {
    metadata: { name: "system-cluster-critical" },
    value: SYSTEM_CRITICAL,
    description:
      "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    preemptionPolicy: PREEMPT_LOWER,
  },
];

/** Creates each system PriorityClass that does not exist yet (a restored data dir keeps its own). */
export function installSystemPriorityClasses(store: FakeStore): void {
  const ref = { group: "scheduling.k8s.io", version: "v1", plural: "priorityclasses" };
  const def = store.def(ref);
  for (const pc of SYSTEM_PRIORITY_CLASSES) {
    if (!store.peek(def, undefined, pc.metadata.name!)) {
      store.create(ref, copyJson(pc), { fieldManager: "kube-apiserver" });
    }
  }
}
