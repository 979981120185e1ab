/**
 * Pod specs as kube-apiserver v1.37 defaults and validates them, for Pods and every pod template (Deployments,
 * StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs): pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec,
 * SetDefaults_Container) and the parts of pkg/apis/core/validation ValidatePodSpec / ValidatePodUpdate the fake
 * checks (containers required, container names and images, restartPolicy, which fields a pod update may change).
 * @module
 */
import { compareQuantities, formatQuantity, quantity } from "../resource_quantity.ts";
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { dns1123LabelErrors, PORT_NUMBER_RANGE, portNameErrors } from "../../../runtime/apimachinery/names.ts";
import { jsonEqual } from "../object_rules.ts";
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from "./field_errors.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";
import { defaultVolumeSources, envCauses, volumeCauses, volumeMountCauses } from "./pod_volumes.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** imagePullPolicy kube defaults from the image reference: Always for `:latest` or no tag, else IfNotPresent. */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  const at = image.indexOf("@");
  const ref = at >= 0 ? image.slice(0, at) : image;
  const colon = ref.lastIndexOf(":");
  const tag = colon > ref.lastIndexOf("/") ? ref.slice(colon + 1) : at >= 0 ? "" : "latest";
  return tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainer(c: Json): void {
  if (!c || typeof c !== "object") return;
  c.resources ??= {};
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  if (!c.imagePullPolicy && typeof c.image === "string") c.imagePullPolicy = defaultPullPolicy(c.image);
  for (const p of Array.isArray(c.ports) ? c.ports : []) if (p && typeof p === "object") p.protocol ??= "TCP";
}

/**
 * Fills a pod spec's defaults in place (SetDefaults_PodSpec and SetDefaults_Container): restartPolicy Always,
 * dnsPolicy ClusterFirst, 30 s termination grace, an empty securityContext, the default scheduler; per container
 * terminationMessagePath/Policy, imagePullPolicy by tag, empty resources, TCP ports (ephemeral containers too).
 */
export function defaultPodSpec(spec: Json): void {
  if (!spec || typeof spec !== "object") return;
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  if (!spec.dnsPolicy) spec.dnsPolicy = "ClusterFirst"; // Go's "" is unset too
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) defaultContainer(c);
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) defaultContainer(c);
  for (const c of Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers : []) defaultContainer(c);
  defaultVolumeSources(spec.volumes);
}

/** Fills a pod template's defaults (`spec.template` of workloads): its pod spec's, and metadata kept as sent. */
export function defaultPodTemplate(template: Json): void {
  if (!template || typeof template !== "object") return;
  template.spec ??= {};
  defaultPodSpec(template.spec);
}

/** Causes for a pod spec at `field` (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: Json, field: string): StatusCause[] {
  const volumes = volumeCauses(spec?.volumes, `${field}.volumes`);
  const causes: StatusCause[] = [...volumes.causes];
  const containers = Array.isArray(spec?.containers) ? spec.containers : [];
  if (containers.length === 0) causes.push(fieldRequired(`${field}.containers`));
  const seen = new Set<string>();
  const check = (list: Json[], path: string) =>
    list.forEach((c: Json, i: number) => {
      const at = `${path}[${i}]`;
      const name = typeof c?.name === "string" ? c.name : "";
      if (!name) causes.push(fieldRequired(`${at}.name`));
      else {
        for (const msg of dns1123LabelErrors(name)) causes.push(fieldInvalid(`${at}.name`, name, msg));
        if (seen.has(name)) causes.push(fieldDuplicate(`${at}.name`, name));
        seen.add(name);
      }
      if (!c?.image || typeof c.image !== "string" || !c.image.trim()) causes.push(fieldRequired(`${at}.image`));
      causes.push(...containerPortCauses(c?.ports, `${at}.ports`));
      causes.push(...envCauses(c?.env, `${at}.env`));
      causes.push(...volumeMountCauses(c?.volumeMounts, volumes.names, `${at}.volumeMounts`));
      causes.push(...requestsWithinLimits(c?.resources, `${at}.resources.requests`));
    });
  check(containers, `${field}.containers`);
  check(Array.isArray(spec?.initContainers) ? spec.initContainers : [], `${field}.initContainers`);
  const restart = spec?.restartPolicy;
  if (restart !== undefined && !["Always", "OnFailure", "Never"].includes(restart)) {
    causes.push(fieldNotSupported(`${field}.restartPolicy`, restart, ["Always", "OnFailure", "Never"]));
  }
  const dns = spec?.dnsPolicy; // "" was defaulted to ClusterFirst
  if (dns && !DNS_POLICIES.includes(dns)) causes.push(fieldNotSupported(`${field}.dnsPolicy`, dns, DNS_POLICIES));
  return causes;
}

const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];

/** validateContainerPorts: names (IANA service names, unique), container and host port numbers, protocols. */
function containerPortCauses(ports: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  const inRange = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535;
  (Array.isArray(ports) ? ports : []).forEach((p: Json, i: number) => {
    const at = `${path}[${i}]`;
    const name = typeof p?.name === "string" ? p.name : "";
    if (name) {
      const problems = portNameErrors(name);
      for (const msg of problems) causes.push(fieldInvalid(`${at}.name`, name, msg));
      if (problems.length === 0 && names.has(name)) causes.push(fieldDuplicate(`${at}.name`, name));
      names.add(name);
    }
    if (!p?.containerPort) causes.push(fieldRequired(`${at}.containerPort`));
    else if (!inRange(p.containerPort)) {
      causes.push(fieldInvalid(`${at}.containerPort`, p.containerPort, PORT_NUMBER_RANGE));
    }
    if (p?.hostPort && !inRange(p.hostPort)) causes.push(fieldInvalid(`${at}.hostPort`, p.hostPort, PORT_NUMBER_RANGE));
    const protocol = p?.protocol ?? "";
    if (!protocol) causes.push(fieldRequired(`${at}.protocol`));
    else if (!PORT_PROTOCOLS.includes(protocol)) {
      causes.push(fieldNotSupported(`${at}.protocol`, protocol, PORT_PROTOCOLS));
    }
  });
  return causes;
}

