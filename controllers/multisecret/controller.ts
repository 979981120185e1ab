/**
 * MultiSecret (seed 004): one Secret per selected namespace, like the tutorial's reconciler, with its gaps closed:
 *
 * - Children are named like the MultiSecret (or `spec.secretName`) and carry the owner annotations
 *   `multi.ddnw.ml/owner-name`, `-namespace`, `-uid` plus the label `multi.ddnw.ml/owner-uid` (what the Secret
 *   watch selects on). Children live in other namespaces, so there is no ownerReference: a finalizer deletes them.
 * - Spec changes reach every child (the original never propagated); a changed `type` re-creates the child (type
 *   is immutable). `stringData` is folded into `data`; nothing but the MultiSecret's own data, type and our
 *   annotations is copied — never kubectl's last-applied-configuration annotation (the original leaked stringData
 *   through it).
 * - A Secret of the same name that is not ours is left alone and reported (Degraded=True, reason SecretConflict,
 *   and a Warning Event).
 * - Terminating namespaces are skipped. No Secret value ever reaches a log line or an Event.
 * @module
 */

import { addFinalizer, hasFinalizer, removeFinalizer, setCondition } from "../../runtime/apply.ts";
import { Controller, type ReconcileContext } from "../../runtime/controller.ts";
import { isAlreadyExists, isConflict, TerminalError } from "../../runtime/errors.ts";
import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import { type LabelMatcher, labelSelectorMatcher, SelectorError } from "../../runtime/apimachinery/label_selector.ts";
import { deleteIgnoringNotFound } from "../../runtime/delete_ignoring_not_found.ts";
import { patchStatusIfChanged } from "../../runtime/status_patch.ts";
import { type Action, done, requeueAfter } from "../../runtime/queue.ts";
import { type Condition, CoreTypes, type KubeObject, objectKey } from "../../runtime/types.ts";
import type { RbacRule } from "../rbac.ts";
import { type MultiSecret, MultiSecretType } from "./schema.ts";

/** The finalizer that deletes children in other namespaces. */
export const FINALIZER = "multi.ddnw.ml/finalizer";
/** Owner annotations on every child. */
export const OWNER_NAME = "multi.ddnw.ml/owner-name";
/** Owner namespace annotation. */
export const OWNER_NAMESPACE = "multi.ddnw.ml/owner-namespace";
/** Owner uid annotation (and label: the Secret watch selects on it). */
export const OWNER_UID = "multi.ddnw.ml/owner-uid";
/** The label selector of the Secret informer: only our children are cached. */
export const CHILD_SELECTOR = OWNER_UID;

/** The API calls this file makes. */
export const RBAC: readonly RbacRule[] = [
  { group: "multi.ddnw.ml", resource: "multisecrets", verbs: ["get", "list", "watch", "patch"] },
  { group: "multi.ddnw.ml", resource: "multisecrets/status", verbs: ["patch"] },
  { group: "", resource: "secrets", verbs: ["get", "list", "watch", "create", "update", "delete"] },
  { group: "", resource: "namespaces", verbs: ["get", "list", "watch"] },
];

/**
 * The namespaces `ms` copies into: its `spec.namespaceSelector` (metav1.LabelSelector semantics; no selector selects
 * every namespace). An invalid selector is a TerminalError: retrying cannot fix it, a spec change will.
 */
export function namespaceMatcher(ms: MultiSecret): LabelMatcher {
  try {
    return labelSelectorMatcher(ms.spec?.namespaceSelector);
  } catch (err) {
    if (!(err instanceof SelectorError)) throw err;
    throw new TerminalError(
      `MultiSecret ${ms.metadata.namespace}/${ms.metadata.name}: spec.namespaceSelector: ${err.message}`,
      {
        cause: err,
      },
    );
  }
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The child Secret `ms` wants in `namespace` (data = spec.data with stringData folded in, base64). */
export function desiredChild(ms: MultiSecret, namespace: string): KubeObject {
  const data: Record<string, string> = { ...(ms.spec?.data ?? {}) };
  for (const [k, v] of Object.entries(ms.spec?.stringData ?? {})) data[k] = base64(v);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: childNameOf(ms),
      namespace,
      labels: { [OWNER_UID]: ms.metadata.uid! },
      annotations: {
        [OWNER_NAME]: ms.metadata.name!,
        [OWNER_NAMESPACE]: ms.metadata.namespace!,
        [OWNER_UID]: ms.metadata.uid!,
      },
    },
    type: ms.spec?.type ?? "Opaque",
    data,
  };
}

/** The children's name. */
export function childNameOf(ms: MultiSecret): string {
  return ms.spec?.secretName ?? ms.metadata.name!;
}

function isOurs(secret: KubeObject, ms: MultiSecret): boolean {
  const a = secret.metadata.annotations ?? {};
  if (a[OWNER_UID]) return a[OWNER_UID] === ms.metadata.uid;
  return a[OWNER_NAME] === ms.metadata.name && a[OWNER_NAMESPACE] === ms.metadata.namespace;
}

