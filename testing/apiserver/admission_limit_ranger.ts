/**
 * The LimitRanger admission plugin (kube-apiserver runs it by default) over the namespace's LimitRanges, on creates of
 * pods and on creates and updates of PersistentVolumeClaims (never subresources; kube skips pod updates, whose
 * containers cannot change). Mutating: each container and init container without a request or limit gets the
 * Container items' `defaultRequest` / `default`, and the pod is annotated `kubernetes.io/limit-ranger: LimitRanger plugin
 * set: cpu, memory request for container c; ...`. Validating: Container items' min, max and maxLimitRequestRatio per
 * container, Pod items' on the pod's summed requests and limits, PersistentVolumeClaim items' on its storage request —
 * 403 Forbidden with kube's messages, several at once as `[a, b]`.
 * @module
 */
import type { AdmissionContext, AdmissionHook } from "./admission.ts";
import type { ObjectStore } from "./object_storage.ts";
import {
  formatQuantity,
  milliValue,
  podResourceTotals,
  type Quantity,
  quantity,
  type ResourceList,
} from "./resource_quantity.ts";
import { forbidden } from "./status_errors.ts";
import { defaultRequestsFromLimits } from "./validation/pod_spec.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

const ANNOTATION = "kubernetes.io/limit-ranger";
// deno-lint-ignore no-explicit-any
type Json = any;

/** Which writes LimitRanger looks at: pod creates, PVC creates and updates, no subresources. */
function handles(ctx: AdmissionContext): "pod" | "pvc" | undefined {
  if (ctx.def.group !== "" || ctx.subresource) return undefined;
  if (ctx.def.plural === "pods" && ctx.verb === "create") return "pod";
  if (ctx.def.plural === "persistentvolumeclaims") return "pvc";
  return undefined;
}

function limitItems(objects: ObjectStore, namespace: string | undefined): Json[] {
  return objects.list("/limitranges").filter((lr) => lr.metadata.namespace === namespace)
    .flatMap((lr) => Array.isArray(lr.spec?.limits) ? lr.spec.limits : []);
}

const containersOf = (pod: KubeObject): Array<[Json, string]> =>
  [
    ...(Array.isArray(pod.spec?.containers) ? pod.spec.containers : []).map((c: Json) => [c, "container"]),
    ...(Array.isArray(pod.spec?.initContainers) ? pod.spec.initContainers : []).map((c: Json) => [c, "init container"]),
  ] as Array<[Json, string]>;

/** LimitRanger's mutating half: default requests and limits into a new pod's containers. */
export function limitRangerDefaults(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (handles(ctx) !== "pod") return;
    // kube decodes (and defaults) the pod before admission; the fake defaults after it, but for this copy.
    defaultRequestsFromLimits(ctx.object.spec);
    const defaults = { requests: {} as ResourceList, limits: {} as ResourceList };
    for (const item of limitItems(objects, ctx.object.metadata.namespace)) {
      if (item?.type !== "Container") continue;
      Object.assign(defaults.requests, item.defaultRequest ?? {});
      Object.assign(defaults.limits, item.default ?? {});
    }
    if (Object.keys(defaults.requests).length + Object.keys(defaults.limits).length === 0) return;
    const notes: string[] = [];
    for (const [c, prefix] of containersOf(ctx.object)) {
      if (!c || typeof c !== "object") continue;
      c.resources ??= {};
      const set = { requests: [] as string[], limits: [] as string[] };
      for (const kind of ["limits", "requests"] as const) {
        for (const [k, v] of Object.entries(defaults[kind])) {
          c.resources[kind] ??= {};
          if (k in c.resources[kind]) continue;
          c.resources[kind][k] = canonical(v);
          set[kind].push(k);
        }
        if (Object.keys(c.resources[kind] ?? {}).length === 0) delete c.resources[kind];
      }
      if (set.requests.length) notes.push(`${set.requests.sort().join(", ")} request for ${prefix} ${c.name}`);
      if (set.limits.length) notes.push(`${set.limits.sort().join(", ")} limit for ${prefix} ${c.name}`);
    }
    if (notes.length === 0) return;
    const meta = ctx.object.metadata;
    meta.annotations = { ...meta.annotations, [ANNOTATION]: `LimitRanger plugin set: ${notes.join("; ")}` };
  };
}

