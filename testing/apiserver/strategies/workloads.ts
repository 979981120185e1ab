/**
 * apps/v1 Deployments, StatefulSets, DaemonSets and ReplicaSets, defaulted and validated as kube-apiserver v1.37 does
 * (pkg/apis/apps/v1/defaults.go, pkg/apis/apps/validation, pkg/registry/apps/*\/strategy.go): each kind's spec
 * defaults and pod-template defaults, the zero status a create starts with; a selector is required, must match the
 * template's labels and may not change; the template's pod spec is validated and its restartPolicy must be Always.
 * ControllerRevisions need their data, which never changes.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { labelSelectorMatcher, SelectorError } from "../../../runtime/apimachinery/label_selector.ts";
import { dns1123LabelErrors } from "../../../runtime/apimachinery/names.ts";
import { jsonEqual, validateLabelName } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import { fieldImmutable, fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";
import { validateLabels } from "../validation/object_meta.ts";
import { defaultPodTemplate, templateLabels, validatePodSpec } from "../validation/pod_spec.ts";
import {
  daemonSetSpecCauses,
  deploymentSpecCauses,
  replicaSetCountCauses,
  statefulSetCountCauses,
} from "../validation/workload_counts.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** JSON with object keys sorted, as Go marshals maps. */
export function goJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

/** A metav1.LabelSelector as Go marshals it (matchLabels, then matchExpressions; empty ones left out). */
export function selectorJson(selector: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (selector?.matchLabels && Object.keys(selector.matchLabels).length) {
    out.matchLabels = JSON.parse(goJson(selector.matchLabels));
  }
  if (Array.isArray(selector?.matchExpressions) && selector.matchExpressions.length) {
    out.matchExpressions = selector.matchExpressions.map((e: Json) => {
      const x: Record<string, unknown> = { key: e.key, operator: e.operator };
      if (e.values?.length) x.values = e.values;
      return x;
    });
  }
  return out;
}

function matches(selector: Json, labels: Record<string, string>): boolean {
  if (!selector) return false; // kube: a nil selector selects nothing
  try {
    return labelSelectorMatcher(selector)(labels);
  } catch (err) {
    if (err instanceof SelectorError) return false;
    throw err;
  }
}

/** Selector and template rules shared by the four kinds (and Jobs with a manual selector). */
export function validateSelectorAndTemplate(
  obj: KubeObject,
  opts: {
    restartAlways: boolean;
    selectorRequired?: boolean;
    /** The kind's rules before its selector; by default a negative replicas count. */
    counts?: (spec: Json) => StatusCause[];
  },
): StatusCause[] {
  const spec = obj.spec ?? {};
  const causes: StatusCause[] = opts.counts ? opts.counts(spec) : [];
  if (!opts.counts && typeof spec.replicas === "number" && spec.replicas < 0) {
    causes.push(fieldInvalid("spec.replicas", spec.replicas, "must be greater than or equal to 0"));
  }
  // A DaemonSet's nil selector is not reported as such: it selects nothing, so the template's labels do not match.
  if (!spec.selector) {
    if (opts.selectorRequired !== false) causes.push(fieldRequired("spec.selector"));
  } else if (Object.keys(selectorJson(spec.selector)).length === 0) {
    causes.push(
      fieldInvalid(
        "spec.selector",
        selectorJson(spec.selector),
        `empty selector is invalid for ${obj.kind?.toLowerCase() ?? "this kind"}`,
      ),
    );
  }
  const labels = templateLabels(obj);
  if (!matches(spec.selector, labels)) {
    const raw = spec.template?.metadata?.labels;
    causes.push({
      ...fieldInvalid("spec.template.metadata.labels", "", "`selector` does not match template `labels`"),
      message: `Invalid value: ${raw ? goJson(raw) : "null"}: \`selector\` does not match template \`labels\``,
    });
  }
  causes.push(...validateLabels(spec.template?.metadata?.labels, "spec.template.metadata.labels"));
  causes.push(...validatePodSpec(spec.template?.spec, "spec.template.spec"));
  const restart = spec.template?.spec?.restartPolicy;
  if (opts.restartAlways && restart !== undefined && restart !== "Always") {
    causes.push(fieldNotSupported("spec.template.spec.restartPolicy", restart, ["Always"]));
  }
  return causes;
}

function selectorImmutable(next: KubeObject, old: KubeObject): StatusCause[] {
  if (jsonEqual(selectorJson(next.spec?.selector), selectorJson(old.spec?.selector))) return [];
  const cause = fieldImmutable("spec.selector", "");
  return [{
    ...cause,
    message: `Invalid value: ${JSON.stringify(selectorJson(next.spec?.selector))}: field is immutable`,
  }];
}

