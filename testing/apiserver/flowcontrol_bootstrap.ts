/**
 * The API Priority and Fairness objects kube-apiserver creates at start-up (its `priority-and-fairness-config-producer`
 * post-start hook): the mandatory PriorityLevelConfigurations and FlowSchemas (exempt, catch-all) and the suggested
 * ones (system, node-high, leader-election, workload-high, workload-low, global-default and their FlowSchemas), as
 * kube-apiserver v1.37.2 made them (recorded by testdata/capture_flowcontrol.ts). FlowSchemas that name one of these
 * priority levels are not dangling (flowschema_status.ts).
 * @module
 */
import recorded from "./testdata/real/flowcontrol_bootstrap.json" with { type: "json" };
import type { FakeStore } from "./commit_path.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** The field manager of kube's APF configuration producer. */
export const APF_PRODUCER = "api-priority-and-fairness-config-producer-v1";

const GROUP_VERSION = { group: "flowcontrol.apiserver.k8s.io", version: "v1" };

/** Creates each bootstrap priority level, then each FlowSchema, that does not exist yet (a restored store keeps its). */
export function installFlowControlBootstrap(store: FakeStore): void {
  const sets: Array<[string, readonly unknown[]]> = [
    ["prioritylevelconfigurations", recorded.priorityLevelConfigurations],
    ["flowschemas", recorded.flowSchemas],
  ];
  for (const [plural, objects] of sets) {
    const ref = { ...GROUP_VERSION, plural };
    const def = store.def(ref);
    for (const obj of objects as KubeObject[]) {
      if (store.peek(def, undefined, obj.metadata.name!)) continue;
      store.create(ref, copyJson(obj), { fieldManager: APF_PRODUCER, shared: true });
    }
  }
}
