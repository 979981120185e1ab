/**
 * The DefaultTolerationSeconds admission plugin (kube-apiserver runs it by default): a Pod that does not tolerate the
 * NoExecute taints `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable` gets a toleration of each for
 * 300 seconds, on every create and update of the pod itself (not its subresources).
 * @module
 */
import type { AdmissionHook } from "./admission.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

const NOT_READY = "node.kubernetes.io/not-ready";
const UNREACHABLE = "node.kubernetes.io/unreachable";
/** kube-apiserver's `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`. */
const DEFAULT_SECONDS = 300;

/** Whether `tolerations` already covers the NoExecute taint `key` (an empty key or effect matches any). */
function tolerates(tolerations: KubeObject[], key: string): boolean {
  return tolerations.some((t) =>
    t && typeof t === "object" && (t.key === key || !t.key) && (t.effect === "NoExecute" || !t.effect)
  );
}

/** The DefaultTolerationSeconds plugin. */
export function defaultTolerationSeconds(): AdmissionHook {
  return (ctx) => {
    if (ctx.def.group !== "" || ctx.def.plural !== "pods" || ctx.subresource) return;
    const spec = ctx.object.spec;
    if (!spec || typeof spec !== "object" || Array.isArray(spec)) return;
    if (spec.tolerations !== undefined && spec.tolerations !== null && !Array.isArray(spec.tolerations)) return;
    const tolerations: KubeObject[] = spec.tolerations ?? [];
    const added = [NOT_READY, UNREACHABLE].filter((key) => !tolerates(tolerations, key))
      .map((key) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: DEFAULT_SECONDS }));
    if (added.length > 0) spec.tolerations = [...tolerations, ...added];
  };
}