function sameContent(have: KubeObject, want: KubeObject): boolean {
  const a = have.metadata.annotations ?? {};
  return deepEqual(have.data ?? {}, want.data ?? {}) &&
    have.metadata.labels?.[OWNER_UID] === want.metadata.labels![OWNER_UID] &&
    [OWNER_NAME, OWNER_NAMESPACE, OWNER_UID].every((k) => a[k] === want.metadata.annotations![k]) &&
    !a["kubectl.kubernetes.io/last-applied-configuration"];
}

/** Reconciles one MultiSecret. */
export async function reconcileMultiSecret(ctx: ReconcileContext): Promise<Action> {
  const ms = ctx.informers.get<MultiSecret>(MultiSecretType).store.get(ctx.key);
  if (!ms) return done();
  const children = ctx.informers.get(CoreTypes.Secret, { labelSelector: CHILD_SELECTOR }).store;
  const namespaces = ctx.informers.get(CoreTypes.Namespace).store.list();
  const name = childNameOf(ms);

  if (ms.metadata.deletionTimestamp) {
    if (!hasFinalizer(ms, FINALIZER)) return done();
    for (const child of children.list()) {
      if (!isOurs(child, ms)) continue;
      await deleteChild(ctx, ms, child);
    }
    const change = removeFinalizer(ms, FINALIZER)!;
    await ctx.client.patch(MultiSecretType, ms.metadata.name!, change.patch, {
      namespace: ctx.namespace,
      type: "merge",
    });
    return done();
  }
  const add = addFinalizer(ms, FINALIZER);
  if (add) {
    await ctx.client.patch(MultiSecretType, ms.metadata.name!, add.patch, { namespace: ctx.namespace, type: "merge" });
  }

  let wanted = 0;
  let created = 0;
  let changed = false;
  let pending = false;
  const conflicts: string[] = [];
  const selected = new Set<string>();
  const selects = namespaceMatcher(ms);
  for (const ns of namespaces) {
    const nsName = ns.metadata.name!;
    if (ns.metadata.deletionTimestamp || ns.status?.phase === "Terminating") continue;
    if (!selects(ns.metadata.labels)) continue;
    selected.add(nsName);
    wanted++;
    const want = desiredChild(ms, nsName);
    const have = children.get(`${nsName}/${name}`);
    if (!have) {
      const outcome = await createChild(ctx, ms, want);
      if (outcome === "conflict") conflicts.push(nsName);
      else if (outcome === "created" || outcome === "ours") created++;
      changed ||= outcome === "created";
      continue;
    }
    if (!isOurs(have, ms)) {
      conflicts.push(nsName); // labelled by another MultiSecret of another uid
      continue;
    }
    if ((have.type ?? "Opaque") !== want.type) {
      await deleteChild(ctx, ms, have); // type is immutable: delete now, re-create on the delete event
      changed = true;
      pending = true;
      continue;
    }
    if (!sameContent(have, want)) {
      await updateChild(ctx, ms, have, want);
      changed = true;
    }
    created++;
  }
  // Children in namespaces no longer selected (selector changed, namespace relabelled) go.
  for (const child of children.list()) {
    if (child.metadata.name !== name && isOurs(child, ms)) {
      await deleteChild(ctx, ms, child); // spec.secretName changed
      changed = true;
    } else if (isOurs(child, ms) && !selected.has(child.metadata.namespace!)) {
      const ns = namespaces.find((n) => n.metadata.name === child.metadata.namespace);
      if (ns && (ns.metadata.deletionTimestamp || ns.status?.phase === "Terminating")) continue;
      await deleteChild(ctx, ms, child);
      changed = true;
    }
  }
  for (const nsName of conflicts) {
    ctx.recorder.event(ms, {
      type: "Warning",
      reason: "SecretConflict",
      action: "CreateSecret",
      note: `Secret ${nsName}/${name} exists and was not created by this MultiSecret; left alone`,
    });
  }
  await writeStatus(ctx, ms, { wanted, created, changed, conflicts });
  return pending ? requeueAfter(1_000) : done();
}

type CreateOutcome = "created" | "ours" | "conflict";

async function createChild(ctx: ReconcileContext, ms: MultiSecret, want: KubeObject): Promise<CreateOutcome> {
  const ns = want.metadata.namespace!;
  try {
    await ctx.client.create(CoreTypes.Secret, want, { namespace: ns });
  } catch (err) {
    if (!isAlreadyExists(err)) {
      ctx.recorder.event(ms, {
        type: "Warning",
        reason: "CreateFailed",
        action: "CreateSecret",
        note: `Secret ${ns}/${want.metadata.name}: ${(err as Error).message}`,
      });
      throw err;
    }
    const existing = await ctx.client.get(CoreTypes.Secret, want.metadata.name!, { namespace: ns });
    if (!isOurs(existing, ms)) return "conflict";
    return "ours"; // ours, not yet in the cache
  }
  ctx.recorder.event(ms, {
    type: "Normal",
    reason: "Created",
    action: "CreateSecret",
    note: `Created Secret ${ns}/${want.metadata.name}`,
  });
  ctx.log.info("created Secret {namespace}/{name} for {owner}", {
    namespace: ns,
    name: want.metadata.name,
    owner: ctx.key,
  });
  return "created";
}

