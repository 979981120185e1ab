/**
 * The Priority admission plugin (kube-apiserver runs it by default; the system PriorityClasses it resolves are made at
 * start-up by system_priority_classes.ts). A Pod created without `priorityClassName` gets the global default class's
 * priority and preemption policy, or priority 0 and PreemptLowerPriority when no class is the global default; a named
 * class must exist (403 Forbidden otherwise) and its values are set; a priority or preemptionPolicy the pod states that
 * differs from the class's is refused. On update, values the request leaves out are kept from the stored pod.
 * @module
 */
import type { AdmissionHook } from "./admission.ts";
import type { ObjectStore } from "./object_storage.ts";
import { forbidden } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

const PRIORITY_CLASSES = "scheduling.k8s.io/priorityclasses";
const PREEMPT_LOWER = "PreemptLowerPriority";

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
