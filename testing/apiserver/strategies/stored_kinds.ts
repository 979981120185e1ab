/**
 * Built-in kinds kube-apiserver v1.37 only stores (their controllers do not run here; HorizontalPodAutoscalers are in
 * hpa.ts), with the defaults its SetDefaults_* functions fill in on every write (`default`) and the fields Go
 * serialises although nobody set them (`encode`, owned by no manager: non-omitempty numbers, booleans and structs of
 * the status, empty lists as `null`):
 *
 * - policy/v1 PodDisruptionBudget: status `currentHealthy`, `desiredHealthy`, `disruptionsAllowed`, `expectedPods` 0;
 *   any path segment is a valid name (kube has no PDB name rule); validated as validation/pod_disruption_budget.ts says;
 * - networking.k8s.io/v1 Ingress: status `loadBalancer: {}`, validated as validation/ingress.ts says;
 *   NetworkPolicy: policyTypes `Ingress` (and `Egress` when egress rules are given) and `podSelector: {}` when none is
 *   given, validated as validation/network_policy.ts says;
 * - storage.k8s.io/v1 CSIDriver: attachRequired true, podInfoOnMount, requiresRepublish, storageCapacity, seLinuxMount
 *   and preventPodSchedulingIfMissing false, fsGroupPolicy ReadWriteOnceWithFSType, volumeLifecycleModes Persistent;
 *   CSINode: an empty `drivers` list is stored as `null`; VolumeAttachment: status `attached: false`;
 * - flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration: a Limited level's lendablePercent 0;
 * - networking.k8s.io/v1 IPAddress: an empty `parentRef.group` (omitempty) is not kept; its name must be an IP
 *   address, and generateName is used as the name as it is;
 * - storage.k8s.io/v1 StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate; the provisioner a qualified
 *   name, the policy and mode known ones;
 * - discovery.k8s.io/v1 EndpointSlice: each port's name "" and protocol TCP, each endpoint's `conditions: {}`; a
 *   change of its labels bumps the generation too.
 *
 * A DELETE of a CSIDriver, CSINode, VolumeAttachment or StorageClass answers with the object (kube's stores set
 * ReturnDeletedObject), not a Status. A write of a CSINode's, VolumeAttachment's or ServiceCIDR's status keeps the
 * stored labels and annotations (metav1.ResetObjectMetaForStatus).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { qualifiedNameErrors } from "../../../runtime/apimachinery/names.ts";
import { jsonEqual, specChanged, validateIpAddressName, validatePathSegmentName } from "../object_rules.ts";
import type { ResourceStrategy } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldInvalid, fieldNotSupported } from "../validation/field_errors.ts";
import { validatePdbSpec, validatePdbStatus } from "../validation/pod_disruption_budget.ts";
import { validateNetworkPolicy } from "../validation/network_policy.ts";
import { validateIngress } from "../validation/ingress.ts";
import { goJson, type GoSlot } from "../go_struct_json.ts";

/** `obj[key]` as an object, set to `{}` when absent or not an object. */
function objectAt(obj: KubeObject, key: string): KubeObject {
  if (!obj[key] || typeof obj[key] !== "object" || Array.isArray(obj[key])) obj[key] = {};
  return obj[key];
}

/** policy/v1 poddisruptionbudgets. */
export const POD_DISRUPTION_BUDGETS: ResourceStrategy = {
  // kube validates no PDB name rule of its own: only the generic path-segment check (rest.BeforeCreate).
  validateName: validatePathSegmentName,
  validate: (pdb) => validatePdbSpec(pdb),
  validateUpdate: (next, _old, ctx) => ctx.subresource === "status" ? validatePdbStatus(next) : validatePdbSpec(next),
  encode(pdb: KubeObject): void {
    const status = objectAt(pdb, "status");
    for (const field of ["currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods"]) {
      status[field] ??= 0;
    }
  },
};

const INGRESS_SPEC: GoSlot = { type: "api.networking.v1.IngressSpec", map: false, repeated: false };

/** networking.k8s.io/v1 ingresses. */
export const INGRESSES: ResourceStrategy = {
  validate: (ingress) => validateIngress(ingress),
  validateUpdate: (next, _old, ctx) => ctx.subresource === "status" ? [] : validateIngress(next),
  encode(ingress: KubeObject): void {
    objectAt(objectAt(ingress, "status"), "loadBalancer");
    // Spec in Go's field order (ingressClassName, defaultBackend, tls, rules), as kube stores and serves it.
    ingress.spec = JSON.parse(goJson(objectAt(ingress, "spec"), INGRESS_SPEC));
  },
};

