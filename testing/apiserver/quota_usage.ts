/**
 * What a ResourceQuota counts, shared by the ResourceQuota admission plugin and the quota controller `kubeop dev` runs
 * (kube's quota evaluators): which of a quota's resource names an object counts for, the object's usage, and whether a
 * quota's scopes select it.
 * @module
 */
import { podResourceTotals, type Quantity, quantity } from "./resource_quantity.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
/** Usage by resource name. */
export type Usage = Map<string, Quantity>;
/** A resource by group and plural. */
export type Resource = { group: string; plural: string };

const ONE: Quantity = { num: 1n, den: 1n, format: "DecimalSI" };
const COMPUTE = ["cpu", "memory", "ephemeral-storage"];

/** Whether resource name `k` of a quota counts objects of `resource` (kube's evaluators' MatchingResources). */
export function quotaCounts(k: string, resource: Resource): boolean {
  const { group, plural } = resource;
  const isPod = group === "" && plural === "pods";
  if (k === `count/${group ? `${plural}.${group}` : plural}`) return true;
  if (group !== "") return false;
  if (isPod) return k === "pods" || COMPUTE.includes(k) || k.startsWith("requests.") || k.startsWith("limits.");
  if (plural === "services") return ["services", "services.loadbalancers", "services.nodeports"].includes(k);
  if (plural === "persistentvolumeclaims") return k === "persistentvolumeclaims" || k === "requests.storage";
  return ["configmaps", "secrets", "resourcequotas", "replicationcontrollers"].includes(plural) && k === plural;
}

/** The usage of `obj`, an object of `resource`, by resource name (kube's evaluators' Usage). */
export function quotaUsage(resource: Resource, obj: KubeObject): Usage {
  const { group, plural } = resource;
  const isPod = group === "" && plural === "pods";
  const out: Usage = new Map([[`count/${group ? `${plural}.${group}` : plural}`, ONE]]);
  if (group !== "") return out;
  if (!isPod) {
    out.set(plural, ONE);
    const spec = obj.spec ?? {};
    if (plural === "services") {
      const ports = Array.isArray(spec.ports) ? spec.ports.length : 0;
      out.set("services.loadbalancers", { ...ONE, num: spec.type === "LoadBalancer" ? 1n : 0n });
      out.set("services.nodeports", {
        ...ONE,
        num: ["NodePort", "LoadBalancer"].includes(spec.type) ? BigInt(ports) : 0n,
      });
    }
    const storage = quantity(spec.resources?.requests?.storage);
    if (plural === "persistentvolumeclaims" && storage) out.set("requests.storage", storage);
    return out;
  }
  out.set("pods", ONE);
  const [requests, limits] = podResourceTotals(obj);
  for (const [k, v] of requests) {
    if (COMPUTE.includes(k)) out.set(k, v);
    out.set(`requests.${k}`, v);
  }
  for (const [k, v] of limits) out.set(`limits.${k}`, v);
  return out;
}

/** Whether quota `q` applies to `obj`: its scopes (pods only; another kind matches only an unscoped quota). */
export function quotaMatches(q: KubeObject, obj: KubeObject, isPod: boolean): boolean {
  const scopes: string[] = [
    ...(Array.isArray(q.spec?.scopes) ? q.spec.scopes : []),
    ...(q.spec?.scopeSelector?.matchExpressions ?? []).filter((e: Json) => e?.operator === "Exists")
      .map((e: Json) => e.scopeName),
  ];
  if (scopes.length === 0) return true;
  if (!isPod) return false;
  const terminating = typeof obj.spec?.activeDeadlineSeconds === "number" && obj.spec.activeDeadlineSeconds >= 0;
  const containers = [...(obj.spec?.containers ?? []), ...(obj.spec?.initContainers ?? [])];
  const bestEffort = containers.every((c: Json) =>
    Object.keys(c?.resources?.requests ?? {}).length === 0 && Object.keys(c?.resources?.limits ?? {}).length === 0
  );
  const holds: Record<string, boolean> = {
    Terminating: terminating,
    NotTerminating: !terminating,
    BestEffort: bestEffort,
    NotBestEffort: !bestEffort,
  };
  return scopes.every((s) => holds[s] ?? false);
}
