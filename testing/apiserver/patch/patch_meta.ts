/**
 * The list and map merge metadata (`patchStrategy` / `patchMergeKey` Go struct tags of k8s.io/api) that strategic
 * merge patch and server-side apply need, for the built-in kinds the fake server serves, plus the same
 * information read from a CRD's structural schema (`x-kubernetes-list-type: map`, `x-kubernetes-list-map-keys`).
 * Fields not listed are atomic lists / plain maps, exactly as on a real server.
 * @module
 */

import type { OpenApiSchema, ResourceDef } from "../resource_def.ts";

/** Merge metadata for one field. */
export interface PatchMeta {
  /** List elements merge by these keys (SMP uses the first; SSA uses all). */
  mergeKeys?: string[];
  /** `merge` for keyed or set-like lists; `retainKeys` allows the `$retainKeys` directive on a map. */
  strategy?: Array<"merge" | "retainKeys">;
  /** A list of primitives merged as a set (finalizers): SSA tracks `v:` entries. */
  set?: boolean;
  /** Explicitly atomic (CRD `x-kubernetes-list-type: atomic`, `x-kubernetes-map-type: atomic`). */
  atomic?: boolean;
  /** Fields of a map (or of each list element). */
  fields?: Record<string, PatchMeta>;
  /** Defaults of merge-key fields (`protocol: TCP`): the server defaults them before keys are compared. */
  keyDefaults?: Record<string, unknown>;
  /** Metadata of each value of a string-keyed map with free keys (additionalProperties). */
  values?: PatchMeta;
  /** Elements of a keyed list are atomic structs (`+structType=atomic`, OwnerReference): SSA owns each whole. */
  itemAtomic?: boolean;
}

const merge = (key: string, fields?: Record<string, PatchMeta>): PatchMeta => ({
  mergeKeys: [key],
  strategy: ["merge"],
  fields,
});
const primitiveSet: PatchMeta = { strategy: ["merge"], set: true };
const conditions = merge("type");

const CONTAINER: Record<string, PatchMeta> = {
  ports: { mergeKeys: ["containerPort", "protocol"], strategy: ["merge"], keyDefaults: { protocol: "TCP" } },
  env: merge("name"),
  volumeMounts: merge("mountPath"),
  volumeDevices: merge("devicePath"),
};

const POD_SPEC: PatchMeta = {
  fields: {
    containers: merge("name", CONTAINER),
    initContainers: merge("name", CONTAINER),
    ephemeralContainers: merge("name", CONTAINER),
    volumes: { mergeKeys: ["name"], strategy: ["merge", "retainKeys"] },
    imagePullSecrets: merge("name"),
    hostAliases: merge("ip"),
    topologySpreadConstraints: { mergeKeys: ["topologyKey", "whenUnsatisfiable"], strategy: ["merge"] },
    schedulingGates: merge("name"),
    resourceClaims: { mergeKeys: ["name"], strategy: ["merge", "retainKeys"] },
    // `+mapType=atomic`: SSA owns the map as one field (strategic merge still merges it).
    nodeSelector: { atomic: true },
  },
};

const OBJECT_META: PatchMeta = {
  fields: {
    finalizers: primitiveSet,
    ownerReferences: { ...merge("uid"), itemAtomic: true },
  },
};

const POD_TEMPLATE: PatchMeta = { fields: { metadata: OBJECT_META, spec: POD_SPEC } };
const WORKLOAD_STATUS: PatchMeta = { fields: { conditions } };
/** metav1.LabelSelector is `+structType=atomic`: SSA owns it as one field. */
const SELECTOR: PatchMeta = { atomic: true };
const ATOMIC: PatchMeta = { atomic: true };

function kind(spec: Record<string, PatchMeta>): PatchMeta {
  return { fields: { metadata: OBJECT_META, ...spec } };
}

