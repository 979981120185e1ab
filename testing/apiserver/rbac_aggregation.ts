/**
 * What kube-controller-manager's clusterrole-aggregation controller does: a ClusterRole with an `aggregationRule`
 * gets as its rules the rules of every other ClusterRole its selectors match (sorted by name, duplicates dropped),
 * rewritten whenever a ClusterRole changes. Runs after the write that triggered it (a microtask later), like the
 * controller runs after the watch event.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import type { PolicyRule } from "./rbac_bootstrap.ts";
import type { StoredEvent } from "./object_storage.ts";
import { managedFieldsAfterUpdate } from "./patch/apply.ts";
import { rfc3339 } from "./object_rules.ts";
import { type LabelSelector, labelSelectorMatcher } from "../../runtime/apimachinery/label_selector.ts";

const KEY = "rbac.authorization.k8s.io/clusterroles";
const REF = { group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterroles" };
/** The field manager of kube-controller-manager's ClusterRole aggregation. */
const MANAGER = "clusterrole-aggregation-controller";

/** Whether labels match a metav1.LabelSelector (an empty selector matches everything; an invalid one nothing). */
export function labelSelectorMatches(selector: LabelSelector, labels: Record<string, string> = {}): boolean {
  try {
    return labelSelectorMatcher(selector)(labels);
  } catch {
    return false; // ClusterRoles are validated on write; a selector kube would refuse selects nothing here.
  }
}

/** The rules an aggregated ClusterRole should have given every ClusterRole in the store (shared with `all`: read only). */
export function aggregatedRules(role: KubeObject, all: KubeObject[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  const sorted = [...all].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  for (const selector of (role.aggregationRule?.clusterRoleSelectors ?? []) as LabelSelector[]) {
    for (const other of sorted) {
      if (other.metadata.name === role.metadata.name) continue;
      if (!labelSelectorMatches(selector, other.metadata.labels)) continue;
      for (const rule of (other.rules ?? []) as PolicyRule[]) {
        const key = JSON.stringify(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(rule);
      }
    }
  }
  return out;
}

/** Keeps every aggregated ClusterRole's rules current; returns the unsubscribe function. */
export function startClusterRoleAggregation(store: FakeStore): () => void {
  let queued = false;
  const sync = () => {
    queued = false;
    const all = store.objects.list(KEY);
    for (const role of all) {
      if (!role.aggregationRule || role.metadata.deletionTimestamp) continue;
      const rules = aggregatedRules(role, all);
      if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
      try {
        // kube's controller server-side applies the rules (manager clusterrole-aggregation-controller, forced).
        const next = { ...role, rules };
        const at = rfc3339(store.clock.now());
        const managedFields = managedFieldsAfterUpdate(role, next, MANAGER, at, "Apply", { def: store.def(REF) });
        // The store copies the body and its answer is not needed: no copies here.
        store.update(REF, { ...next, metadata: { ...role.metadata, managedFields } }, {
          name: role.metadata.name!,
          shared: true,
        });
      } catch {
        // Raced with a user write or a delete: the commit it made queues another sync.
      }
    }
  };
  sync();
  return store.objects.onCommit((ev: StoredEvent) => {
    if (ev.storageKey !== KEY || queued) return;
    queued = true;
    queueMicrotask(sync);
  });
}
