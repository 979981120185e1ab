/**
 * The count and rollout rules of workload specs, as kube-apiserver v1.37's apps and batch validation words them:
 * a Deployment's strategy (ValidateDeploymentStrategy: maxUnavailable and maxSurge as a non-negative count or a
 * percentage, not both 0, maxUnavailable at most 100 %; no rollingUpdate for Recreate) and the counts after it
 * (minReadySeconds, revisionHistoryLimit, progressDeadlineSeconds above minReadySeconds); a Job's counts
 * (validateJobSpec: parallelism, completions, activeDeadlineSeconds, backoffLimit, ttlSecondsAfterFinished,
 * backoffLimitPerIndex, maxFailedIndexes not negative); a ReplicaSet's, a StatefulSet's (pod management, update
 * strategy, claim retention) and a DaemonSet's (update strategy) counts and rules.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { regexError } from "../../../runtime/apimachinery/names.ts";
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, negativeFieldCauses } from "./field_errors.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const PERCENT = /^[0-9]+%$/;
const PERCENT_MESSAGE = regexError(
  "a valid percent string must be a numeric string followed by an ending '%'",
  "[0-9]+%",
  "1%",
  "93%",
);
const NON_NEGATIVE = "must be greater than or equal to 0";

/** ValidatePositiveIntOrPercent: a non-negative integer or a `N%` string. */
export function intOrPercentCauses(value: unknown, path: string): StatusCause[] {
  if (typeof value === "string") return PERCENT.test(value) ? [] : [fieldInvalid(path, value, PERCENT_MESSAGE)];
  if (typeof value === "number" && value < 0) return [fieldInvalid(path, value, NON_NEGATIVE)];
  return [];
}

/** getIntOrPercentValue: a percentage's number, an integer's value, a string's Atoi (0 when it is none). */
function intOrPercentValue(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return 0;
  const text = PERCENT.test(value) ? value.slice(0, -1) : value;
  return /^[+-]?\d+$/.test(text) ? Number(text) : 0;
}

/** IsNotMoreThan100Percent's test: a valid percentage above 100. */
export function percentOver100(value: unknown): boolean {
  return typeof value === "string" && PERCENT.test(value) && intOrPercentValue(value) > 100;
}

/**
 * Causes for a Deployment's strategy and the counts kube checks after its template, in kube's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deploymentSpecCauses } from "./workload_counts.ts";
 * const spec = { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } };
 * assert.deepEqual(deploymentSpecCauses(spec).map((c) => c.message), [
 *   "Invalid value: 0: may not be 0 when `maxSurge` is 0",
 * ]);
 * ```
 */
