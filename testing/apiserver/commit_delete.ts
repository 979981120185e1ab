/**
 * The fake server's DELETE semantics, as kube-apiserver's: uid/resourceVersion preconditions, objects their own
 * controller terminates (marked only), finalizers and the propagation policies' finalizers (marked with a
 * deletionTimestamp), graceful deletion (deletionTimestamp in the future, only shortened by a later delete), and
 * removal otherwise. Used by FakeStore.deleteWithOutcome (commit_path.ts).
 * @module
 */
import type { Clock } from "../../runtime/clock.ts";
import type { ObjectStore } from "./object_storage.ts";
import { DEFAULT_STRATEGY, type ResourceStrategy, type StrategyRegistry } from "./strategy.ts";
import { rfc3339 } from "./object_rules.ts";
import { storageKeyOf } from "./registry.ts";
import { internalKindDef } from "./served_form.ts";
import type { ResourceDef } from "./resource_def.ts";
import { conflict, notFound, preconditionFailed } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** Delete options (DeleteOptions body fields). */
export interface DeleteOptions {
  /** Namespace of the object. */
  namespace?: string;
  /** What happens to dependents. */
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  /** The deprecated DeleteOptions.orphanDependents (`false`: not orphaned, whatever the kind's default). */
  orphanDependents?: boolean;
  /** Delete only if the object still has this uid / resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Validate, but do not delete. */
  dryRun?: boolean;
  /** DeleteOptions.gracePeriodSeconds (pods: 0 deletes at once). */
  gracePeriodSeconds?: number;
}

const FOREGROUND = "foregroundDeletion";
const ORPHAN = "orphan";

/** What a delete reads of the commit path (FakeStore satisfies it); declared here so the two files form no cycle. */
export interface DeleteHost {
  /** The objects. */
  readonly objects: ObjectStore;
  /** The server's time. */
  readonly clock: Clock;
  /** Per-resource strategies (grace periods). */
  readonly strategies: StrategyRegistry;
  /** Whether pods are deleted gracefully (a kubelet confirms). */
  readonly gracefulPodDeletion: boolean;
  /** The object as served (storage version converted to the request's). */
  present(def: ResourceDef, obj: KubeObject): KubeObject;
}

/**
 * Deletes `namespace/name` of `def` from `store` (see the module doc), answering the object as served and whether it
 * went at once (`deleted`; on a dry run: would have gone) or stays marked for deletion. `persist` stores a marked
 * object (unless `dryRun`) and answers it as served.
 */
export function deleteObject(
  store: DeleteHost,
  def: ResourceDef,
  namespace: string,
  name: string,
  opts: DeleteOptions,
  persist: (obj: KubeObject, dryRun: boolean | undefined) => KubeObject,
): { object: KubeObject; deleted: boolean } {
  const strategy = store.strategies.for(def);
  const storageKey = storageKeyOf(def);
  const old = store.objects.get(storageKey, namespace, name);
  if (!old) throw notFound(def, name, "delete");
  checkPreconditions(def, strategy, name, old, opts.preconditions);
  const next = copyJson(old);
  if (strategy.terminate) {
    // Deleted by its own controller once terminated: the delete only marks it.
    if (old.metadata.deletionTimestamp) return { object: copyJson(store.present(def, old)), deleted: false };
    next.metadata.deletionTimestamp = rfc3339(store.clock.now());
    strategy.terminate(next, store.clock.now());
    return { object: persist(next, opts.dryRun), deleted: false };
  }
  const pending = old.metadata.deletionGracePeriodSeconds ?? 0;
  if (old.metadata.deletionTimestamp && pending > 0 && (opts.gracePeriodSeconds ?? pending) >= pending) {
    // kube's BeforeDelete: a graceful deletion is pending and not shortened — nothing changes, finalizers included
    // (the policy's finalizer is not added once deletion has started).
    return { object: copyJson(store.present(def, old)), deleted: false };
  }
  const finalizers = new Set(next.metadata.finalizers ?? []);
  const policy = opts.propagationPolicy ?? defaultPolicy(strategy.defaultPropagationPolicy, finalizers, opts);
  // kube adds the policy's finalizer whether or not dependents exist; the garbage collector removes it.
  if (policy === "Foreground") {
    finalizers.delete(ORPHAN);
    finalizers.add(FOREGROUND);
  }
  if (policy === "Orphan") {
    finalizers.delete(FOREGROUND);
    finalizers.add(ORPHAN);
  }
  if (finalizers.size > 0) {
    const changedFinalizers = finalizers.size !== (old.metadata.finalizers ?? []).length;
    if (old.metadata.deletionTimestamp && !changedFinalizers) {
      return { object: copyJson(store.present(def, old)), deleted: false };
    }
    next.metadata.finalizers = [...finalizers];
    if (!old.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = rfc3339(store.clock.now());
      next.metadata.deletionGracePeriodSeconds = 0;
      bumpGeneration(next);
    }
    return { object: persist(next, opts.dryRun), deleted: false };
  }
  const grace = store.gracefulPodDeletion ? strategy.gracePeriodSeconds!(old, opts.gracePeriodSeconds) : 0;
  if (grace > 0) {
    const prior = old.metadata.deletionGracePeriodSeconds;
    // A later delete may only shorten a pending grace period.
    if (old.metadata.deletionTimestamp && prior !== undefined && prior <= grace) {
      return { object: copyJson(store.present(def, old)), deleted: false };
    }
    if (!old.metadata.deletionTimestamp) bumpGeneration(next);
    next.metadata.deletionTimestamp = rfc3339(store.clock.now() + grace * 1000);
    next.metadata.deletionGracePeriodSeconds = grace;
    return { object: persist(next, opts.dryRun), deleted: false };
  }
  // A graceful kind (pods) deleted with grace 0 is first marked (deletionTimestamp now, grace 0: a MODIFIED event),
  // then removed; its DELETED event, like any kind's, carries the last stored state (kube: etcd's previous value). A
  // dry run answers it as marked.
  const graceful = strategy.gracePeriodSeconds !== undefined &&
    strategy.gracePeriodSeconds !== DEFAULT_STRATEGY.gracePeriodSeconds;
  const marked = graceful && (!old.metadata.deletionTimestamp || (old.metadata.deletionGracePeriodSeconds ?? 0) > 0);
  if (marked) {
    if (!next.metadata.deletionTimestamp) bumpGeneration(next);
    next.metadata.deletionTimestamp = rfc3339(store.clock.now());
    next.metadata.deletionGracePeriodSeconds = 0;
  }
  if (opts.dryRun) return { object: copyJson(store.present(def, marked ? next : old)), deleted: true };
  if (marked) persist(next, false);
  const ev = store.objects.remove(storageKey, namespace, name)!;
  return { object: copyJson(store.present(def, ev.object)), deleted: true };
}

