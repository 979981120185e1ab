/**
 * Writes of a Pod's `ephemeralcontainers` and `resize` subresources as kube-apiserver v1.37 makes them
 * (pkg/registry/core/pod/strategy.go: podEphemeralContainersStrategy and podResizeStrategy; pkg/apis/core/validation:
 * ValidatePodEphemeralContainersUpdate and ValidatePodResize). Each takes only what it owns from the body and drops
 * every other change (spec, status, labels and annotations come from the stored pod), then validates the result:
 * ephemeral containers may be added but never changed or removed, and are validated as containers with kube's allow
 * list (no ports, probes, lifecycle, resources, resizePolicy or restartPolicy); a resize changes containers'
 * `resources` and `resizePolicy` and may not add, remove, rename or reorder containers nor change the QoS class.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { dns1123LabelErrors } from "../../../runtime/apimachinery/names.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { jsonEqual } from "../object_rules.ts";
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotFound, fieldRequired } from "./field_errors.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const list = (v: unknown): Json[] => Array.isArray(v) ? v : [];

/** The stored pod with the body's `spec.ephemeralContainers` (kube's dropNonEphemeralContainerUpdates). */
export function ephemeralContainersWrite(body: KubeObject, old: KubeObject): KubeObject {
  const next = keptPod(body, old);
  const sent = body.spec?.ephemeralContainers;
  if (sent === undefined || sent === null) delete next.spec.ephemeralContainers;
  else next.spec.ephemeralContainers = sent;
  return next;
}

/**
 * The stored pod with the body's containers' and init containers' `resources` and `resizePolicy` (kube's
 * dropNonResizeUpdates); a body that adds, removes, renames or reorders containers keeps its spec for validation.
 */
export function resizeWrite(body: KubeObject, old: KubeObject): KubeObject {
  const spec = body.spec ?? {};
  const sameShape = (key: string) =>
    list(spec[key]).length === list(old.spec?.[key]).length &&
    list(spec[key]).every((c, i) => c?.name === list(old.spec?.[key])[i]?.name);
  if (!sameShape("containers") || !sameShape("initContainers")) {
    const next = keptPod(body, old);
    next.spec = copyJson(spec);
    return next;
  }
  const next = keptPod(body, old);
  for (const key of ["containers", "initContainers"]) {
    list(next.spec[key]).forEach((c, i) => {
      const sent = list(spec[key])[i] ?? {};
      for (const field of ["resources", "resizePolicy"]) {
        if (sent[field] === undefined) delete c[field];
        else c[field] = sent[field];
      }
    });
  }
  return next;
}

/** The body's metadata but for labels and annotations, the stored spec and status (ResetObjectMetaForStatus). */
function keptPod(body: KubeObject, old: KubeObject): KubeObject {
  const next = copyJson(old);
  next.metadata = { ...body.metadata };
  for (const key of ["labels", "annotations"] as const) {
    if (old.metadata[key] === undefined) delete next.metadata[key];
    else next.metadata[key] = copyJson(old.metadata[key]);
  }
  next.spec ??= {};
  return next;
}

/** Ephemeral container fields kube's allow list refuses (validateFieldAllowList over EphemeralContainerCommon). */
const NOT_ALLOWED = [
  "ports",
  "resources",
  "resizePolicy",
  "restartPolicy",
  "restartPolicyRules",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "lifecycle",
];

const isZero = (v: unknown): boolean =>
  v === undefined || v === null || v === "" ||
  (typeof v === "object" && Object.values(v as object).every(isZero)) || (Array.isArray(v) && v.length === 0);

/** kube's validateEphemeralContainers: the new pod's ephemeral containers. */
function validateEphemeralContainers(spec: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  const others = new Set([...list(spec?.containers), ...list(spec?.initContainers)].map((c) => c?.name));
  const all = new Set(others);
  list(spec?.ephemeralContainers).forEach((c, i) => {
    const at = `spec.ephemeralContainers[${i}]`;
    const name = typeof c?.name === "string" ? c.name : "";
    if (!name) causes.push(fieldRequired(`${at}.name`));
    else for (const msg of dns1123LabelErrors(name)) causes.push(fieldInvalid(`${at}.name`, name, msg));
    if (!c?.image || typeof c.image !== "string" || !c.image.trim()) causes.push(fieldRequired(`${at}.image`));
    if (name && all.has(name)) causes.push(fieldDuplicate(`${at}.name`, name));
    else all.add(name);
    const target = c?.targetContainerName;
    if (target && !others.has(target)) causes.push(fieldNotFound(`${at}.targetContainerName`, target));
    for (const field of NOT_ALLOWED) {
      if (!isZero(c?.[field])) {
        causes.push(fieldForbidden(`${at}.${field}`, "cannot be set for an Ephemeral Container"));
      }
    }
    list(c?.volumeMounts).forEach((m, j) => {
      if (m?.subPath) {
        causes.push(fieldForbidden(`${at}.volumeMounts[${j}].subPath`, "cannot be set for an Ephemeral Container"));
      }
    });
  });
  return causes;
}

