/**
 * The PriorityClasses kube-apiserver creates at start-up (its `scheduling/bootstrap-system-priority-classes` hook):
 * system-node-critical and system-cluster-critical, which the Priority admission plugin resolves
 * (admission_priority.ts).
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";
import { SYSTEM_PRIORITY_CLASSES } from "./strategies/priority_classes.ts";

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
