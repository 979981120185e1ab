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
 * - Children are independent: each namespace is written on its own, so one failing child neither stops the others
 *   nor the status write (observedGeneration advances). Failed namespaces are listed in `status.failedNamespaces`
 *   and named in the Ready/Degraded message, with a Warning Event each; a transient failure is retried with
 *   backoff, a refusal retrying cannot fix (runtime/controller/child_write_failure.ts) is Degraded ChildWriteRejected and
 *   terminal until something changes.
 * - An immutable child (someone set `immutable: true`) whose data must change is replaced: kube refuses the update,
 *   so it is deleted (uid precondition) and re-created — immutable again, the flag is the user's choice.
 * - After the API server lost its state the cache may show a MultiSecret that is gone: nothing is created or
 *   adopted before an uncached GET confirms the owner and its uid. A child whose owner-uid names an owner that no
 *   longer exists is an orphan: adopted (owner label and annotations rewritten) when this MultiSecret wants that
 *   Secret — a re-applied MultiSecret converges instead of reporting "not ours" — deleted otherwise; and when the
 *   owner is not in the cache, its labelled children are deleted once an uncached GET answers 404 (event-driven:
 *   every child event enqueues its owner).
 * - An invalid `namespaceSelector` (e.g. `In` without values) is Degraded InvalidSelector with kube's message and a
 *   Warning Event, terminal until the spec changes. Terminating namespaces are skipped. No Secret value ever
 *   reaches a log line or an Event.
 * @module
 */

import { addFinalizer, hasFinalizer, removeFinalizer, setCondition } from "../../runtime/client/apply.ts";
import { Controller, type ReconcileContext } from "../../runtime/controller/controller.ts";
import {
  CHILD_WRITE_REJECTED,
  childWriteRejection,
  stalledCondition,
} from "../../runtime/controller/child_write_failure.ts";
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isNotLeader,
  TerminalError,
} from "../../runtime/client/errors.ts";
import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import { type LabelMatcher, labelSelectorMatcher, SelectorError } from "../../runtime/apimachinery/label_selector.ts";
import { deleteIgnoringNotFound } from "../../runtime/client/delete_ignoring_not_found.ts";
import { patchStatusIfChanged } from "../../runtime/controller/status_patch.ts";
import { type Action, done, requeueAfter } from "../../runtime/controller/reconcile.ts";
import type { Namespace } from "../../runtime/builtin_types.ts";
import { type Condition, CoreTypes, type KubeObject, objectKey } from "../../runtime/types.ts";
import type { RbacRule } from "../rbac.ts";
import { type MultiSecret, MultiSecretType } from "./schema.ts";
import { liveOwnerUid, Owners } from "./ownership.ts";
import {
  CHILD_SELECTOR,
  childNameOf,
  desiredChild,
  isOurs,
  namesOwner,
  OWNER_NAME,
  OWNER_NAMESPACE,
  OWNER_UID,
  ownerOfSecret,
  sameContent,
} from "./children.ts";

export { CHILD_SELECTOR, childNameOf, desiredChild, OWNER_NAME, OWNER_NAMESPACE, OWNER_UID, ownerOfSecret };

/** The finalizer that deletes children in other namespaces. */
export const FINALIZER = "multi.ddnw.ml/finalizer";
/** The Degraded reason of a spec whose namespaceSelector cannot be parsed (terminal until the spec changes). */
export const INVALID_SELECTOR = "InvalidSelector";
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

/** A namespace whose child could not be written. */
interface Failure {
  namespace: string;
  message: string;
  /** A refusal retrying cannot fix (runtime/controller/child_write_failure.ts), as opposed to a transient failure. */
  unfixable: boolean;
}

