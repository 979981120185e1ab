/**
 * batch/v1 Jobs and CronJobs, defaulted and validated as kube-apiserver v1.37 does (pkg/apis/batch/v1/defaults.go,
 * pkg/apis/batch/validation, pkg/registry/batch/job/strategy.go). A Job without a manual selector gets the selector
 * `batch.kubernetes.io/controller-uid=<uid>` and its template the controller-uid and job-name labels (both spellings),
 * which also become the Job's labels when it has none; parallelism/completions 1, backoffLimit 6, NonIndexed,
 * suspend false, podReplacementPolicy TerminatingOrFailed. Its pods' restartPolicy must be OnFailure or Never and its
 * selector may not change. A CronJob's schedule is required and parsed as a five-field cron line (no TZ=); it gets
 * concurrencyPolicy Allow, suspend false and history limits 3/1.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { jsonEqual } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired, negativeFieldCauses } from "../validation/field_errors.ts";
import { defaultPodTemplate, validatePodSpec } from "../validation/pod_spec.ts";
import { immutableSpecFields, selectorJson, validateSelectorAndTemplate } from "./workloads.ts";
import { jobCountCauses, jobModeCauses } from "../validation/workload_counts.ts";

const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** validateTimeZone: an IANA zone the time zone database knows (kube: Go's time.LoadLocation; here Intl's list). */
function timeZoneCauses(zone: unknown): StatusCause[] {
  if (zone == null) return [];
  const text = String(zone);
  if (!text) return [fieldInvalid("spec.timeZone", text, "timeZone must be nil or non-empty string")];
  const unknown = fieldInvalid("spec.timeZone", text, `unknown time zone ${text}`);
  if (text.split("/").some((p) => p === "." || p === ".." || p.startsWith("-") || !TIME_ZONE_PART.test(p))) {
    return [unknown];
  }
  const causes: StatusCause[] = [];
  if (text.toLowerCase() === "local") {
    causes.push(
      fieldInvalid(
        "spec.timeZone",
        text,
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
      ),
    );
  }
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: text });
  } catch {
    causes.push(unknown);
  }
  return causes;
}

// deno-lint-ignore no-explicit-any
type Json = any;

const RESTART_REQUIRED = 'valid values: "OnFailure", "Never"';

function restartCauses(podSpec: Json, field: string): StatusCause[] {
  const policy = podSpec?.restartPolicy;
  return policy === "OnFailure" || policy === "Never" ? [] : [fieldRequired(field, RESTART_REQUIRED)];
}

function defaultJobSpec(spec: Json): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  spec.completionMode ??= "NonIndexed";
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? "Failed" : "TerminatingOrFailed";
  spec.manualSelector ??= false;
  defaultPodTemplate(spec.template ??= {});
}

/** The strategy of batch/v1 jobs. */
export const JOBS: ResourceStrategy = {
  // batch/v1 keeps a Job's pods when a delete names no policy (kube: DefaultGarbageCollectionPolicy).
  defaultPropagationPolicy: "Orphan",
  defaultPropagationWarning: "child pods are preserved by default when jobs are deleted; set " +
    "propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning",
  prepareForCreate(job: KubeObject): void {
    job.status = {};
    job.spec = job.spec && typeof job.spec === "object" ? job.spec : {};
    const spec = job.spec;
    // manualSelector is SetDefaults_Job's (the writer owns it): `default`.
    if (spec.manualSelector === true) return;
    const uid = job.metadata.uid!;
    const name = job.metadata.name!;
    spec.template ??= {};
    spec.template.metadata ??= {};
    spec.template.metadata.labels = {
      ...spec.template.metadata.labels,
      "batch.kubernetes.io/controller-uid": uid,
      "batch.kubernetes.io/job-name": name,
      "controller-uid": uid,
      "job-name": name,
    };
    spec.selector = { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
  },
  default(job: KubeObject): void {
    if (!job.spec || typeof job.spec !== "object") job.spec = {};
    defaultJobSpec(job.spec);
    const labels = job.spec.template?.metadata?.labels;
    if (labels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...labels };
  },
  validate(job: KubeObject, ctx: StrategyContext): StatusCause[] {
    if (ctx.subresource === "status") return [];
    return [
      ...jobCountCauses(job.spec ?? {}),
      ...jobModeCauses(job.spec ?? {}),
      ...validateSelectorAndTemplate(job, { restartAlways: false }),
      ...restartCauses(job.spec?.template?.spec, "spec.template.spec.restartPolicy"),
    ];
  },
  validateUpdate(next: KubeObject, old: KubeObject, ctx: StrategyContext): StatusCause[] {
    if (ctx.subresource === "status") return [];
    const causes = JOBS.validate!(next, ctx);
    if (!jsonEqual(selectorJson(next.spec?.selector), selectorJson(old.spec?.selector))) {
      causes.push({
        ...fieldInvalid("spec.selector", "", "field is immutable"),
        message: `Invalid value: ${JSON.stringify(selectorJson(next.spec?.selector))}: field is immutable`,
      });
    }
    return [...causes, ...immutableSpecFields(next, old, ["completionMode"])];
  },
};

const DESCRIPTORS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);
const BOUNDS: Array<[min: number, max: number, names?: string[]]> = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12, ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]],
  [0, 6, ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]],
];