async function updateChild(ctx: ReconcileContext, ms: MultiSecret, have: KubeObject, want: KubeObject) {
  const annotations = { ...(have.metadata.annotations ?? {}), ...want.metadata.annotations };
  delete annotations["kubectl.kubernetes.io/last-applied-configuration"];
  const next: KubeObject = {
    ...have,
    metadata: { ...have.metadata, labels: { ...(have.metadata.labels ?? {}), ...want.metadata.labels }, annotations },
    data: want.data,
  };
  delete next.stringData;
  // A 409 (someone changed it meanwhile) is retried with backoff; the next reconcile sees the fresh object.
  await ctx.client.update(CoreTypes.Secret, next, { namespace: have.metadata.namespace });
  ctx.recorder.event(ms, {
    type: "Normal",
    reason: "Updated",
    action: "UpdateSecret",
    note: `Updated Secret ${have.metadata.namespace}/${have.metadata.name}`,
  });
}

async function deleteChild(ctx: ReconcileContext, ms: MultiSecret, child: KubeObject) {
  try {
    const deleted = await deleteIgnoringNotFound(ctx.client, CoreTypes.Secret, child.metadata.name!, {
      namespace: child.metadata.namespace,
      preconditions: { uid: child.metadata.uid },
    });
    if (!deleted) return; // gone already
  } catch (err) {
    if (isConflict(err)) return; // replaced by someone else (uid precondition): not ours to delete
    throw err;
  }
  ctx.recorder.event(ms, {
    type: "Normal",
    reason: "Deleted",
    action: "DeleteSecret",
    note: `Deleted Secret ${child.metadata.namespace}/${child.metadata.name}`,
  });
}

async function writeStatus(
  ctx: ReconcileContext,
  ms: MultiSecret,
  s: { wanted: number; created: number; changed: boolean; conflicts: string[] },
): Promise<void> {
  const now = new Date(ctx.clock.now()).toISOString();
  const generation = ms.metadata.generation;
  const ready = s.created === s.wanted && s.conflicts.length === 0;
  const message = `${s.created}/${s.wanted} Secrets in place` +
    (s.conflicts.length ? `; not ours in: ${s.conflicts.slice(0, 10).join(", ")}` : "");
  let conditions: Condition[] = setCondition(ms.status?.conditions as Condition[] | undefined, {
    type: "Ready",
    status: ready ? "True" : "False",
    reason: ready ? "AllSecretsInPlace" : s.conflicts.length ? "SecretConflict" : "Creating",
    message,
    observedGeneration: generation,
  }, now);
  conditions = setCondition(conditions, {
    type: "Degraded",
    status: s.conflicts.length ? "True" : "False",
    reason: s.conflicts.length ? "SecretConflict" : "NoConflict",
    message,
    observedGeneration: generation,
  }, now);
  const status: Record<string, unknown> = {
    wanted: s.wanted,
    created: s.created,
    observedGeneration: generation,
    conditions,
  };
  const current = (ms.status ?? {}) as Record<string, unknown>;
  const changedCounts = current.wanted !== s.wanted || current.created !== s.created;
  if (s.changed || changedCounts || !current.change_time) {
    status.change_time = now.replace(/\.\d{3}Z$/, "Z"); // RFC 3339 to the second, as the original's time.RFC3339
  }
  await patchStatusIfChanged(ctx.client, MultiSecretType, ms, status);
}

/** Secret → its owner's key, from the owner annotations. */
export function ownerOfSecret(secret: KubeObject): string[] {
  const a = secret.metadata.annotations ?? {};
  return a[OWNER_NAME] && a[OWNER_NAMESPACE] ? [`${a[OWNER_NAMESPACE]}/${a[OWNER_NAME]}`] : [];
}

/** The MultiSecret controller: For(MultiSecret), Watches(our Secrets → owner), Watches(Namespace → every MultiSecret). */
export function multiSecretController(deps: { informers: ReconcileContext["informers"] }): Controller<MultiSecret> {
  const allKeys = () => deps.informers.get<MultiSecret>(MultiSecretType).store.list().map(objectKey);
  return new Controller<MultiSecret>({ name: "multisecret", for: MultiSecretType, reconcile: reconcileMultiSecret })
    .watchesOpts(CoreTypes.Secret, { labelSelector: CHILD_SELECTOR }, ownerOfSecret)
    .watches(CoreTypes.Namespace, () => allKeys());
}