/** Reconciles one MultiSecret. */
export async function reconcileMultiSecret(ctx: ReconcileContext): Promise<Action> {
  const ms = ctx.informers.get<MultiSecret>(MultiSecretType).store.get(ctx.key);
  if (!ms) return await sweepOrphans(ctx);
  const children = ctx.informers.get(CoreTypes.Secret, { labelSelector: CHILD_SELECTOR }).store;
  const namespaces = ctx.informers.get<Namespace>(CoreTypes.Namespace).store.list();
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
  if (stalledCondition(ms, [INVALID_SELECTOR])) return done(); // told in status; a spec change tries again
  const selects = await selectorOrStall(ctx, ms);

  const owners = new Owners(ctx, ms);
  const s: Tally = { wanted: 0, created: 0, changed: false, conflicts: [], failures: [] };
  let pending = false;
  const selected = new Set<string>();
  // Each namespace is written on its own: one refusing its child neither stops the others nor the status.
  const each = async (namespace: string, write: () => Promise<void>) => {
    try {
      await write();
    } catch (err) {
      if (err instanceof OwnerNotConfirmed || isNotLeader(err) || ctx.signal.aborted) throw err;
      s.failures.push(failureOf(ctx, ms, namespace, err));
    }
  };
  try {
    for (const ns of namespaces) {
      const nsName = ns.metadata.name!;
      if (ns.metadata.deletionTimestamp || ns.status?.phase === "Terminating") continue;
      if (!selects(ns.metadata.labels)) continue;
      selected.add(nsName);
      s.wanted++;
      await each(nsName, async () => {
        const outcome = await ensureChild(ctx, ms, owners, desiredChild(ms, nsName), children.get(`${nsName}/${name}`));
        if (outcome === "conflict") s.conflicts.push(nsName);
        if (outcome === "pending") pending = true;
        if (outcome === "created" || outcome === "updated" || outcome === "pending") s.changed = true;
        if (outcome === "created" || outcome === "updated" || outcome === "unchanged") s.created++;
      });
    }
    // Children of ours (or orphans naming us) that should not be: namespace no longer selected, secretName changed.
    for (const child of children.list()) {
      const namespace = child.metadata.namespace!;
      const misplaced = child.metadata.name !== name || !selected.has(namespace);
      if (!misplaced || (!isOurs(child, ms) && !namesOwner(child, ms))) continue;
      const ns = namespaces.find((n) => n.metadata.name === namespace);
      if (child.metadata.name === name && ns && (ns.metadata.deletionTimestamp || ns.status?.phase === "Terminating")) {
        continue;
      }
      await each(namespace, async () => {
        if (!isOurs(child, ms) && !(await owners.confirmed())) throw new OwnerNotConfirmed(ctx.key);
        if (await deleteChild(ctx, ms, child)) s.changed = true;
      });
    }
  } catch (err) {
    if (!(err instanceof OwnerNotConfirmed)) throw err;
    ctx.log.info("{owner} is in the cache but not on the API server (uncached GET): no children written", {
      owner: ctx.key,
    });
    return done(); // the informer delivers the delete (or the new object) and reconciles again
  }
  for (const nsName of s.conflicts) {
    ctx.recorder.event(ms, {
      type: "Warning",
      reason: "SecretConflict",
      action: "CreateSecret",
      note: `Secret ${nsName}/${name} exists and was not created by this MultiSecret; left alone`,
    });
  }
  await writeStatus(ctx, ms, s);
  const transient = s.failures.filter((f) => !f.unfixable);
  if (transient.length) {
    // Retried with backoff; the namespaces that converged stay converged.
    throw new Error(`MultiSecret ${ctx.key}: ${summary(transient)}`);
  }
  if (s.failures.length) throw new TerminalError(`MultiSecret ${ctx.key}: ${summary(s.failures)}`);
  return pending ? requeueAfter(1_000) : done();
}

/** Thrown inside a reconcile when the owner's uncached GET does not confirm the cached owner. */
class OwnerNotConfirmed extends Error {
  constructor(key: string) {
    super(`MultiSecret ${key} is not on the API server with the cached uid`);
  }
}

function summary(failures: readonly Failure[]): string {
  const shown = failures.slice(0, 5).map((f) => `${f.namespace}: ${f.message}`).join("; ");
  return `Secrets not written in ${failures.length} namespace(s): ${shown}`;
}

/** Records the Warning Event of one namespace's failure and describes it for status. */
function failureOf(ctx: ReconcileContext, ms: MultiSecret, namespace: string, err: unknown): Failure {
  const write = { verb: "write", kind: "Secret", namespace, name: childNameOf(ms) };
  const call = err instanceof ApiError ? err.call.verb : undefined;
  const rejection = childWriteRejection(err, call ? { ...write, verb: call } : write);
  const message = rejection?.message ?? (err instanceof Error ? err.message : String(err));
  ctx.recorder.event(ms, {
    type: "Warning",
    reason: rejection ? rejection.reason : "SecretWriteFailed",
    action: "WriteSecret",
    note: message,
  });
  return { namespace, message, unfixable: rejection !== undefined };
}

/** The selector, or: Degraded InvalidSelector in status, a Warning Event, and the TerminalError. */
async function selectorOrStall(ctx: ReconcileContext, ms: MultiSecret): Promise<LabelMatcher> {
  try {
    return namespaceMatcher(ms);
  } catch (err) {
    if (!(err instanceof TerminalError)) throw err;
    ctx.recorder.event(ms, {
      type: "Warning",
      reason: INVALID_SELECTOR,
      action: "SelectNamespaces",
      note: err.message,
    });
    await writeInvalidSelectorStatus(ctx, ms, err.message);
    throw err;
  }
}