/** Built-in kinds by `group/Kind` (core group: `/Kind`). */
const BUILTIN: Record<string, PatchMeta> = {
  "/Pod": kind({
    spec: POD_SPEC,
    status: { fields: { conditions, podIPs: merge("ip"), hostIPs: merge("ip") } },
  }),
  "/PodTemplate": kind({ template: POD_TEMPLATE }),
  // Its selector is a `+mapType=atomic` map.
  "/ReplicationController": kind({
    spec: { fields: { template: POD_TEMPLATE, selector: { atomic: true } } },
    status: WORKLOAD_STATUS,
  }),
  "/Service": kind({
    spec: {
      fields: {
        ports: { mergeKeys: ["port", "protocol"], strategy: ["merge"], keyDefaults: { protocol: "TCP" } },
        selector: { atomic: true },
      },
    },
    status: { fields: { conditions } },
  }),
  "/ServiceAccount": kind({ secrets: merge("name"), imagePullSecrets: merge("name") }),
  "/Node": kind({
    spec: { fields: { podCIDRs: primitiveSet } },
    status: { fields: { conditions, addresses: merge("type") } },
  }),
  "/Namespace": kind({ status: { fields: { conditions } } }),
  "/PersistentVolumeClaim": kind({ status: { fields: { conditions } } }),
  "apps/Deployment": kind({
    spec: { fields: { template: POD_TEMPLATE, selector: SELECTOR, strategy: { strategy: ["retainKeys"] } } },
    status: WORKLOAD_STATUS,
  }),
  "apps/ReplicaSet": kind({
    spec: { fields: { template: POD_TEMPLATE, selector: SELECTOR } },
    status: WORKLOAD_STATUS,
  }),
  "apps/DaemonSet": kind({
    spec: { fields: { template: POD_TEMPLATE, selector: SELECTOR, updateStrategy: { strategy: ["retainKeys"] } } },
    status: WORKLOAD_STATUS,
  }),
  "apps/StatefulSet": kind({
    spec: { fields: { template: POD_TEMPLATE, selector: SELECTOR } },
    status: WORKLOAD_STATUS,
  }),
  "batch/Job": kind({ spec: { fields: { template: POD_TEMPLATE, selector: SELECTOR } }, status: WORKLOAD_STATUS }),
  "batch/CronJob": kind({
    spec: { fields: { jobTemplate: { fields: { spec: { fields: { template: POD_TEMPLATE } } } } } },
  }),
  "apiextensions.k8s.io/CustomResourceDefinition": kind({ status: { fields: { conditions } } }),
  // rbacv1.RoleRef and corev1.ObjectReference are `+structType=atomic`; webhooks are `+listType=map` by name.
  "rbac.authorization.k8s.io/RoleBinding": kind({ roleRef: { atomic: true } }),
  "rbac.authorization.k8s.io/ClusterRoleBinding": kind({ roleRef: { atomic: true } }),
  "/Event": kind({ involvedObject: { atomic: true }, related: { atomic: true } }),
  "events.k8s.io/Event": kind({ regarding: { atomic: true }, related: { atomic: true } }),
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": kind({ webhooks: merge("name") }),
  // MatchResources and ServiceBackendPort are `+structType=atomic`; a ControllerRevision's data is raw JSON.
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy": kind({ spec: { fields: { matchConstraints: ATOMIC } } }),
  "admissionregistration.k8s.io/MutatingAdmissionPolicy": kind({ spec: { fields: { matchConstraints: ATOMIC } } }),
  "apps/ControllerRevision": kind({ data: ATOMIC }),
  // `+listType=set` lists of strings; a PDB's selector is a LabelSelector (`+structType=atomic`).
  "storage.k8s.io/CSIDriver": kind({ spec: { fields: { volumeLifecycleModes: primitiveSet } } }),
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": kind({
    spec: { fields: { validationActions: primitiveSet } },
  }),
  "policy/PodDisruptionBudget": kind({ spec: { fields: { selector: SELECTOR } } }),
  "networking.k8s.io/Ingress": kind({
    spec: { fields: { defaultBackend: { fields: { service: { fields: { port: ATOMIC } } } } } },
  }),
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": kind({ webhooks: merge("name") }),
};

/** Metadata for any other built-in kind: only ObjectMeta's lists merge. */
const DEFAULT_BUILTIN: PatchMeta = kind({});

/** Reads list/map metadata from a structural schema (CRDs). */
export function patchMetaFromSchema(schema: OpenApiSchema | undefined): PatchMeta {
  if (!schema || typeof schema !== "object") return {};
  const meta: PatchMeta = {};
  if (schema.type === "array") {
    const listType = schema["x-kubernetes-list-type"];
    const item = patchMetaFromSchema(schema.items);
    if (listType === "map") {
      meta.mergeKeys = schema["x-kubernetes-list-map-keys"] ?? [];
      meta.strategy = ["merge"];
      meta.fields = item.fields;
    } else if (listType === "set") {
      meta.strategy = ["merge"];
      meta.set = true;
    } else {
      meta.atomic = true;
    }
    return meta;
  }
  if (schema["x-kubernetes-map-type"] === "atomic") meta.atomic = true;
  if (schema.properties) {
    meta.fields = {};
    for (const [name, sub] of Object.entries(schema.properties as Record<string, OpenApiSchema>)) {
      meta.fields[name] = patchMetaFromSchema(sub);
    }
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    meta.values = patchMetaFromSchema(schema.additionalProperties);
  }
  return meta;
}

/**
 * The root merge metadata of a resource: from the built-in table, or from the CRD schema (with ObjectMeta's
 * finalizers/ownerReferences added, as the real server's schema has them).
 *
 * @example
 * ```ts
 * import { patchMetaFor } from "./patch_meta.ts";
 * const meta = patchMetaFor({ group: "apps", kind: "Deployment", custom: false });
 * // meta.fields.spec.fields.template.fields.spec.fields.containers.mergeKeys is ["name"]
 * ```
 */
export function patchMetaFor(def: Pick<ResourceDef, "group" | "kind" | "custom" | "schema">): PatchMeta {
  if (!def.custom) return BUILTIN[`${def.group}/${def.kind}`] ?? DEFAULT_BUILTIN;
  const fromSchema = patchMetaFromSchema(def.schema);
  return { ...fromSchema, fields: { ...fromSchema.fields, metadata: OBJECT_META } };
}

/** Metadata of a child field, or empty. */
export function childMeta(meta: PatchMeta | undefined, field: string): PatchMeta {
  return meta?.fields?.[field] ?? meta?.values ?? {};
}