/** Causes for spec fields (strings) an update may not change, in the order given. */
export function immutableSpecFields(next: KubeObject, old: KubeObject, fields: readonly string[]): StatusCause[] {
  return fields.filter((f) => !jsonEqual(next.spec?.[f], old.spec?.[f])).map((f) =>
    fieldImmutable(`spec.${f}`, next.spec?.[f] ?? "")
  );
}

/** A workload strategy from its kind's defaults, create-time status and spec fields fixed after create. */
function workload(
  defaults: (spec: Json) => void,
  initialStatus: () => Record<string, unknown>,
  opts: {
    /** Spec fields fixed after create. */
    immutable?: readonly string[];
    selectorRequired?: boolean;
    /** The kind's rules before its selector (validateSelectorAndTemplate's `counts`). */
    counts?: (spec: Json) => StatusCause[];
    /** The kind's rules after its template. */
    specCauses?: (spec: Json) => StatusCause[];
  } = {},
): ResourceStrategy {
  const { immutable = [], selectorRequired = true, counts, specCauses = () => [] } = opts;
  const main = (ctx: StrategyContext) => ctx.subresource !== "status";
  const rules = { restartAlways: true, selectorRequired, counts };
  const validate = (obj: KubeObject) => [...validateSelectorAndTemplate(obj, rules), ...specCauses(obj.spec ?? {})];
  return {
    prepareForCreate(obj: KubeObject): void {
      obj.status = initialStatus();
    },
    default(obj: KubeObject): void {
      if (!obj.spec || typeof obj.spec !== "object") obj.spec = {};
      defaults(obj.spec);
      defaultPodTemplate(obj.spec.template);
    },
    validate: (obj, ctx) => main(ctx) ? validate(obj) : [],
    validateUpdate: (next, old, ctx) =>
      main(ctx)
        ? [
          ...validate(next),
          ...selectorImmutable(next, old),
          ...immutableSpecFields(next, old, immutable),
        ]
        : [],
  };
}

/** apps/v1 deployments (a status write keeps the stored labels: strategies/status_metadata.ts). */
export const DEPLOYMENTS: ResourceStrategy = workload(
  (spec) => {
    spec.replicas ??= 1;
    spec.strategy ??= {};
    spec.strategy.type ??= "RollingUpdate";
    if (spec.strategy.type === "RollingUpdate") {
      spec.strategy.rollingUpdate ??= {};
      spec.strategy.rollingUpdate.maxUnavailable ??= "25%";
      spec.strategy.rollingUpdate.maxSurge ??= "25%";
    }
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
  },
  () => ({}),
  { specCauses: deploymentSpecCauses },
);

const STATEFULSET_BASE: ResourceStrategy = workload(
  (spec) => {
    spec.replicas ??= 1;
    spec.podManagementPolicy ??= "OrderedReady";
    spec.updateStrategy ??= {};
    spec.updateStrategy.type ??= "RollingUpdate";
    if (spec.updateStrategy.type === "RollingUpdate") {
      spec.updateStrategy.rollingUpdate ??= {};
      spec.updateStrategy.rollingUpdate.partition ??= 0;
      spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
    }
    spec.revisionHistoryLimit ??= 10;
    spec.persistentVolumeClaimRetentionPolicy ??= {};
    spec.persistentVolumeClaimRetentionPolicy.whenDeleted ??= "Retain";
    spec.persistentVolumeClaimRetentionPolicy.whenScaled ??= "Retain";
  },
  () => ({ replicas: 0, availableReplicas: 0 }),
  {
    immutable: ["serviceName", "podManagementPolicy"],
    counts: (spec) => [...statefulSetCountCauses(spec), ...validateServiceName(spec)],
  },
);

/** A StatefulSet's spec.serviceName, when set, must be a DNS-1123 label (it names the pods' governing Service). */
function validateServiceName(spec: Json): StatusCause[] {
  const name = spec.serviceName;
  if (typeof name !== "string" || name === "") return [];
  return dns1123LabelErrors(name).map((msg) => fieldInvalid("spec.serviceName", name, msg));
}

/** apps/v1 statefulsets: names are DNS-1123 labels (they prefix the pods' hostnames), as is spec.serviceName. */
export const STATEFULSETS: ResourceStrategy = { ...STATEFULSET_BASE, validateName: validateLabelName };

