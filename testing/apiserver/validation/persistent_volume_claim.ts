/**
 * PersistentVolumeClaim spec validation as kube-apiserver v1.37 applies it (ValidatePersistentVolumeClaimSpec): at
 * least one known access mode (ReadWriteOncePod alone), a valid selector, a positive storage request, a DNS-subdomain
 * storage class name and a known volume mode, in kube's order.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { dns1123SubdomainErrors } from "../../../runtime/apimachinery/names.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { formatQuantity, quantity } from "../resource_quantity.ts";
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from "./field_errors.ts";
import { validateLabelSelector } from "./label_selector.ts";

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
const VOLUME_MODES = ["Block", "Filesystem"];

/**
 * Causes for a claim's spec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validatePvcSpec } from "./persistent_volume_claim.ts";
 * const pvc = { metadata: {}, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "0" } } } };
 * assert.equal(validatePvcSpec(pvc)[0].message, 'Invalid value: "0": must be greater than zero');
 * ```
 */
export function validatePvcSpec(pvc: KubeObject): StatusCause[] {
  const spec = pvc.spec && typeof pvc.spec === "object" ? pvc.spec : {};
  const causes: StatusCause[] = [];
  const modes: unknown[] = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) causes.push(fieldRequired("spec.accessModes", "at least 1 access mode is required"));
  causes.push(...validateLabelSelector(spec.selector, "spec.selector"));
  let oncePod = false;
  let other = false;
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(String(mode))) causes.push(fieldNotSupported("spec.accessModes", mode, ACCESS_MODES));
    if (mode === "ReadWriteOncePod") oncePod = true;
    else if (ACCESS_MODES.includes(String(mode))) other = true;
  }
  if (oncePod && other) {
    causes.push(fieldForbidden("spec.accessModes", "may not use ReadWriteOncePod with other access modes"));
  }
  const storage = spec.resources?.requests?.storage;
  const q = storage === undefined ? undefined : quantity(storage);
  if (storage === undefined) causes.push(fieldRequired("spec.resources[storage]"));
  else if (q && q.num <= 0n) {
    causes.push(fieldInvalid("spec.resources[storage]", formatQuantity(q), "must be greater than zero"));
  }
  const className = spec.storageClassName;
  if (typeof className === "string" && className) {
    for (const msg of dns1123SubdomainErrors(className)) {
      causes.push(fieldInvalid("spec.storageClassName", className, msg));
    }
  }
  if (spec.volumeMode != null && !VOLUME_MODES.includes(spec.volumeMode)) {
    causes.push(fieldNotSupported("spec.volumeMode", spec.volumeMode, VOLUME_MODES));
  }
  return causes;
}
