/**
 * Services and their Endpoints. Service names are DNS-1123 labels (v1.37's relaxed service names: a leading digit is
 * fine). Defaults as kube-apiserver v1.37 fills them
 * (pkg/apis/core/v1/defaults.go and the service REST allocators): type ClusterIP, sessionAffinity None, TCP ports with
 * targetPort = port, a cluster IP (clusterIPs, ipFamilies [IPv4], ipFamilyPolicy SingleStack — a headless Service
 * without selector: both families, RequireDualStack), internalTrafficPolicy Cluster; NodePort and LoadBalancer
 * Services get node ports and externalTrafficPolicy Cluster (LoadBalancer: allocateLoadBalancerNodePorts). Validation
 * (pkg/apis/core/validation ValidateService): ports required (unless headless or ExternalName), port names, ranges,
 * protocols and duplicates; the cluster IP may not change once set. Endpoints, like kube, may be created by PUT.
 * DELETE answers with the Service (kube: ReturnDeletedObject).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  PORT_NUMBER_RANGE,
  portNameErrors,
} from "../../../runtime/apimachinery/names.ts";
import { validateLabelName } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];

function isHeadless(spec: Json): boolean {
  return spec.clusterIP === "None";
}

function usesNodePorts(spec: Json): boolean {
  return spec.type === "NodePort" || spec.type === "LoadBalancer";
}

/** Defaults every write sees (kube: SetDefaults_Service at decode). */
function defaultService(obj: KubeObject): void {
  if (!obj.spec || typeof obj.spec !== "object") obj.spec = {};
  const spec = obj.spec;
  spec.type ??= "ClusterIP";
  spec.sessionAffinity ??= "None";
  if (spec.type === "ExternalName") return;
  for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
    if (!p || typeof p !== "object") continue;
    p.protocol ??= "TCP";
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
  }
  spec.internalTrafficPolicy ??= "Cluster";
  if (usesNodePorts(spec)) spec.externalTrafficPolicy ??= "Cluster";
  if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
}

/** What the REST layer allocates on create: cluster IP, IP families, node ports. */
function allocate(obj: KubeObject, ctx: StrategyContext): void {
  const spec = obj.spec;
  if (spec.type === "ExternalName") return;
  if (!spec.clusterIP && Array.isArray(spec.clusterIPs) && spec.clusterIPs[0]) spec.clusterIP = spec.clusterIPs[0];
  if (!spec.clusterIP) spec.clusterIP = ctx.allocateClusterIp();
  spec.clusterIPs ??= [spec.clusterIP];
  if (isHeadless(spec) && !spec.selector) {
    spec.ipFamilies ??= ["IPv4", "IPv6"];
    spec.ipFamilyPolicy ??= "RequireDualStack";
  } else {
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
  }
  if (usesNodePorts(spec)) {
    for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
      if (p && typeof p === "object" && !p.nodePort) p.nodePort = ctx.allocateNodePort();
    }
  }
}