type ChildOutcome = "created" | "updated" | "unchanged" | "pending" | "conflict";

/** Brings one namespace's child in line with `want` (`have`: the cached child, if any). */
async function ensureChild(
  ctx: ReconcileContext,
  ms: MultiSecret,
  owners: Owners,
  want: KubeObject,
  have: KubeObject | undefined,
): Promise<ChildOutcome> {
  if (!have) {
    if (!(await owners.confirmed())) throw new OwnerNotConfirmed(ctx.key);
    const created = await createChild(ctx, ms, want);
    if (created) return "created";
    // It exists and the cache had not shown it (not labelled, or not yet seen): decide on the server's copy.
    have = await ctx.client.get(CoreTypes.Secret, want.metadata.name!, { namespace: want.metadata.namespace });
  }
  const ownership = await owners.of(have);
  if (ownership === "foreign") return "conflict";
  if (ownership === "orphan" && !(await owners.confirmed())) throw new OwnerNotConfirmed(ctx.key);
  if ((have.type ?? "Opaque") !== want.type) {
    await deleteChild(ctx, ms, have); // type is immutable: delete now, re-create on the delete event
    return "pending";
  }
  if (have.immutable === true && !deepEqual(have.data ?? {}, want.data ?? {})) {
    // kube refuses new data on an immutable Secret: replace it (uid precondition), immutable again.
    await deleteChild(ctx, ms, have);
    return await createChild(ctx, ms, { ...want, immutable: true }) ? "updated" : "pending";
  }
  if (ownership === "orphan" || !sameContent(have, want)) {
    try {
      await updateChild(ctx, ms, have, want, ownership === "orphan");
    } catch (err) {
      // The cache shows a child the API server no longer has (it lost its state, and the watch has not told us yet):
      // updating it again can never succeed; create it, as for a child the cache does not show.
      if (!isNotFound(err)) throw err;
      if (!(await owners.confirmed())) throw new OwnerNotConfirmed(ctx.key);
      return await createChild(ctx, ms, want) ? "created" : "pending";
    }
    return "updated";
  }
  return "unchanged";
}

/**
 * The owner `ctx.key` is not in the cache: its children are orphans if the API server agrees. An uncached GET
 * decides — a child is deleted only when it carries our owner-uid label and the owner is gone (404). An owner
 * that exists (the cache lags, or it was re-created with a new uid) keeps its children: its own reconcile adopts
 * or removes them once the cache shows it.
 */
async function sweepOrphans(ctx: ReconcileContext): Promise<Action> {
  const children = ctx.informers.get(CoreTypes.Secret, { labelSelector: CHILD_SELECTOR }).store.list()
    .filter((s) => ownerOfSecret(s)[0] === ctx.key && s.metadata.labels?.[OWNER_UID]);
  if (children.length === 0) return done();
  if (await liveOwnerUid(ctx, ctx.namespace!, ctx.name) !== undefined) return done();
  for (const child of children) {
    await deleteIgnoringNotFound(ctx.client, CoreTypes.Secret, child.metadata.name!, {
      namespace: child.metadata.namespace,
      preconditions: { uid: child.metadata.uid },
    }).catch((err) => {
      if (!isConflict(err)) throw err; // replaced meanwhile: not the orphan we saw
    });
    ctx.log.info("deleted orphaned Secret {namespace}/{name}: its MultiSecret {owner} is gone", {
      namespace: child.metadata.namespace,
      name: child.metadata.name,
      owner: ctx.key,
    });
  }
  return done();
}

