/**
 * The Priority admission plugin (kube-apiserver runs it by default) and the system PriorityClasses kube-apiserver
 * creates at start-up. A Pod created without `priorityClassName` gets the global default class's priority and
 * preemption policy, or priority 0 and PreemptLowerPriority when no class is the global default; a named class must
 * exist (403 Forbidden otherwise) and its values are set; a priority or preemptionPolicy the pod states that differs
 * from the class's is refused. On update, values the request leaves out are kept from the stored pod.
 * @module
 */
import type { AdmissionHook } from "./admission.ts";
import type { FakeStore } from "./commit_path.ts";
import type { ObjectStore } from "./object_storage.ts";
import { forbidden } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

const PRIORITY_CLASSES = "scheduling.k8s.io/priorityclasses";
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
    if (!store.peek(def, undefined, pc.metadata.name!)) store.create(ref, structuredClone(pc));
  }
}

/** The global default class (the lowest value if several claim it), or none. */
function globalDefault(objects: ObjectStore): KubeObject | undefined {
  const defaults = objects.list(PRIORITY_CLASSES).filter((pc) => pc.globalDefault === true);
  return defaults.sort((a, b) => (a.value ?? 0) - (b.value ?? 0))[0];
}

/** The Priority plugin over the store's PriorityClasses. */
export function priorityAdmission(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (ctx.def.group !== "" || ctx.def.plural !== "pods" || ctx.subresource) return;
    const spec = ctx.object.spec;
    if (!spec || typeof spec !== "object" || Array.isArray(spec)) return;
    if (ctx.verb === "update") {
      spec.priority ??= ctx.old?.spec?.priority;
      spec.preemptionPolicy ??= ctx.old?.spec?.preemptionPolicy;
      return;
    }
    const name = ctx.object.metadata.name ?? "";
    let priority = 0;
    let preemptionPolicy: string | undefined = PREEMPT_LOWER;
    if (!spec.priorityClassName) {
      const pc = globalDefault(objects);
      if (pc) {
        spec.priorityClassName = pc.metadata.name;
        priority = pc.value ?? 0;
        preemptionPolicy = pc.preemptionPolicy;
      }
    } else {
      const pc = typeof spec.priorityClassName === "string"
        ? objects.get(PRIORITY_CLASSES, "", spec.priorityClassName)
        : undefined;
      if (!pc) {
        throw forbidden(ctx.def, name, `no PriorityClass with name ${spec.priorityClassName} was found`, "create");
      }
      priority = pc.value ?? 0;
      preemptionPolicy = pc.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
      throw forbidden(
        ctx.def,
        name,
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
        "create",
      );
    }
    spec.priority = priority;
    if (preemptionPolicy !== undefined) {
      if (spec.preemptionPolicy && spec.preemptionPolicy !== preemptionPolicy) {
        throw forbidden(
          ctx.def,
          name,
          `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`,
          "create",
        );
      }
      spec.preemptionPolicy = preemptionPolicy;
    }
  };
}
