/**
 * kube-apiserver's per-object rules the fake applies on write: name validation, generateName, the defaults and
 * immutability checks of built-in kinds (Namespace phase, Pod Pending, Secret stringData/type/immutable, Service
 * clusterIP), and which part of an object counts for metadata.generation.
 * @module
 */
import type { StatusCause } from "../runtime/errors.ts";
import type { KubeObject } from "../runtime/types.ts";
import type { ResourceDef } from "./resource_def.ts";
import { deepEqual } from "../runtime/apimachinery/equality.ts";
import { dns1035LabelErrors, dns1123LabelErrors, dns1123SubdomainErrors } from "../runtime/apimachinery/names.ts";

/** Kubernetes metav1.Time: RFC 3339 in UTC with whole seconds (`2026-01-01T00:00:00Z`). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Name-format causes for `name` of a `def` object (empty when valid). */
export function validateName(def: ResourceDef, name: string): StatusCause[] {
  const bad = (msg: string): StatusCause[] => [{
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(name)}: ${msg}`,
    field: "metadata.name",
  }];
  const causes = (errs: string[]): StatusCause[] => errs.length ? bad(errs[0]) : [];
  if (def.group === "" && def.plural === "namespaces") {
    return causes(dns1123LabelErrors(name));
  }
  if (def.group === "" && def.plural === "services") {
    return causes(dns1035LabelErrors(name));
  }
  if (def.group === "rbac.authorization.k8s.io" || def.group === "apiregistration.k8s.io") {
    return name && !name.includes("/") && !name.includes("%") && name !== "." && name !== ".."
      ? []
      : bad("may not contain '/' or '%'");
  }
  return causes(dns1123SubdomainErrors(name));
}

const GENERATE_CHARS = "bcdfghjklmnpqrstvwxz2456789";

/** `generateName` + 5 random characters, as the real name generator does. */
export function generateName(prefix: string): string {
  let suffix = "";
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  for (const b of bytes) suffix += GENERATE_CHARS[b % GENERATE_CHARS.length];
  return `${prefix.slice(0, 58)}${suffix}`;
}

/** True for deep-equal JSON values (key order ignored): runtime/apimachinery's {@link deepEqual}. */
export const jsonEqual: (a: unknown, b: unknown) => boolean = deepEqual;

/** Whether a change from `old` to `next` bumps metadata.generation (anything outside metadata and status). */
export function specChanged(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !jsonEqual(strip(old), strip(next));
}

function isCore(def: ResourceDef, plural: string): boolean {
  return def.group === "" && def.plural === plural;
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Fills kind defaults on create (mutates `obj`). `allocateIp` hands out Service cluster IPs. */
export function applyCreateDefaults(def: ResourceDef, obj: KubeObject, allocateIp: () => string): void {
  if (isCore(def, "namespaces")) {
    obj.metadata.labels = { ...obj.metadata.labels, "kubernetes.io/metadata.name": obj.metadata.name! };
    obj.spec = { finalizers: ["kubernetes"], ...obj.spec };
    obj.status = { phase: "Active" };
  } else if (isCore(def, "pods")) {
    obj.spec = { restartPolicy: "Always", dnsPolicy: "ClusterFirst", schedulerName: "default-scheduler", ...obj.spec };
    obj.spec.serviceAccountName ??= "default";
    obj.spec.terminationGracePeriodSeconds ??= 30;
    obj.status = { phase: "Pending", qosClass: "BestEffort" };
  } else if (isCore(def, "services")) {
    obj.spec = { type: "ClusterIP", sessionAffinity: "None", ...obj.spec };
    if (obj.spec.type !== "ExternalName" && !obj.spec.clusterIP) {
      obj.spec.clusterIP = allocateIp();
      obj.spec.clusterIPs = [obj.spec.clusterIP];
    }
    for (const p of obj.spec.ports ?? []) {
      p.protocol ??= "TCP";
      p.targetPort ??= p.port;
    }
    obj.status ??= { loadBalancer: {} };
  }
  normaliseData(def, obj);
}

/** Secret `stringData` folds into `data`; type defaults to Opaque. */
function normaliseData(def: ResourceDef, obj: KubeObject): void {
  if (!isCore(def, "secrets")) return;
  obj.type ??= "Opaque";
  if (obj.stringData && typeof obj.stringData === "object") {
    obj.data = { ...obj.data };
    for (const [k, v] of Object.entries(obj.stringData)) obj.data[k] = base64(String(v));
    delete obj.stringData;
  }
}

/** Update rules of built-in kinds: causes for forbidden changes (mutates `next` for defaults). */
export function checkUpdate(def: ResourceDef, old: KubeObject, next: KubeObject): StatusCause[] {
  normaliseData(def, next);
  const causes: StatusCause[] = [];
  if (isCore(def, "secrets") || isCore(def, "configmaps")) {
    if (old.immutable === true) {
      if (!jsonEqual(old.data, next.data) || !jsonEqual(old.binaryData, next.binaryData)) {
        causes.push({
          reason: "FieldValueForbidden",
          message: "Forbidden: field is immutable when `immutable` is set",
          field: "data",
        });
      }
      if (next.immutable !== true) {
        causes.push({
          reason: "FieldValueForbidden",
          message: "Forbidden: field is immutable when `immutable` is set",
          field: "immutable",
        });
      }
    }
    if (isCore(def, "secrets") && (next.type ?? "Opaque") !== (old.type ?? "Opaque")) {
      causes.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(next.type)}: field is immutable`,
        field: "type",
      });
    }
  }
  if (isCore(def, "namespaces")) {
    next.status = old.status;
    // spec.finalizers change only through the finalize subresource.
    next.spec = { ...(next.spec ?? old.spec), finalizers: old.spec?.finalizers };
    if (next.spec.finalizers === undefined) delete next.spec.finalizers;
  }
  if (isCore(def, "services") && old.spec?.clusterIP && next.spec && next.spec.clusterIP === undefined) {
    next.spec.clusterIP = old.spec.clusterIP;
    next.spec.clusterIPs = old.spec.clusterIPs;
  }
  return causes;
}