/** Creates `want`; false when a Secret of that name already exists. */
async function createChild(ctx: ReconcileContext, ms: MultiSecret, want: KubeObject): Promise<boolean> {
  const ns = want.metadata.namespace!;
  try {
    await ctx.client.create(CoreTypes.Secret, want, { namespace: ns });
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
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
  return true;
}

async function updateChild(ctx: ReconcileContext, ms: MultiSecret, have: KubeObject, want: KubeObject, adopt: boolean) {
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
  const child = `${have.metadata.namespace}/${have.metadata.name}`;
  ctx.recorder.event(ms, {
    type: "Normal",
    reason: adopt ? "Adopted" : "Updated",
    action: "UpdateSecret",
    note: adopt ? `Adopted Secret ${child} (its previous owner is gone)` : `Updated Secret ${child}`,
  });
}

/** Deletes `child` (uid precondition); false when it was gone or replaced meanwhile. */
async function deleteChild(ctx: ReconcileContext, ms: MultiSecret, child: KubeObject): Promise<boolean> {
  try {
    const deleted = await deleteIgnoringNotFound(ctx.client, CoreTypes.Secret, child.metadata.name!, {
      namespace: child.metadata.namespace,
      preconditions: { uid: child.metadata.uid },
    });
    if (!deleted) return false; // gone already
  } catch (err) {
    if (isConflict(err)) return false; // replaced by someone else (uid precondition): not ours to delete
    throw err;
  }
  ctx.recorder.event(ms, {
    type: "Normal",
    reason: "Deleted",
    action: "DeleteSecret",
    note: `Deleted Secret ${child.metadata.namespace}/${child.metadata.name}`,
  });
  return true;
}

/** What one reconcile found, for status. */
interface Tally {
  wanted: number;
  created: number;
  changed: boolean;
  conflicts: string[];
  failures: Failure[];
}

const MAX_NAMED = 10;

async function writeStatus(ctx: ReconcileContext, ms: MultiSecret, s: Tally): Promise<void> {
  const now = new Date(ctx.clock.now()).toISOString();
  const generation = ms.metadata.generation;
  const failed = s.failures.map((f) => f.namespace).sort();
  const ready = s.created === s.wanted && s.conflicts.length === 0 && failed.length === 0;
  const message = `${s.created}/${s.wanted} Secrets in place` +
    (s.conflicts.length ? `; not ours in: ${s.conflicts.slice(0, MAX_NAMED).join(", ")}` : "") +
    (failed.length
      ? `; failed in ${s.failures.slice(0, MAX_NAMED).map((f) => `${f.namespace} (${f.message})`).join(", ")}`
      : "");
  const degradedReason = s.conflicts.length
    ? "SecretConflict"
    : s.failures.length && s.failures.every((f) => f.unfixable)
    ? CHILD_WRITE_REJECTED
    : s.failures.length
    ? "SecretWriteFailed"
    : "";
  let conditions: Condition[] = setCondition(ms.status?.conditions as Condition[] | undefined, {
    type: "Ready",
    status: ready ? "True" : "False",
    reason: ready ? "AllSecretsInPlace" : degradedReason || "Creating",
    message,
    observedGeneration: generation,
  }, now);
  conditions = setCondition(conditions, {
    type: "Degraded",
    status: degradedReason ? "True" : "False",
    reason: degradedReason || "NoConflict",
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
  if (failed.length) status.failedNamespaces = failed;
  else if (current.failedNamespaces !== undefined) status.failedNamespaces = null; // merge patch: remove
  const changedCounts = current.wanted !== s.wanted || current.created !== s.created;
  if (s.changed || changedCounts || !current.change_time) {
    status.change_time = now.replace(/\.\d{3}Z$/, "Z"); // RFC 3339 to the second, as the original's time.RFC3339
  }
  await patchStatusIfChanged(ctx.client, MultiSecretType, ms, status);
}

/** Status for a spec whose selector cannot be parsed: not Ready, Degraded InvalidSelector, counts untouched. */
async function writeInvalidSelectorStatus(ctx: ReconcileContext, ms: MultiSecret, message: string): Promise<void> {
  const now = new Date(ctx.clock.now()).toISOString();
  const generation = ms.metadata.generation;
  let conditions: Condition[] = setCondition(ms.status?.conditions as Condition[] | undefined, {
    type: "Ready",
    status: "False",
    reason: INVALID_SELECTOR,
    message,
    observedGeneration: generation,
  }, now);
  conditions = setCondition(conditions, {
    type: "Degraded",
    status: "True",
    reason: INVALID_SELECTOR,
    message,
    observedGeneration: generation,
  }, now);
  await patchStatusIfChanged(ctx.client, MultiSecretType, ms, { observedGeneration: generation, conditions });
}

/** The MultiSecret controller: For(MultiSecret), Watches(our Secrets → owner), Watches(Namespace → every MultiSecret). */
export function multiSecretController(deps: { informers: ReconcileContext["informers"] }): Controller<MultiSecret> {
  const allKeys = () => deps.informers.get<MultiSecret>(MultiSecretType).store.list().map(objectKey);
  return new Controller<MultiSecret>({ name: "multisecret", for: MultiSecretType, reconcile: reconcileMultiSecret })
    .watches(CoreTypes.Secret, ownerOfSecret, { labelSelector: CHILD_SELECTOR })
    .watches(CoreTypes.Namespace, () => allKeys());
}
