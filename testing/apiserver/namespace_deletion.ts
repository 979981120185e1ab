/**
 * The namespace controller's pass over a Terminating namespace, as kube-controller-manager's
 * (pkg/controller/namespace/deletion): pods are deleted first and, while any remain, nothing else is; then every
 * other resource's objects (finalizers and graceful deletion honoured); the namespace's status then carries kube's
 * five conditions (while pods remain, all five in their "ok" form: kube does not count pods there) — NamespaceDeletionDiscoveryFailure, NamespaceDeletionGroupVersionParsingFailure,
 * NamespaceDeletionContentFailure (always their "ok" form here: the fake's discovery cannot fail),
 * NamespaceContentRemaining (`Some resources are remaining: configmaps. has 2 resource instances, ...`, one entry per
 * group serving the resource, as kube counts each group's preferred version) and NamespaceFinalizersRemaining
 * (`... has finalizers remaining: example.com/x in 3 resource instances`) — and once nothing is left the `kubernetes`
 * spec finalizer is removed; a namespace left with no finalizers at all is then removed.
 *
 * Pods left after kube's estimate of their termination (the longest `terminationGracePeriodSeconds` of the namespace's
 * running pods, counted from the namespace's deletionTimestamp) with no finalizer holding them — no kubelet confirmed
 * their deletion — make NamespaceDeletionContentFailure True `Failed to delete all resource types, 1 remaining:
 * unexpected items still remain in namespace: <ns> for gvr: /v1, Resource=pods`; until then the pass asks to be run
 * again when the estimate ends ({@link NamespaceSync.recheckInMs}, on the store's clock).
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import { rfc3339 } from "./object_rules.ts";
import { recordStatusWrite } from "./patch/managed_fields_writes.ts";
import { storageKeyOf } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

const PODS = "/pods";
const NAMESPACES = { group: "", version: "v1", plural: "namespaces" };
const NAMESPACE_FINALIZER = "kubernetes";

/** kube's condition types in the order it writes them, with the reason and message of their False ("ok") form. */
const OK_CONDITIONS: ReadonlyArray<[type: string, reason: string, message: string]> = [
  ["NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"],
  ["NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"],
  [
    "NamespaceDeletionContentFailure",
    "ContentDeleted",
    "All content successfully deleted, may be waiting on finalization",
  ],
  ["NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"],
  ["NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"],
];

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** Go's sort.Strings order (bytewise). */
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What remains of a namespace's content, by `resource.group` and by finalizer. */
class Remaining {
  readonly byResource = new Map<string, number>();
  readonly byFinalizer = new Map<string, number>();

  /** Counts `objects` once per group serving them (each group's GVR is listed on its own in kube). */
  add(resources: string[], objects: KubeObject[]): void {
    if (objects.length === 0) return;
    for (const resource of resources) {
      this.byResource.set(resource, (this.byResource.get(resource) ?? 0) + objects.length);
      for (const f of objects.flatMap((o) => o.metadata.finalizers ?? [])) {
        this.byFinalizer.set(f, (this.byFinalizer.get(f) ?? 0) + 1);
      }
    }
  }

  /** kube's ProcessContentTotals: the two conditions that are True while something remains. */
  conditions(): Map<string, Omit<Condition, "type">> {
    const out = new Map<string, Omit<Condition, "type">>();
    if (this.byResource.size > 0) {
      const list = [...this.byResource].map(([r, n]) => `${r} has ${n} resource instances`).sort(byBytes);
      out.set("NamespaceContentRemaining", {
        status: "True",
        reason: "SomeResourcesRemain",
        message: `Some resources are remaining: ${list.join(", ")}`,
      });
    }
    if (this.byFinalizer.size > 0) {
      const list = [...this.byFinalizer].map(([f, n]) => `${f} in ${n} resource instances`).sort(byBytes);
      out.set("NamespaceFinalizersRemaining", {
        status: "True",
        reason: "SomeFinalizersRemain",
        message: `Some content in the namespace has finalizers remaining: ${list.join(", ")}`,
      });
    }
    return out;
  }
}

/** kube's updateConditions: each type set, lastTransitionTime kept unless its status flips; other types kept. */
function mergeConditions(old: Condition[], wanted: Map<string, Omit<Condition, "type">>, now: string): Condition[] {
  const next = old.map((c) => ({ ...c }));
  for (const [type, reason, message] of OK_CONDITIONS) {
    const want = wanted.get(type) ?? { status: "False", reason, message };
    const existing = next.find((c) => c.type === type);
    if (!existing) {
      next.push({ type, status: want.status, lastTransitionTime: now, reason: want.reason, message: want.message });
    } else {
      if (existing.status !== want.status) existing.lastTransitionTime = now;
      Object.assign(existing, { status: want.status, reason: want.reason, message: want.message });
    }
  }
  return next;
}