/** LimitRanger's validating half: min, max and limit/request ratios; 403 with every violation. */
export function limitRangerValidation(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    const what = handles(ctx);
    if (!what) return;
    const errors: string[] = [];
    for (const item of limitItems(objects, ctx.object.metadata.namespace)) {
      if (what === "pvc") {
        if (item?.type !== "PersistentVolumeClaim") continue;
        const requests = ctx.object.spec?.resources?.requests ?? {};
        for (const [k, v] of Object.entries(item.min ?? {})) {
          errors.push(...minConstraint(item.type, k, v, requests, {}));
        }
        for (const [k, v] of Object.entries(item.max ?? {})) {
          errors.push(...maxRequestConstraint(item.type, k, v, requests));
        }
        continue;
      }
      if (item?.type === "Container") {
        for (const [c] of containersOf(ctx.object)) {
          const requests = c?.resources?.requests ?? {};
          const limits = c?.resources?.limits ?? {};
          errors.push(...constraints(item, requests, limits));
        }
      }
      if (item?.type === "Pod") errors.push(...constraints(item, ...podTotals(ctx.object)));
    }
    if (errors.length === 0) return;
    const why = errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
    throw forbidden(ctx.def, ctx.object.metadata.name ?? "", why, ctx.verb);
  };
}

function canonical(text: unknown): unknown {
  const q = quantity(text);
  return q ? formatQuantity(q) : text;
}

function constraints(item: Json, requests: ResourceList, limits: ResourceList): string[] {
  const type = String(item.type);
  return [
    ...Object.entries(item.min ?? {}).flatMap(([k, v]) => minConstraint(type, k, v, requests, limits)),
    ...Object.entries(item.max ?? {}).flatMap(([k, v]) => maxConstraint(type, k, v, requests, limits)),
    ...Object.entries(item.maxLimitRequestRatio ?? {}).flatMap(([k, v]) =>
      ratioConstraint(type, k, v, requests, limits)
    ),
  ];
}

/** The pod's summed requests and limits as resource lists. */
function podTotals(pod: KubeObject): [ResourceList, ResourceList] {
  const text = (m: Map<string, Quantity>) => Object.fromEntries([...m].map(([k, q]) => [k, formatQuantity(q)]));
  const [requests, limits] = podResourceTotals(pod);
  return [text(requests), text(limits)];
}

const show = (v: unknown) => formatQuantity(quantity(v) ?? { num: 0n, den: 1n, format: "DecimalSI" });
const milli = (v: unknown) => milliValue(quantity(v) ?? { num: 0n, den: 1n, format: "DecimalSI" });

function minConstraint(type: string, k: string, enforced: unknown, req: ResourceList, lim: ResourceList): string[] {
  if (!(k in req)) return [`minimum ${k} usage per ${type} is ${show(enforced)}.  No request is specified`];
  if (milli(req[k]) < milli(enforced)) {
    return [`minimum ${k} usage per ${type} is ${show(enforced)}, but request is ${show(req[k])}`];
  }
  if (k in lim && milli(lim[k]) < milli(enforced)) {
    return [`minimum ${k} usage per ${type} is ${show(enforced)}, but limit is ${show(lim[k])}`];
  }
  return [];
}

function maxConstraint(type: string, k: string, enforced: unknown, req: ResourceList, lim: ResourceList): string[] {
  if (!(k in lim)) return [`maximum ${k} usage per ${type} is ${show(enforced)}.  No limit is specified`];
  if (milli(lim[k]) > milli(enforced)) {
    return [`maximum ${k} usage per ${type} is ${show(enforced)}, but limit is ${show(lim[k])}`];
  }
  if (k in req && milli(req[k]) > milli(enforced)) {
    return [`maximum ${k} usage per ${type} is ${show(enforced)}, but request is ${show(req[k])}`];
  }
  return [];
}

function maxRequestConstraint(type: string, k: string, enforced: unknown, req: ResourceList): string[] {
  if (!(k in req)) return [`maximum ${k} usage per ${type} is ${show(enforced)}.  No request is specified`];
  if (milli(req[k]) > milli(enforced)) {
    return [`maximum ${k} usage per ${type} is ${show(enforced)}, but request is ${show(req[k])}`];
  }
  return [];
}

function ratioConstraint(type: string, k: string, enforced: unknown, req: ResourceList, lim: ResourceList): string[] {
  const head = `${k} max limit to request ratio per ${type} is ${show(enforced)}`;
  const r = k in req ? milli(req[k]) : 0n;
  const l = k in lim ? milli(lim[k]) : 0n;
  if (r === 0n) return [`${head}, but no request is specified or request is 0`];
  if (l === 0n) return [`${head}, but no limit is specified or limit is 0`];
  const ratio = Number(l) / Number(r);
  return ratio * 1000 > Number(milli(enforced)) ? [`${head}, but provided ratio is ${ratio.toFixed(6)}`] : [];
}
