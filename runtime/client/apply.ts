/**
 * Pure helpers controllers use on objects before writing them: controller owner references, finalizers (as JSON
 * merge patches guarded by resourceVersion) and status conditions (metav1.Condition semantics). No I/O here.
 * @module
 */

import { TerminalError } from "./errors.ts";
import type { Condition, KubeObject, OwnerReference } from "../types.ts";

/** Thrown by {@link setControllerReference} when another controller already owns the object. */
export class AlreadyOwnedError extends TerminalError {
  /** The existing controller reference. */
  readonly owner: OwnerReference;

  /** `child` is controlled by `owner` already. */
  constructor(child: KubeObject, owner: OwnerReference) {
    super(
      `${child.kind ?? "object"} ${
        describe(child)
      } is already controlled by ${owner.kind} ${owner.name} (${owner.uid})`,
    );
    this.name = "AlreadyOwnedError";
    this.owner = owner;
  }
}

function describe(obj: KubeObject): string {
  const { namespace, name, generateName } = obj.metadata;
  return `${namespace ? `${namespace}/` : ""}${name ?? `${generateName ?? ""}*`}`;
}

/** The controller owner reference of `obj` (the one with `controller: true`), if any. */
export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** Whether `obj` has a controller reference — to `owner` (by uid) when given. */
export function hasControllerReference(obj: KubeObject, owner?: KubeObject): boolean {
  const ref = getControllerOf(obj);
  if (!ref) return false;
  return owner === undefined || ref.uid === owner.metadata.uid;
}

/**
 * A copy of `child` whose controller reference points at `owner` (`controller: true`, `blockOwnerDeletion: true`).
 * Other owner references are kept; an existing reference to the same owner is replaced.
 * @throws AlreadyOwnedError when a different controller owns `child`; Error when `owner` lacks apiVersion, kind,
 * name or uid, or a namespaced owner sits in another namespace (cross-namespace owners are invalid).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { getControllerOf, setControllerReference } from "./apply.ts";
 * const owner = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o", namespace: "ns", uid: "u1" } };
 * const child = setControllerReference(owner, { metadata: { name: "c", namespace: "ns" } });
 * assert.ok(getControllerOf(child)?.uid === "u1");
 * ```
 */
export function setControllerReference<T extends KubeObject>(
  owner: KubeObject,
  child: T,
  opts: { blockOwnerDeletion?: boolean } = {},
): T {
  const { apiVersion, kind } = owner;
  const { name, uid, namespace } = owner.metadata;
  if (!apiVersion || !kind || !name || !uid) {
    throw new Error(`owner ${describe(owner)} needs apiVersion, kind, metadata.name and metadata.uid`);
  }
  if (namespace && child.metadata.namespace && namespace !== child.metadata.namespace) {
    throw new Error(
      `cross-namespace owner references are not allowed: owner ${describe(owner)}, child ${describe(child)}`,
    );
  }
  const existing = getControllerOf(child);
  if (existing && existing.uid !== uid) throw new AlreadyOwnedError(child, existing);
  const ref: OwnerReference = {
    apiVersion,
    kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: opts.blockOwnerDeletion ?? true,
  };
  const others = (child.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
  return { ...child, metadata: { ...child.metadata, ownerReferences: [...others, ref] } };
}

/** A change to an object's finalizers: the updated copy and the merge patch that makes it on the server. */
export interface FinalizerChange<T extends KubeObject> {
  /** The object with the change applied (a copy). */
  object: T;
  /** JSON merge patch; carries `resourceVersion` so a concurrent change is a 409, not a lost finalizer. */
  patch: { metadata: { finalizers: string[] | null; resourceVersion?: string } };
}

function finalizerChange<T extends KubeObject>(obj: T, finalizers: string[]): FinalizerChange<T> {
  const metadata = { ...obj.metadata, finalizers };
  const patch: FinalizerChange<T>["patch"] = { metadata: { finalizers: finalizers.length ? finalizers : null } };
  if (obj.metadata.resourceVersion) patch.metadata.resourceVersion = obj.metadata.resourceVersion;
  return { object: { ...obj, metadata }, patch };
}

/**
 * Adds `finalizer` to `obj`; undefined when it is already there (nothing to write).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addFinalizer } from "./apply.ts";
 * const change = addFinalizer({ metadata: { name: "a", resourceVersion: "7" } }, "example.com/cleanup");
 * assert.ok(change?.patch.metadata.finalizers?.[0] === "example.com/cleanup");
 * ```
 */
export function addFinalizer<T extends KubeObject>(obj: T, finalizer: string): FinalizerChange<T> | undefined {
  const current = obj.metadata.finalizers ?? [];
  if (current.includes(finalizer)) return undefined;
  return finalizerChange(obj, [...current, finalizer]);
}

/** Removes `finalizer` from `obj`; undefined when it is not there. */
export function removeFinalizer<T extends KubeObject>(obj: T, finalizer: string): FinalizerChange<T> | undefined {
  const current = obj.metadata.finalizers ?? [];
  if (!current.includes(finalizer)) return undefined;
  return finalizerChange(obj, current.filter((f) => f !== finalizer));
}

/** Whether `obj` carries `finalizer`. */
export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/** A condition to set; `lastTransitionTime` is managed by {@link setCondition}. */
export type ConditionInput = Omit<Condition, "lastTransitionTime">;

/**
 * A new conditions array with `cond` set: replaces the condition of the same type, keeping its
 * `lastTransitionTime` when the status did not change (apimachinery's meta.SetStatusCondition); appends otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { setCondition } from "./apply.ts";
 * const a = setCondition([], { type: "Ready", status: "True", reason: "Ok", message: "" }, "2026-01-01T00:00:00Z");
 * const b = setCondition(a, { type: "Ready", status: "True", reason: "Still", message: "" }, "2026-01-02T00:00:00Z");
 * assert.ok(b[0].lastTransitionTime === "2026-01-01T00:00:00Z" && b[0].reason === "Still");
 * ```
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  cond: ConditionInput,
  nowIso: string,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === cond.type);
  const previous = i >= 0 ? list[i] : undefined;
  // metav1.Time is RFC 3339 with whole seconds, as kube-apiserver and client-go write it.
  const lastTransitionTime = previous && previous.status === cond.status
    ? previous.lastTransitionTime
    : nowIso.replace(/\.\d+Z$/, "Z");
  const next: Condition = { ...cond, lastTransitionTime };
  if (next.observedGeneration === undefined) delete next.observedGeneration;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** The condition of `type`, if present. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether two condition lists say the same thing (same types, status, reason, message, observedGeneration, and
 * transition times), in any order — use it to skip a status write that would change nothing. */
export function conditionsEqual(a: readonly Condition[] | undefined, b: readonly Condition[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  if (left.length !== right.length) return false;
  return left.every((x) => {
    const y = right.find((c) => c.type === x.type);
    return y !== undefined && x.status === y.status && x.reason === y.reason && x.message === y.message &&
      x.observedGeneration === y.observedGeneration && x.lastTransitionTime === y.lastTransitionTime;
  });
}