const DAEMONSET_BASE: ResourceStrategy = workload(
  (spec) => {
    spec.updateStrategy ??= {};
    spec.updateStrategy.type ??= "RollingUpdate";
    if (spec.updateStrategy.type === "RollingUpdate") {
      spec.updateStrategy.rollingUpdate ??= {};
      spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
      spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
    }
    spec.revisionHistoryLimit ??= 10;
  },
  () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
  { selectorRequired: false, specCauses: daemonSetSpecCauses },
);

/** The annotation apps/v1 carries a DaemonSet's template generation in (kube's internal spec.templateGeneration). */
const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

function templateGeneration(obj: KubeObject): number {
  const n = Number.parseInt(obj.metadata?.annotations?.[TEMPLATE_GENERATION] ?? "", 10);
  return Number.isFinite(n) ? n : 0;
}

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  obj.metadata.annotations = { ...obj.metadata.annotations, [TEMPLATE_GENERATION]: String(generation) };
}

/**
 * apps/v1 daemonsets: as the other workloads, and the template generation kube's strategy keeps — 1 on create, the
 * stored one plus 1 when an update changes the (defaulted) template, shown as the
 * `deprecated.daemonset.template.generation` annotation.
 */
export const DAEMONSETS: ResourceStrategy = {
  ...DAEMONSET_BASE,
  // Set where kube's v1 conversion writes it (at decode, before the field manager): the writer owns it.
  default(obj: KubeObject, ctx: StrategyContext): void {
    DAEMONSET_BASE.default?.(obj, ctx);
    if (ctx.verb === "create") setTemplateGeneration(obj, 1);
  },
  prepareForUpdate(next: KubeObject, old: KubeObject, ctx: StrategyContext): void {
    let generation = templateGeneration(old);
    if (ctx.subresource !== "status") {
      const template = copyJson(next.spec?.template);
      defaultPodTemplate(template);
      if (!jsonEqual(template, old.spec?.template)) generation++;
    }
    setTemplateGeneration(next, generation);
  },
};

/** apps/v1 replicasets. */
export const REPLICASETS: ResourceStrategy = workload(
  (spec) => {
    spec.replicas ??= 1;
  },
  () => ({ replicas: 0 }),
  { counts: replicaSetCountCauses },
);

/** core/v1 podtemplates: the template's pod spec is defaulted as a pod's; a DELETE answers with the object. */
export const PODTEMPLATES: ResourceStrategy = {
  returnDeletedObject: true,
  default(obj: KubeObject): void {
    defaultPodTemplate(obj.template);
  },
};

/**
 * core/v1 replicationcontrollers: replicas 1, the selector (and the object's labels, when empty) from the template's
 * labels (SetDefaults_ReplicationController), the template defaulted as a pod's; status starts at `replicas: 0`; a
 * delete without a propagation policy orphans its pods.
 */
export const REPLICATION_CONTROLLERS: ResourceStrategy = {
  // v1 keeps a controller's pods when a delete names no policy (kube: DefaultGarbageCollectionPolicy).
  defaultPropagationPolicy: "Orphan",
  prepareForCreate(obj: KubeObject): void {
    obj.status = { replicas: 0 };
  },
  default(obj: KubeObject): void {
    if (!obj.spec || typeof obj.spec !== "object") obj.spec = {};
    const spec = obj.spec;
    spec.replicas ??= 1;
    const labels = spec.template?.metadata?.labels;
    if (labels && typeof labels === "object" && Object.keys(labels).length > 0) {
      if (!spec.selector || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
      if (!obj.metadata.labels || Object.keys(obj.metadata.labels).length === 0) obj.metadata.labels = { ...labels };
    }
    defaultPodTemplate(spec.template);
  },
};

/** ValidateControllerRevision: data is mandatory, revision is not negative; an update may not change data. */
function controllerRevisionCauses(rev: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (rev.data === undefined || rev.data === null) causes.push(fieldRequired("data", "data is mandatory"));
  if (typeof rev.revision === "number" && rev.revision < 0) {
    causes.push(fieldInvalid("revision", rev.revision, "must be greater than or equal to 0"));
  }
  return causes;
}

/** The strategy of apps/v1 controllerrevisions. */
export const CONTROLLER_REVISIONS: ResourceStrategy = {
  validate: controllerRevisionCauses,
  validateUpdate: (next, old) => [
    ...controllerRevisionCauses(next),
    ...(jsonEqual(next.data, old.data) ? [] : [fieldImmutable("data", next.data)]),
  ],
};