function validatePorts(spec: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  const ports: Json[] = Array.isArray(spec.ports) ? spec.ports : [];
  if (ports.length === 0 && !isHeadless(spec) && spec.type !== "ExternalName") causes.push(fieldRequired("spec.ports"));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    const name = typeof p?.name === "string" ? p.name : "";
    if (!name) {
      if (ports.length > 1) causes.push(fieldRequired(`${at}.name`));
    } else {
      for (const msg of dns1123LabelErrors(name)) causes.push(fieldInvalid(`${at}.name`, name, msg));
      if (names.has(name)) causes.push(fieldDuplicate(`${at}.name`, name));
      names.add(name);
    }
    const port = p?.port;
    if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) {
      causes.push(fieldInvalid(`${at}.port`, port ?? 0, PORT_NUMBER_RANGE));
    }
    const protocol = p?.protocol ?? "";
    if (!PROTOCOLS.includes(protocol)) {
      causes.push(
        protocol ? fieldNotSupported(`${at}.protocol`, protocol, PROTOCOLS) : fieldRequired(`${at}.protocol`),
      );
    }
    const target = p?.targetPort;
    if (typeof target === "number" && !(Number.isInteger(target) && target >= 1 && target <= 65535)) {
      causes.push(fieldInvalid(`${at}.targetPort`, target, PORT_NUMBER_RANGE));
    }
    if (typeof target === "string") {
      for (const msg of portNameErrors(target)) causes.push(fieldInvalid(`${at}.targetPort`, target, msg));
    }
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p?.protocol}/${p?.port}`;
    if (seen.has(key)) {
      // kube prints the internal ServicePort key it compares (protocol and port only).
      const value = `{"Name":"","Protocol":${JSON.stringify(p?.protocol ?? "")},"AppProtocol":null,"Port":${
        p?.port ?? 0
      },"TargetPort":0,"NodePort":0}`;
      causes.push({ ...fieldDuplicate(`spec.ports[${i}]`, ""), message: `Duplicate value: ${value}` });
    }
    seen.add(key);
  });
  return causes;
}

function validateService(obj: KubeObject, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") return [];
  const spec = obj.spec ?? {};
  const causes: StatusCause[] = [];
  if (spec.type === "ExternalName") {
    const cname = typeof spec.externalName === "string" ? spec.externalName.replace(/\.$/, "") : "";
    if (!cname) causes.push(fieldRequired("spec.externalName"));
    for (const msg of cname ? dns1123SubdomainErrors(cname) : []) {
      causes.push(fieldInvalid("spec.externalName", cname, msg));
    }
  }
  causes.push(...validatePorts(spec));
  const affinity = spec.sessionAffinity;
  if (affinity != null && !["ClientIP", "None"].includes(affinity)) {
    causes.push(fieldNotSupported("spec.sessionAffinity", affinity, ["ClientIP", "None"]));
  }
  if (spec.type != null && !SERVICE_TYPES.includes(spec.type)) {
    causes.push(fieldNotSupported("spec.type", spec.type, SERVICE_TYPES));
  }
  return causes;
}

/** The strategy of core v1 services. */
export const SERVICES: ResourceStrategy = {
  validateName: validateLabelName,
  returnDeletedObject: true,
  allowCreateOnUpdate: true,
  prepareForCreate(obj: KubeObject): void {
    obj.status = { loadBalancer: {} };
  },
  default: defaultService,
  validate: validateService,
  canonicalize(obj: KubeObject, _old: KubeObject | undefined, ctx: StrategyContext): void {
    if (ctx.subresource !== "status") allocate(obj, ctx);
  },
  prepareForUpdate(next: KubeObject, old: KubeObject): void {
    const spec = next.spec;
    const prev = old.spec ?? {};
    if (!spec || typeof spec !== "object") return;
    // kube keeps what it allocated when an update leaves it out, and derives clusterIPs from a changed clusterIP.
    if (prev.clusterIP && spec.clusterIP === undefined) {
      spec.clusterIP = prev.clusterIP;
      spec.clusterIPs ??= prev.clusterIPs;
    } else if (spec.clusterIP && (spec.clusterIPs === undefined || spec.clusterIPs[0] === prev.clusterIPs?.[0])) {
      spec.clusterIPs = [spec.clusterIP];
    }
    for (const key of ["ipFamilies", "ipFamilyPolicy"]) if (spec[key] === undefined) spec[key] = prev[key];
    for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
      const before = (prev.ports ?? []).find((o: Json) =>
        o.port === p?.port && (o.protocol ?? "TCP") === (p.protocol ?? "TCP")
      );
      if (p && !p.nodePort && before?.nodePort && usesNodePorts(spec)) p.nodePort = before.nodePort;
    }
  },
  validateUpdate(next: KubeObject, old: KubeObject, ctx: StrategyContext): StatusCause[] {
    const causes = validateService(next, ctx);
    const before = old.spec?.clusterIPs?.[0];
    const after = next.spec?.clusterIPs;
    if (ctx.subresource !== "status" && before && next.spec?.type !== "ExternalName" && after?.[0] !== before) {
      causes.push(fieldInvalid("spec.clusterIPs[0]", after ?? [], "may not change once set"));
    }
    return causes;
  },
};

/** The strategy of core v1 endpoints. */
export const ENDPOINTS: ResourceStrategy = { allowCreateOnUpdate: true };