function parseValue(text: string, names: string[] | undefined, offset: number): number | string {
  const named = names?.indexOf(text.toLowerCase());
  if (named !== undefined && named >= 0) return named + offset;
  if (!/^-?\d+$/.test(text)) {
    return `failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
  }
  return Number(text);
}

/** robfig/cron's error for one field of a standard schedule, or undefined. */
function cronFieldError(field: string, [min, max, names]: [number, number, string[]?]): string | undefined {
  for (const expr of field.split(",")) {
    const [range, step] = expr.split("/");
    if (step !== undefined && !/^\d+$/.test(step)) {
      return `failed to parse int from ${step}: strconv.Atoi: parsing ${JSON.stringify(step)}: invalid syntax`;
    }
    if (range === "*" || range === "?") continue;
    const [lo, hi] = range.split("-");
    const start = parseValue(lo, names, min);
    if (typeof start === "string") return start;
    const end = hi === undefined ? start : parseValue(hi, names, min);
    if (typeof end === "string") return end;
    if (start < min) return `beginning of range (${start}) below minimum (${min}): ${expr}`;
    if (end > max) return `end of range (${end}) above maximum (${max}): ${expr}`;
    if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  }
  return undefined;
}

/** Why kube refuses a CronJob schedule, or undefined when it parses. */
export function cronScheduleError(schedule: string): string | undefined {
  if (schedule.startsWith("TZ=") || schedule.startsWith("CRON_TZ=")) {
    return "cannot use TZ or CRON_TZ in schedule, use timeZone field instead";
  }
  const trimmed = schedule.trim();
  if (trimmed.startsWith("@")) {
    if (DESCRIPTORS.has(trimmed) || trimmed.startsWith("@every ")) return undefined;
    return `unrecognized descriptor: ${trimmed}`;
  }
  const fields = trimmed.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`;
  for (let i = 0; i < 5; i++) {
    const err = cronFieldError(fields[i], BOUNDS[i]);
    if (err) return err;
  }
  return undefined;
}

function validateCronJob(cj: KubeObject, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") return [];
  const spec = cj.spec ?? {};
  const causes: StatusCause[] = [];
  const schedule = typeof spec.schedule === "string" ? spec.schedule : "";
  if (schedule) {
    const err = cronScheduleError(schedule);
    if (err) causes.push(fieldInvalid("spec.schedule", schedule, err));
  }
  causes.push(...negativeFieldCauses(spec, ["startingDeadlineSeconds"], "spec"));
  causes.push(...timeZoneCauses(spec.timeZone));
  const policy = spec.concurrencyPolicy;
  if (policy === "") causes.push(fieldRequired("spec.concurrencyPolicy"));
  else if (policy != null && !["Allow", "Forbid", "Replace"].includes(policy)) {
    causes.push(fieldNotSupported("spec.concurrencyPolicy", policy, ["Allow", "Forbid", "Replace"]));
  }
  causes.push(...jobCountCauses(spec.jobTemplate?.spec ?? {}, "spec.jobTemplate.spec"));
  causes.push(...jobModeCauses(spec.jobTemplate?.spec ?? {}, "spec.jobTemplate.spec"));
  const podSpec = spec.jobTemplate?.spec?.template?.spec;
  causes.push(...validatePodSpec(podSpec, "spec.jobTemplate.spec.template.spec"));
  causes.push(...restartCauses(podSpec, "spec.jobTemplate.spec.template.spec.restartPolicy"));
  causes.push(...negativeFieldCauses(spec, ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"], "spec"));
  // v1.37 checks a missing schedule declaratively: its error comes after the handwritten ones.
  if (!schedule) causes.push(fieldRequired("spec.schedule"));
  return causes;
}

/** The strategy of batch/v1 cronjobs. */
export const CRONJOBS: ResourceStrategy = {
  prepareForCreate(cj: KubeObject): void {
    cj.status = {};
  },
  default(cj: KubeObject): void {
    if (!cj.spec || typeof cj.spec !== "object") cj.spec = {};
    const spec = cj.spec;
    spec.concurrencyPolicy ??= "Allow";
    spec.suspend ??= false;
    spec.successfulJobsHistoryLimit ??= 3;
    spec.failedJobsHistoryLimit ??= 1;
    spec.jobTemplate ??= {};
    spec.jobTemplate.metadata ??= {};
    spec.jobTemplate.spec ??= {};
    const template = (spec.jobTemplate.spec.template ??= {});
    template.metadata ??= {};
    defaultPodTemplate(template);
  },
  validate: validateCronJob,
  validateUpdate: (next, _old, ctx) => validateCronJob(next, ctx),
};
