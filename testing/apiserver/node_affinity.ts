/**
 * Whether a pod may run on a node as the scheduler's NodeAffinity filter decides it: `spec.nodeSelector` and the
 * required terms of `spec.affinity.nodeAffinity` (ORed terms; in a term, label `matchExpressions` and
 * `matchFields` on `metadata.name` ANDed). The fake kubelet binds only pods that fit its node, so a DaemonSet's pod
 * for another node stays Pending as it would with no scheduler placing it there.
 * @module
 */
import { labelSelectorMatcher } from "../../runtime/apimachinery/label_selector.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

function requirementMet(r: Requirement, value: string | undefined): boolean {
  switch (r.operator) {
    case "In":
      return value !== undefined && (r.values ?? []).includes(value);
    case "NotIn":
      return value === undefined || !(r.values ?? []).includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      const have = Number(value), want = Number(r.values?.[0]);
      if (value === undefined || !Number.isInteger(have) || !Number.isInteger(want)) return false;
      return r.operator === "Gt" ? have > want : have < want;
    }
  }
  return false;
}

/**
 * Whether `pod` fits `node` by node selector and required node affinity.
 *
 * @example
 * ```ts
 * import { podFitsNode } from "./node_affinity.ts";
 * const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", labels: { zone: "a" } } };
 * podFitsNode({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeSelector: { zone: "a" } } }, node); // true
 * ```
 */
export function podFitsNode(pod: KubeObject, node: KubeObject): boolean {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  if (!labelSelectorMatcher({ matchLabels: (spec.nodeSelector ?? {}) as Record<string, string> })(labels)) return false;
  const required = (spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: unknown } })
    ?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution as
      | { nodeSelectorTerms?: { matchExpressions?: Requirement[]; matchFields?: Requirement[] }[] }
      | undefined;
  const terms = required?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return true;
  return terms.some((term) => {
    const exprs = term.matchExpressions ?? [], fields = term.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false; // an empty term matches nothing
    return exprs.every((r) => requirementMet(r, labels[r.key])) &&
      fields.every((r) => r.key === "metadata.name" && requirementMet(r, node.metadata.name));
  });
}