/** kube's rest.BeforeDelete: marking an object for deletion bumps a generation it tracks. */
function bumpGeneration(obj: KubeObject): void {
  if ((obj.metadata.generation ?? 0) > 0) obj.metadata.generation! += 1;
}

/**
 * Throws the Conflict of a failed uid or resourceVersion precondition: the storage layer's (naming the stored kind —
 * an events.k8s.io Event is a core `Event`), or the resource's own delete's (strategy.deletePreconditionsFailed:
 * naming the resource).
 */
function checkPreconditions(
  def: ResourceDef,
  strategy: ResourceStrategy,
  name: string,
  old: KubeObject,
  pre: DeleteOptions["preconditions"],
): void {
  const uid = pre?.uid && pre.uid !== old.metadata.uid;
  const rv = !uid && pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion;
  if (!uid && !rv) return;
  const own = strategy.deletePreconditionsFailed;
  if (own) {
    const why = uid
      ? `UID in precondition: ${pre!.uid}, UID in object meta: ${old.metadata.uid}`
      : `ResourceVersion in precondition: ${
        pre!.resourceVersion
      }, ResourceVersion in object meta: ${old.metadata.resourceVersion}`;
    throw conflict(def, name, "delete", `${own}: ${why}`);
  }
  throw preconditionFailed(
    internalKindDef(def, strategy),
    name,
    uid
      ? `the UID in the precondition (${
        pre!.uid
      }) does not match the UID in record (${old.metadata.uid}). The object might have been deleted and then recreated`
      : `the ResourceVersion in the precondition (${
        pre!.resourceVersion
      }) does not match the ResourceVersion in record (${old.metadata.resourceVersion}). The object might have been modified`,
  );
}

/**
 * kube's shouldOrphanDependents without an explicit policy: `orphanDependents` when sent, else a finalizer the object
 * already has, else the kind's default.
 */
function defaultPolicy(
  kindDefault: "Orphan" | undefined,
  finalizers: ReadonlySet<string>,
  opts: DeleteOptions,
): DeleteOptions["propagationPolicy"] {
  if (opts.orphanDependents !== undefined || finalizers.has(FOREGROUND) || finalizers.has(ORPHAN)) return undefined;
  return kindDefault;
}

/**
 * The warning a delete answers when it leaves the propagation to the kind's default (kube's Job REST: its pods are
 * orphaned), else none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultPolicyWarnings } from "./commit_delete.ts";
 * assert.deepEqual(defaultPolicyWarnings({ defaultPropagationWarning: "orphaned" }, {}), ["orphaned"]);
 * assert.deepEqual(defaultPolicyWarnings({ defaultPropagationWarning: "orphaned" }, { propagationPolicy: "Background" }), []);
 * ```
 */
export function defaultPolicyWarnings(strategy: ResourceStrategy, opts: DeleteOptions): string[] {
  const leftDefault = !opts.propagationPolicy && opts.orphanDependents === undefined;
  return leftDefault && strategy.defaultPropagationWarning ? [strategy.defaultPropagationWarning] : [];
}