/**
 * kube's ValidatePodEphemeralContainersUpdate: the new ones validated, an existing one neither changed nor removed
 * (kube appends a Go diff to the changed message; the fake names the fields that differ), none on a static pod.
 */
export function validateEphemeralContainersUpdate(next: KubeObject, old: KubeObject): StatusCause[] {
  if (old.metadata.annotations?.["kubernetes.io/config.mirror"] !== undefined) {
    return [fieldForbidden("", "static pods do not support ephemeral containers")];
  }
  const causes = validateEphemeralContainers(next.spec);
  const byName = new Map(list(next.spec?.ephemeralContainers).map((c) => [c?.name, c]));
  for (const was of list(old.spec?.ephemeralContainers)) {
    const now = byName.get(was.name);
    const field = "spec.ephemeralContainers";
    if (!now) {
      causes.push(
        fieldForbidden(field, `existing ephemeral containers ${JSON.stringify(was.name)} may not be removed\n`),
      );
    } else if (!jsonEqual(now, was)) {
      const changed = Object.keys({ ...was, ...now }).filter((k) => !jsonEqual(now[k], was[k])).sort();
      causes.push(
        fieldForbidden(
          field,
          `existing ephemeral containers ${JSON.stringify(was.name)} may not be changed\nchanged: ${
            changed.join(", ")
          }`,
        ),
      );
    }
  }
  return causes;
}

/**
 * kube's ValidatePodResize: containers neither added, removed, renamed nor reordered; the QoS class (`qos` of a spec)
 * unchanged; only cpu and memory requests and limits changed; none on a static or Windows pod.
 */
export function validatePodResize(next: KubeObject, old: KubeObject, qos: (spec: Json) => string): StatusCause[] {
  if (old.metadata.annotations?.["kubernetes.io/config.mirror"] !== undefined) {
    return [fieldForbidden("", "static pods cannot be resized")];
  }
  if (old.spec?.os?.name === "windows") return [fieldForbidden("", "windows pods cannot be resized")];
  const causes: StatusCause[] = [];
  const newQos = qos(next.spec);
  if (qos(old.spec) !== newQos) {
    causes.push(fieldInvalid("spec", newQos, "Pod QOS Class may not change as a result of resizing"));
  }
  const ordering: StatusCause[] = [];
  for (const key of ["containers", "initContainers"]) {
    const [now, was] = [list(next.spec?.[key]), list(old.spec?.[key])];
    if (now.length !== was.length) {
      ordering.push(fieldForbidden(`spec.${key}`, `${key} may not be added or removed on resize`));
      continue;
    }
    was.forEach((c, i) => {
      if (now[i]?.name !== c?.name) {
        ordering.push(fieldForbidden(`spec.${key}[${i}].name`, `${key} may not be renamed or reordered on resize`));
      }
    });
  }
  if (ordering.length > 0) return [...causes, ...ordering];
  const cpuMemory = (spec: Json) => {
    const copy = copyJson(spec ?? {});
    for (const key of ["containers", "initContainers"]) {
      for (const c of list(copy[key])) {
        for (const kind of ["requests", "limits"]) {
          const r = c?.resources?.[kind];
          if (r && typeof r === "object") {
            delete r.cpu;
            delete r.memory;
            if (Object.keys(r).length === 0) delete c.resources[kind];
          }
        }
        delete c?.resizePolicy;
      }
    }
    return copy;
  };
  if (!jsonEqual(cpuMemory(next.spec), cpuMemory(old.spec))) {
    causes.push(fieldForbidden("spec", "only cpu and memory resources are mutable"));
  }
  return causes;
}