/** What a pass over a Terminating namespace asks of its caller. */
export interface NamespaceSync {
  /** Run the pass again in this many milliseconds (the end of kube's estimate for the pods' termination). */
  recheckInMs?: number;
}

/**
 * kube's estimateGracefulTermination for pods: the longest grace period of the namespace's running pods, or 0 once
 * that long has passed since the namespace's deletion.
 */
function podEstimateMs(pods: KubeObject[], deletedAt: string, now: number): number {
  const running = pods.filter((p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
  const grace = Math.max(0, ...running.map((p) => Number(p.spec?.terminationGracePeriodSeconds ?? 30)));
  return Math.max(0, Date.parse(deletedAt) + grace * 1000 - now);
}

/**
 * One sync of the Terminating namespace `name` (a no-op for any other): deletes content, writes the conditions,
 * finalizes. `guard` runs each delete, keeping the pass going when one fails.
 */
export function syncTerminatingNamespace(
  store: FakeStore,
  name: string,
  guard: (fn: () => void) => void,
): NamespaceSync {
  const objects = store.objects;
  const ns = objects.get("/namespaces", "", name);
  if (!ns || !ns.metadata.deletionTimestamp) return {};
  const estimateMs = podEstimateMs(objects.list(PODS, name), ns.metadata.deletionTimestamp, store.clock.now());
  const specFinalizers: string[] = ns.spec?.finalizers ?? [];
  const servedBy = (storageKey: string) =>
    store.registry.all().filter((d) => d.namespaced && storageKeyOf(d) === storageKey && d.verbs.includes("delete"));
  const deleteAll = (storageKey: string) => {
    const defs = servedBy(storageKey);
    const def = defs.find((d) => d.group !== "events.k8s.io") ?? defs[0];
    for (const obj of objects.list(storageKey, name)) {
      if (obj.metadata.deletionTimestamp) continue;
      if (!def) objects.remove(storageKey, name, obj.metadata.name!);
      else guard(() => store.delete(def, obj.metadata.name!, { namespace: name, propagationPolicy: "Background" }));
    }
  };
  const remaining = new Remaining();
  const count = (storageKey: string) => {
    const groups = new Map<string, ResourceDef>(servedBy(storageKey).map((d) => [d.group, d]));
    const resources = [...groups.values()].map((d) => `${d.plural}.${d.group}`);
    remaining.add(resources, objects.list(storageKey, name));
  };
  deleteAll(PODS);
  // While pods remain nothing else is deleted, and kube writes the conditions without counting them (all "ok").
  const pods = objects.list(PODS, name);
  const wanted = new Map<string, Omit<Condition, "type">>();
  if (pods.length === 0) {
    for (const storageKey of objects.bucketsWithNamespace(name)) deleteAll(storageKey);
    for (const storageKey of objects.bucketsWithNamespace(name)) count(storageKey);
    for (const [type, c] of remaining.conditions()) wanted.set(type, c);
  } else if (estimateMs === 0 && pods.every((p) => (p.metadata.finalizers ?? []).length === 0)) {
    wanted.set("NamespaceDeletionContentFailure", {
      status: "True",
      reason: "ContentDeletionFailed",
      message:
        `Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: ${name} ` +
        "for gvr: /v1, Resource=pods",
    });
  }
  const now = rfc3339(store.clock.now());
  const conditions = mergeConditions(ns.status?.conditions ?? [], wanted, now);
  let current = ns;
  if (JSON.stringify(conditions) !== JSON.stringify(ns.status?.conditions ?? [])) {
    current = copyJson(ns);
    current.status = { ...current.status, conditions };
    // kube-controller-manager's UpdateStatus: its entry (subresource status) owns the conditions.
    recordStatusWrite(ns, current, "kube-controller-manager", now, store.def(NAMESPACES));
    objects.put("/namespaces", current);
  }
  if (objects.countInNamespace(name) > 0) return pods.length > 0 && estimateMs > 0 ? { recheckInMs: estimateMs } : {};
  if (specFinalizers.includes(NAMESPACE_FINALIZER)) {
    current = copyJson(current);
    current.spec = { ...current.spec, finalizers: specFinalizers.filter((f) => f !== NAMESPACE_FINALIZER) };
    objects.put("/namespaces", current);
  }
  if ((current.spec?.finalizers ?? []).length === 0 && (current.metadata.finalizers ?? []).length === 0) {
    objects.remove("/namespaces", "", name, current);
  }
  return {};
}
