/**
 * The ResourceQuota admission plugin (kube-apiserver runs it by default, last of the validating plugins) on creates:
 * for each quota of the namespace that matches the object (its scopes: Terminating, NotTerminating, BestEffort,
 * NotBestEffort, for pods), the resources of its `status.hard` the object counts for are checked — a pod must state
 * the cpu/memory requests and limits a quota limits (`failed quota: q: must specify requests.cpu for: c`), a quota
 * whose status has no usage yet for them refuses (`status unknown for quota: ...`), and usage over `hard` is 403
 * `exceeded quota: q, requested: ..., used: ..., limited: ...`. On success the quota's `status.used` is raised by the
 * object's usage (not on a dry run). `status.hard` and recounting `used` are the quota controller's, in
 * kube-controller-manager; without it (as on the fake) a quota with an empty status admits everything.
 * @module
 */
import type { AdmissionContext, AdmissionHook } from "./admission.ts";
import type { ObjectStore } from "./object_storage.ts";
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  podResourceTotals,
  type Quantity,
  quantity,
  type ResourceList,
} from "./resource_quantity.ts";
import { forbidden } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
type Usage = Map<string, Quantity>;

const QUOTAS = "/resourcequotas";
const ONE: Quantity = { num: 1n, den: 1n, format: "DecimalSI" };
/** The pod resources a quota makes every container state (kube's podEvaluator validationSet). */
const MUST_SPECIFY = ["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"];
const COMPUTE = ["cpu", "memory", "ephemeral-storage"];

/** The ResourceQuota plugin over the store's quotas; it writes their `status.used`. */
export function resourceQuotaAdmission(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (ctx.verb !== "create" || ctx.subresource || !ctx.def.namespaced) return;
    const namespace = ctx.object.metadata.namespace;
    const quotas = objects.list(QUOTAS).filter((q) => q.metadata.namespace === namespace)
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    if (quotas.length === 0) return;
    const isPod = ctx.def.group === "" && ctx.def.plural === "pods";
    const usage = usageOf(ctx, isPod);
    const refuse = (why: string) => forbidden(ctx.def, ctx.object.metadata.name ?? "", why, ctx.verb);
    const interesting: KubeObject[] = [];
    for (const q of quotas) {
      if (!matches(q, ctx.object, isPod)) continue;
      const hard: ResourceList = q.status?.hard ?? {};
      const restricted = Object.keys(hard).filter((k) => counts(k, ctx, isPod)).sort();
      if (isPod) {
        const missing = mustSpecify(ctx.object, restricted);
        if (missing) throw refuse(`failed quota: ${q.metadata.name}: ${missing}`);
      }
      const used: ResourceList = q.status?.used ?? {};
      if (restricted.some((k) => !(k in used))) {
        throw refuse(`status unknown for quota: ${q.metadata.name}, resources: ${restricted.join(",")}`);
      }
      interesting.push(q);
    }
    const updates: KubeObject[] = [];
    for (const q of interesting) {
      const hard: ResourceList = q.status?.hard ?? {};
      const requested = new Map([...usage].filter(([k, v]) => k in hard && v.num !== 0n));
      if (requested.size === 0) continue;
      const used: ResourceList = q.status?.used ?? {};
      const next = new Map<string, Quantity>();
      for (const [k, v] of Object.entries(used)) if (quantity(v)) next.set(k, quantity(v)!);
      for (const [k, v] of requested) next.set(k, next.has(k) ? addQuantities(next.get(k)!, v) : v);
      const exceeded = [...requested.keys()].filter((k) =>
        compareQuantities(next.get(k)!, quantity(hard[k]) ?? ONE) > 0
      );
      if (exceeded.length > 0) {
        const print = (list: Map<string, Quantity>) =>
          exceeded.filter((k) => list.has(k)).map((k) => `${k}=${formatQuantity(list.get(k)!)}`).join(",");
        const usedNow = new Map(Object.entries(used).flatMap(([k, v]) => quantity(v) ? [[k, quantity(v)!]] : []));
        const hardNow = new Map(Object.entries(hard).flatMap(([k, v]) => quantity(v) ? [[k, quantity(v)!]] : []));
        throw refuse(
          `exceeded quota: ${q.metadata.name}, requested: ${print(requested)}, used: ${print(usedNow)}, limited: ${
            print(hardNow)
          }`,
        );
      }
      const updated = structuredClone(q);
      updated.status.used = Object.fromEntries(
        [...next].sort(([a], [b]) => a < b ? -1 : 1).map(([k, v]) => [k, formatQuantity(v)]),
      );
      updates.push(updated);
    }
    if (!ctx.dryRun) { for (const q of updates) objects.put(QUOTAS, q); }
  };
}

/** Whether resource name `k` of a quota counts the object being created. */
function counts(k: string, ctx: AdmissionContext, isPod: boolean): boolean {
  const { group, plural } = ctx.def;
  if (k === `count/${group ? `${plural}.${group}` : plural}`) return true;
  if (group !== "") return false;
  if (isPod) return k === "pods" || COMPUTE.includes(k) || k.startsWith("requests.") || k.startsWith("limits.");
  if (plural === "services") return ["services", "services.loadbalancers", "services.nodeports"].includes(k);
  if (plural === "persistentvolumeclaims") return k === "persistentvolumeclaims" || k === "requests.storage";
  return ["configmaps", "secrets", "resourcequotas", "replicationcontrollers"].includes(plural) && k === plural;
}

/** The object's usage by resource name (kube's evaluators' Usage). */
function usageOf(ctx: AdmissionContext, isPod: boolean): Usage {
  const { group, plural } = ctx.def;
  const out: Usage = new Map([[`count/${group ? `${plural}.${group}` : plural}`, ONE]]);
  if (group !== "") return out;
  if (!isPod) {
    out.set(plural, ONE);
    const spec = ctx.object.spec ?? {};
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
  const [requests, limits] = podResourceTotals(ctx.object);
  for (const [k, v] of requests) {
    if (COMPUTE.includes(k)) out.set(k, v);
    out.set(`requests.${k}`, v);
  }
  for (const [k, v] of limits) out.set(`limits.${k}`, v);
  return out;
}

/** `must specify requests.cpu for: a,b; limits.memory for: c` when containers leave out what the quota limits. */
function mustSpecify(pod: KubeObject, restricted: string[]): string | undefined {
  const required = restricted.filter((k) => MUST_SPECIFY.includes(k));
  const missing = new Map<string, string[]>();
  const containers = [
    ...(Array.isArray(pod.spec?.containers) ? pod.spec.containers : []),
    ...(Array.isArray(pod.spec?.initContainers) ? pod.spec.initContainers : []),
  ];
  for (const c of containers) {
    const has = new Set<string>();
    for (const k of Object.keys(c?.resources?.requests ?? {})) has.add(k).add(`requests.${k}`);
    for (const k of Object.keys(c?.resources?.limits ?? {})) has.add(`limits.${k}`);
    for (const k of required) if (!has.has(k)) missing.set(k, [...(missing.get(k) ?? []), String(c?.name)]);
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((k) => `${k} for: ${[...new Set(missing.get(k))].sort().join(",")}`);
  return `must specify ${parts.join("; ")}`;
}

/** Whether quota `q` applies to `obj`: its scopes (pods only; another kind matches only an unscoped quota). */
function matches(q: KubeObject, obj: KubeObject, isPod: boolean): boolean {
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
