/**
 * kube-apiserver's API Priority and Fairness configuration consumer, as far as the API shows it: every FlowSchema's
 * status carries a `Dangling` condition saying whether the PriorityLevelConfiguration it names exists — False
 * (`Found`, "... and it exists") or True (`NotFound`, "... but there is no such object") — written through the status
 * subresource by server-side apply as `api-priority-and-fairness-config-consumer-v1` (force), whenever a FlowSchema
 * or a priority level changes and the condition no longer says what is so. The Table's MissingPL column reads it.
 * @module
 */
import type { FakeStore } from "./commit_path.ts";
import { rfc3339 } from "./object_rules.ts";
import { patchObject } from "./patch_object.ts";
import type { StoredEvent } from "./object_storage.ts";
import { storageKeyOf } from "./registry.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** The field manager of kube's APF configuration consumer. */
export const APF_CONSUMER = "api-priority-and-fairness-config-consumer-v1";

const FLOW_SCHEMAS = { group: "flowcontrol.apiserver.k8s.io", version: "v1", plural: "flowschemas" };
const LEVELS = { group: "flowcontrol.apiserver.k8s.io", version: "v1", plural: "prioritylevelconfigurations" };

/** The Dangling condition kube's consumer wants for a FlowSchema naming `level` (without lastTransitionTime). */
export function danglingCondition(level: string, exists: boolean): Record<string, string> {
  const named = `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)}`;
  return exists
    ? { type: "Dangling", status: "False", reason: "Found", message: `${named} and it exists` }
    : { type: "Dangling", status: "True", reason: "NotFound", message: `${named} but there is no such object` };
}

/** Keeps every FlowSchema's Dangling condition current; returns the unsubscribe function. */
export function startFlowSchemaStatus(store: FakeStore): () => void {
  const fsDef = store.def(FLOW_SCHEMAS);
  const keys = new Set([storageKeyOf(fsDef), storageKeyOf(store.def(LEVELS))]);
  let queued = false;
  const sync = () => {
    queued = false;
    for (const fs of store.objects.list(storageKeyOf(fsDef))) {
      try {
        reconcile(store, fs);
      } catch {
        // Raced with a write or the FlowSchema's deletion: its commit queues another pass.
      }
    }
  };
  sync();
  return store.objects.onCommit((ev: StoredEvent) => {
    if (!keys.has(ev.storageKey) || queued) return;
    queued = true;
    queueMicrotask(sync);
  });
}

function reconcile(store: FakeStore, fs: KubeObject): void {
  if (fs.metadata.deletionTimestamp) return;
  const level = String(fs.spec?.priorityLevelConfiguration?.name ?? "");
  const exists = store.peek(store.def(LEVELS), undefined, level) !== undefined;
  const want = danglingCondition(level, exists);
  const have = (fs.status?.conditions ?? []).find((c: KubeObject) => c?.type === "Dangling");
  if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) return;
  const { type, status, reason, message } = want;
  const condition = { type, status, lastTransitionTime: rfc3339(store.clock.now()), reason, message };
  const apply = {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1",
    kind: "FlowSchema",
    metadata: { name: fs.metadata.name },
    status: { conditions: [condition] },
  };
  patchObject(store, store.def(FLOW_SCHEMAS), fs.metadata.name!, apply, {
    type: "apply",
    subresource: "status",
    fieldManager: APF_CONSUMER,
    force: true,
  });
}