export function deploymentSpecCauses(spec: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  const strategy: Json = spec.strategy && typeof spec.strategy === "object" ? spec.strategy : {};
  const path = "spec.strategy.rollingUpdate";
  if (strategy.type === "Recreate") {
    if (strategy.rollingUpdate != null) {
      causes.push(fieldForbidden(path, "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (strategy.type === "RollingUpdate") {
    const rolling: Json = strategy.rollingUpdate ?? {};
    causes.push(...intOrPercentCauses(rolling.maxUnavailable, `${path}.maxUnavailable`));
    causes.push(...intOrPercentCauses(rolling.maxSurge, `${path}.maxSurge`));
    if (intOrPercentValue(rolling.maxUnavailable) === 0 && intOrPercentValue(rolling.maxSurge) === 0) {
      causes.push(
        fieldInvalid(`${path}.maxUnavailable`, rolling.maxUnavailable ?? 0, "may not be 0 when `maxSurge` is 0"),
      );
    }
    if (percentOver100(rolling.maxUnavailable)) {
      causes.push(fieldInvalid(`${path}.maxUnavailable`, rolling.maxUnavailable, "must not be greater than 100%"));
    }
  } else {
    // kube prints the internal struct: Go field names, no JSON tags.
    const shown = { Type: strategy.type ?? "", RollingUpdate: strategy.rollingUpdate ?? null };
    causes.push(fieldNotSupported("spec.strategy", shown, ["Recreate", "RollingUpdate"]));
  }
  causes.push(
    ...negativeFieldCauses(spec, ["minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds"], "spec"),
  );
  const deadline = spec.progressDeadlineSeconds;
  if (
    typeof deadline === "number" && deadline <= (typeof spec.minReadySeconds === "number" ? spec.minReadySeconds : 0)
  ) {
    causes.push(fieldInvalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"));
  }
  return causes;
}

/** Causes for a Job's negative counts, in validateJobSpec's order (`prefix`: where the Job spec sits). */
export function jobCountCauses(spec: Json, prefix = "spec"): StatusCause[] {
  return negativeFieldCauses(spec, [
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "backoffLimitPerIndex",
    "maxFailedIndexes",
  ], prefix);
}

/**
 * A Job's completion mode (validateJobSpec, after its counts): NonIndexed or Indexed; an Indexed Job needs completions
 * and at most 100 000 in parallel.
 */
export function jobModeCauses(spec: Json, prefix = "spec"): StatusCause[] {
  const mode = spec.completionMode;
  if (mode == null) return [];
  if (mode !== "NonIndexed" && mode !== "Indexed") {
    return [fieldNotSupported(`${prefix}.completionMode`, mode, ["NonIndexed", "Indexed"])];
  }
  const causes: StatusCause[] = [];
  if (mode === "Indexed") {
    if (spec.completions == null) {
      causes.push(fieldRequired(`${prefix}.completions`, "when completion mode is Indexed"));
    }
    if (typeof spec.parallelism === "number" && spec.parallelism > 100_000) {
      causes.push(
        fieldInvalid(
          `${prefix}.parallelism`,
          spec.parallelism,
          "must be less than or equal to 100000 when completion mode is Indexed",
        ),
      );
    }
  }
  return causes;
}

/** A ReplicaSet's counts before its selector (ValidateReplicaSetSpec). */
export function replicaSetCountCauses(spec: Json): StatusCause[] {
  return negativeFieldCauses(spec, ["replicas", "minReadySeconds"], "spec");
}

/**
 * A StatefulSet's rules before its selector, in ValidateStatefulSetSpec's order: podManagementPolicy,
 * updateStrategy (rollingUpdate's partition and maxUnavailable), the claim retention policy, replicas,
 * minReadySeconds, ordinals.
 */
export function statefulSetCountCauses(spec: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = spec.podManagementPolicy;
  if (!policy) causes.push(fieldRequired("spec.podManagementPolicy"));
  else if (!["OrderedReady", "Parallel"].includes(policy)) {
    causes.push(fieldInvalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy: Json = spec.updateStrategy && typeof spec.updateStrategy === "object" ? spec.updateStrategy : {};
  const rolling = strategy.rollingUpdate;
  if (!strategy.type) causes.push(fieldRequired("spec.updateStrategy"));
  else if (strategy.type === "OnDelete") {
    if (rolling != null) {
      causes.push(
        fieldInvalid("spec.updateStrategy.rollingUpdate", rolling, "only allowed for updateStrategy 'RollingUpdate'"),
      );
    }
  } else if (strategy.type === "RollingUpdate") {
    if (rolling != null) {
      causes.push(...negativeFieldCauses(rolling, ["partition"], "spec.updateStrategy.rollingUpdate"));
      const path = "spec.updateStrategy.rollingUpdate.maxUnavailable";
      if (rolling.maxUnavailable != null) {
        causes.push(...intOrPercentCauses(rolling.maxUnavailable, path));
        if (intOrPercentValue(rolling.maxUnavailable) === 0) {
          causes.push(fieldInvalid(path, rolling.maxUnavailable, "cannot be 0"));
        }
        if (percentOver100(rolling.maxUnavailable)) {
          causes.push(fieldInvalid(path, rolling.maxUnavailable, "must not be greater than 100%"));
        }
      }
    }
  } else {
    // kube prints the internal struct: Go field names, no JSON tags.
    const shown = { Type: strategy.type, RollingUpdate: rolling ?? null };
    causes.push(fieldInvalid("spec.updateStrategy", shown, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (retention && typeof retention === "object") {
    for (const when of ["whenDeleted", "whenScaled"]) {
      if (!["Retain", "Delete"].includes(retention[when])) {
        causes.push(
          fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${when}`, retention[when] ?? "", [
            "Retain",
            "Delete",
          ]),
        );
      }
    }
  }
  causes.push(...negativeFieldCauses(spec, ["replicas", "minReadySeconds"], "spec"));
  if (spec.ordinals && typeof spec.ordinals === "object") {
    causes.push(...negativeFieldCauses(spec.ordinals, ["start"], "spec.ordinals"));
  }
  return causes;
}

/** A DaemonSet's rules after its template (ValidateDaemonSetSpec): counts, the update strategy, the history limit. */
export function daemonSetSpecCauses(spec: Json): StatusCause[] {
  const causes = negativeFieldCauses(spec, ["minReadySeconds", "templateGeneration"], "spec");
  const strategy: Json = spec.updateStrategy && typeof spec.updateStrategy === "object" ? spec.updateStrategy : {};
  if (strategy.type === "RollingUpdate") {
    const rolling = strategy.rollingUpdate;
    const path = "spec.updateStrategy.rollingUpdate";
    if (rolling == null) causes.push(fieldRequired(path));
    else {
      causes.push(...intOrPercentCauses(rolling.maxUnavailable, `${path}.maxUnavailable`));
      causes.push(...intOrPercentCauses(rolling.maxSurge, `${path}.maxSurge`));
      for (const f of ["maxUnavailable", "maxSurge"]) {
        if (percentOver100(rolling[f])) {
          causes.push(fieldInvalid(`${path}.${f}`, rolling[f], "must not be greater than 100%"));
        }
      }
      const unavailable = intOrPercentValue(rolling.maxUnavailable) !== 0;
      const surge = intOrPercentValue(rolling.maxSurge) !== 0;
      if (unavailable && surge) {
        causes.push(
          fieldInvalid(`${path}.maxSurge`, rolling.maxSurge, "may not be set when maxUnavailable is non-zero"),
        );
      } else if (!unavailable && !surge) {
        causes.push(fieldRequired(`${path}.maxUnavailable`, "cannot be 0 when maxSurge is 0"));
      }
    }
  } else if (strategy.type !== "OnDelete") {
    const shown = { Type: strategy.type ?? "", RollingUpdate: strategy.rollingUpdate ?? null };
    causes.push(fieldNotSupported("spec.updateStrategy", shown, ["RollingUpdate", "OnDelete"]));
  }
  causes.push(...negativeFieldCauses(spec, ["revisionHistoryLimit"], "spec"));
  return causes;
}
