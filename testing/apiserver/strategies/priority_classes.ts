/**
 * scheduling.k8s.io PriorityClasses: `preemptionPolicy` defaults to PreemptLowerPriority (kube's
 * SetDefaults_PriorityClass), which the Priority admission plugin copies into the pods naming the class. Validated as
 * kube-apiserver v1.37 does (pkg/apis/scheduling/validation): a `system-` name is reserved for the two system classes
 * with their values, other classes stay at or below 1 000 000 000, preemptionPolicy is PreemptLowerPriority or Never,
 * and an update changes neither the value nor the policy.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceStrategy } from "../strategy.ts";
import { fieldForbidden, fieldImmutable, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";

const PREEMPT_LOWER = "PreemptLowerPriority";
/** scheduling.SystemCriticalPriority: the value of system-cluster-critical; system-node-critical is 1000 above. */
const SYSTEM_CRITICAL = 2_000_000_000;

/** The PriorityClasses kube-apiserver's `scheduling/bootstrap-system-priority-classes` hook creates (installed by
 * system_priority_classes.ts). */
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

/** scheduling.HighestUserDefinablePriority. */
const HIGHEST_USER_DEFINABLE = 1_000_000_000;
const POLICIES = ["PreemptLowerPriority", "Never"];

/** IsKnownSystemPriorityClass's refusal of a `system-` class, or undefined when it is one of kube's. */
function systemClassProblem(pc: KubeObject): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === pc.metadata.name);
  if (!known) return `${pc.metadata.name} is not a known system priority class`;
  if (known.value !== pc.value) return `value of ${known.metadata.name} PriorityClass must be ${known.value}`;
  if ((known.globalDefault ?? false) !== (pc.globalDefault ?? false)) {
    return `globalDefault of ${known.metadata.name} PriorityClass must be ${known.globalDefault ?? false}`;
  }
  return undefined;
}

function validatePriorityClass(pc: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (String(pc.metadata.name ?? "").startsWith("system-")) {
    const problem = systemClassProblem(pc);
    if (problem) {
      causes.push(fieldForbidden(
        "metadata.name",
        `priority class names with 'system-' prefix are reserved for system use only. error: ${problem}`,
      ));
    }
  } else if (typeof pc.value === "number" && pc.value > HIGHEST_USER_DEFINABLE) {
    causes.push(
      fieldForbidden("value", `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE}`),
    );
  }
  if (pc.preemptionPolicy === "") causes.push(fieldRequired("preemptionPolicy"));
  else if (pc.preemptionPolicy != null && !POLICIES.includes(pc.preemptionPolicy)) {
    causes.push(fieldNotSupported("preemptionPolicy", pc.preemptionPolicy, POLICIES));
  }
  return causes;
}

/** The strategy of scheduling.k8s.io/v1 priorityclasses. */
export const PRIORITY_CLASSES: ResourceStrategy = {
  default(pc: KubeObject): void {
    pc.preemptionPolicy ??= "PreemptLowerPriority";
  },
  validate: validatePriorityClass,
  validateUpdate(next: KubeObject, old: KubeObject): StatusCause[] {
    const causes: StatusCause[] = [];
    if (next.value !== old.value) causes.push(fieldForbidden("value", "may not be changed in an update."));
    if (next.preemptionPolicy !== old.preemptionPolicy) {
      causes.push(fieldImmutable("preemptionPolicy", next.preemptionPolicy ?? null));
    }
    return causes;
  },
};