/** kube's ValidateResourceRequirements: a request above its limit is invalid. */
function requestsWithinLimits(resources: Json, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const limits = resources?.limits ?? {};
  for (const [k, v] of Object.entries(resources?.requests ?? {})) {
    const [request, limit] = [quantity(v), quantity(limits[k])];
    if (!request || !limit || compareQuantities(request, limit) <= 0) continue;
    const text = formatQuantity(request);
    causes.push(fieldInvalid(field, text, `must be less than or equal to ${k} limit of ${formatQuantity(limit)}`));
  }
  return causes;
}

/**
 * kube's SetDefaults_Pod (pods only, not templates): a container's limit without a request is also its request.
 * Decoding defaults a pod before admission, so LimitRanger sees the copied requests.
 */
export function defaultRequestsFromLimits(spec: Json): void {
  for (const key of ["containers", "initContainers"]) {
    for (const c of Array.isArray(spec?.[key]) ? spec[key] : []) {
      const limits = c?.resources?.limits;
      if (!limits || typeof limits !== "object") continue;
      c.resources.requests = { ...limits, ...c.resources.requests };
    }
  }
}

/** What ValidatePodUpdate lets change, in its message's words. */
export const POD_UPDATE_FORBIDDEN =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`," +
  "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/** The spec with what an update may change masked (images, activeDeadlineSeconds, tolerations, grace). */
function maskMutable(spec: Json, oldNodeName: string | undefined): Json {
  const out = copyJson(spec ?? {});
  for (const key of ["containers", "initContainers"]) {
    for (const c of Array.isArray(out[key]) ? out[key] : []) if (c && typeof c === "object") delete c.image;
  }
  delete out.activeDeadlineSeconds;
  delete out.tolerations;
  delete out.terminationGracePeriodSeconds;
  // The fake's kubelet schedules by setting nodeName on an unscheduled pod (kube: the binding subresource).
  if (!oldNodeName) delete out.nodeName;
  return out;
}

/** Causes for a pod update that changes a field kube keeps immutable (Forbidden on `spec`). */
export function validatePodSpecUpdate(next: Json, old: Json): StatusCause[] {
  if (jsonEqual(maskMutable(next, old?.nodeName), maskMutable(old, old?.nodeName))) return [];
  const changed = Object.keys({ ...old, ...next }).filter((k) => !jsonEqual(next?.[k], old?.[k])).sort();
  return [fieldForbidden("spec", `${POD_UPDATE_FORBIDDEN}\nchanged: ${changed.join(", ")}`)];
}

/** The pod template labels a workload's selector must match (`spec.template.metadata.labels`). */
export function templateLabels(obj: KubeObject): Record<string, string> {
  return obj.spec?.template?.metadata?.labels ?? {};
}
