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
import type { AdmissionHook } from "./admission.ts";
import { quotaCounts, quotaMatches, quotaUsage } from "./quota_usage.ts";
import type { ObjectStore } from "./object_storage.ts";
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  type Quantity,
  quantity,
  type ResourceList,
} from "./resource_quantity.ts";
import { forbidden } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

const QUOTAS = "/resourcequotas";
const ONE: Quantity = { num: 1n, den: 1n, format: "DecimalSI" };
/** The pod resources a quota makes every container state (kube's podEvaluator validationSet). */
const MUST_SPECIFY = ["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"];

/** The ResourceQuota plugin over the store's quotas; it writes their `status.used`. */
export function resourceQuotaAdmission(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (ctx.verb !== "create" || ctx.subresource || !ctx.def.namespaced) return;
    const namespace = ctx.object.metadata.namespace;
    const quotas = objects.list(QUOTAS).filter((q) => q.metadata.namespace === namespace)
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    if (quotas.length === 0) return;
    const isPod = ctx.def.group === "" && ctx.def.plural === "pods";
    const usage = quotaUsage(ctx.def, ctx.object);
    const refuse = (why: string) => forbidden(ctx.def, ctx.object.metadata.name ?? "", why, ctx.verb);
    const interesting: KubeObject[] = [];
    for (const q of quotas) {
      if (!quotaMatches(q, ctx.object, isPod)) continue;
      const hard: ResourceList = q.status?.hard ?? {};
      const restricted = Object.keys(hard).filter((k) => quotaCounts(k, ctx.def)).sort();
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
      const updated = copyJson(q);
      updated.status.used = Object.fromEntries(
        [...next].sort(([a], [b]) => a < b ? -1 : 1).map(([k, v]) => [k, formatQuantity(v)]),
      );
      updates.push(updated);
    }
    if (!ctx.dryRun) { for (const q of updates) objects.put(QUOTAS, q); }
  };
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