/** networking.k8s.io/v1 networkpolicies. */
export const NETWORK_POLICIES: ResourceStrategy = {
  // spec.podSelector is a struct: answered as {} when not given.
  encode(policy: KubeObject): void {
    objectAt(objectAt(policy, "spec"), "podSelector");
  },
  default(policy: KubeObject): void {
    const spec = objectAt(policy, "spec");
    if (Array.isArray(spec.policyTypes) && spec.policyTypes.length) return;
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length ? ["Ingress", "Egress"] : ["Ingress"];
  },
  validate: (policy) => validateNetworkPolicy(policy),
  validateUpdate: (next) => validateNetworkPolicy(next),
};

/** storage.k8s.io/v1 csidrivers. */
export const CSI_DRIVERS: ResourceStrategy = {
  returnDeletedObject: true,
  default(driver: KubeObject): void {
    const spec = objectAt(driver, "spec");
    spec.attachRequired ??= true;
    spec.podInfoOnMount ??= false;
    spec.requiresRepublish ??= false;
    spec.storageCapacity ??= false;
    spec.seLinuxMount ??= false;
    spec.preventPodSchedulingIfMissing ??= false;
    spec.fsGroupPolicy ??= "ReadWriteOnceWithFSType";
    if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) {
      spec.volumeLifecycleModes = ["Persistent"];
    }
  },
};

/** storage.k8s.io/v1 csinodes. */
export const CSI_NODES: ResourceStrategy = {
  returnDeletedObject: true,
  encode(node: KubeObject): void {
    const spec = objectAt(node, "spec");
    if (!Array.isArray(spec.drivers) || spec.drivers.length === 0) spec.drivers = null;
  },
};

/** storage.k8s.io/v1 volumeattachments. */
export const VOLUME_ATTACHMENTS: ResourceStrategy = {
  returnDeletedObject: true,
  encode(attachment: KubeObject): void {
    objectAt(attachment, "status").attached ??= false;
  },
};

/** flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations. */
export const PRIORITY_LEVEL_CONFIGURATIONS: ResourceStrategy = {
  default(level: KubeObject): void {
    const limited = level.spec?.limited;
    if (limited && typeof limited === "object") limited.lendablePercent ??= 0;
  },
};

/** networking.k8s.io/v1 ipaddresses. */
export const IP_ADDRESSES: ResourceStrategy = {
  validateName: validateIpAddressName,
  // kube's IPAddress strategy generates no name: generateName is taken as it is (and must be an address).
  generateName: (prefix) => prefix,
  default(address: KubeObject): void {
    const ref = address.spec?.parentRef;
    if (ref && typeof ref === "object" && ref.group === "") delete ref.group;
  },
};

/** storage.k8s.io/v1 storageclasses. */
export const STORAGE_CLASSES: ResourceStrategy = {
  returnDeletedObject: true,
  default(storageClass: KubeObject): void {
    storageClass.reclaimPolicy ??= "Delete";
    storageClass.volumeBindingMode ??= "Immediate";
  },
  validate: validateStorageClass,
  validateUpdate: (next) => validateStorageClass(next),
};

/** ValidateStorageClass: the provisioner a qualified name (lower-cased), the reclaim policy and binding mode known. */
function validateStorageClass(storageClass: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const provisioner = typeof storageClass.provisioner === "string" ? storageClass.provisioner.toLowerCase() : "";
  for (const msg of provisioner ? qualifiedNameErrors(provisioner) : []) {
    causes.push(fieldInvalid("provisioner", provisioner, msg));
  }
  const policy = storageClass.reclaimPolicy;
  if (typeof policy === "string" && policy && !["Delete", "Retain"].includes(policy)) {
    causes.push(fieldNotSupported("reclaimPolicy", policy, ["Delete", "Retain"]));
  }
  const mode = storageClass.volumeBindingMode;
  if (mode != null && !["Immediate", "WaitForFirstConsumer"].includes(mode)) {
    causes.push(fieldNotSupported("volumeBindingMode", mode, ["Immediate", "WaitForFirstConsumer"]));
  }
  return causes;
}

/** discovery.k8s.io/v1 endpointslices: a change of anything but metadata, or of the labels, bumps the generation. */
export const ENDPOINT_SLICES: ResourceStrategy = {
  generationChanged: (next, old) =>
    specChanged(old, next) || !jsonEqual(next.metadata.labels ?? {}, old.metadata.labels ?? {}),
  default(slice: KubeObject): void {
    for (const port of Array.isArray(slice.ports) ? slice.ports : []) {
      if (!port || typeof port !== "object") continue;
      port.name ??= "";
      port.protocol ??= "TCP";
    }
  },
  encode(slice: KubeObject): void {
    for (const endpoint of Array.isArray(slice.endpoints) ? slice.endpoints : []) {
      if (endpoint && typeof endpoint === "object") objectAt(endpoint, "conditions");
    }
  },
};
