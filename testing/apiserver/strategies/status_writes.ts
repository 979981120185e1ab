/**
 * What a write through the `status` subresource takes from its body (kube: each status strategy's PrepareForUpdate):
 * the status, and the labels and annotations — except for the kinds whose status strategy keeps the stored ones
 * (`metav1.ResetObjectMetaForStatus`, or a Deployment's labels), measured against kube-apiserver v1.37.2 by
 * tests/differential/. Everything else is the stored object's.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";

/** Group-resources whose status writes keep the stored labels and annotations. */
const KEEPS_METADATA: ReadonlySet<string> = new Set([
  "apiregistration.k8s.io/apiservices",
  "networking.k8s.io/servicecidrs",
  "storage.k8s.io/csinodes",
  "storage.k8s.io/volumeattachments",
  "admissionregistration.k8s.io/validatingadmissionpolicies",
  "resource.k8s.io/devicetaintrules",
  "resource.k8s.io/resourceclaims",
  "flowcontrol.apiserver.k8s.io/flowschemas",
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
  "storagemigration.k8s.io/storageversionmigrations",
]);

/** Group-resources whose status writes keep the stored labels only (apps Deployments). */
const KEEPS_LABELS: ReadonlySet<string> = new Set(["apps/deployments"]);

/**
 * The object a status write of `groupResource` (`group/plural`) stores: `old` with the body's status and, unless the
 * kind keeps them, its labels and annotations; the body's managedFields when `keepEntries` is false (an apply through
 * /status brings the applier's entry).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statusWrite } from "./status_writes.ts";
 * const old = { metadata: { name: "d", labels: { a: "1" } }, spec: { x: 1 }, status: {} };
 * const body = { metadata: { name: "d", labels: { b: "2" } }, spec: { x: 2 }, status: { ready: 1 } };
 * assert.deepEqual(statusWrite("apps/deployments", old, body, true).metadata.labels, { a: "1" });
 * assert.deepEqual(statusWrite("apps/replicasets", old, body, true).metadata.labels, { b: "2" });
 * ```
 */
export function statusWrite(
  groupResource: string,
  old: KubeObject,
  body: KubeObject,
  keepEntries: boolean,
): KubeObject {
  const next = structuredClone(old);
  if (body.status === undefined) delete next.status;
  else next.status = body.status;
  const keptMetadata = KEEPS_METADATA.has(groupResource);
  if (body.metadata.labels !== undefined && !keptMetadata && !KEEPS_LABELS.has(groupResource)) {
    next.metadata.labels = body.metadata.labels;
  }
  if (body.metadata.annotations !== undefined && !keptMetadata) next.metadata.annotations = body.metadata.annotations;
  // Other writes of a subresource keep the stored entries whatever the body sends (kube's field manager reads a
  // subresource's from the live object).
  if (body.metadata.managedFields !== undefined && !keepEntries) {
    next.metadata.managedFields = body.metadata.managedFields;
  }
  return next;
}
