/**
 * The Kubernetes object shapes every part of kubeop shares (apimachinery's ObjectMeta, lists, watch events) and
 * {@link ResourceType}, the group/version/resource/kind tuple that addresses a collection.
 * @module
 */

/** metav1.OwnerReference. */
export interface OwnerReference {
  /** apiVersion of the owner. */
  apiVersion: string;
  /** Kind of the owner. */
  kind: string;
  /** Name of the owner (same namespace, or cluster-scoped). */
  name: string;
  /** UID of the owner; a recreated owner with the same name is a different owner. */
  uid: string;
  /** True on the one managing controller's reference. */
  controller?: boolean;
  /** Foreground deletion of the owner waits for this dependent. */
  blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta (the fields kubeop reads or writes). */
export interface ObjectMeta {
  /** Unique within the namespace (and kind). */
  name?: string;
  /** Prefix the server completes with a random suffix when `name` is empty. */
  generateName?: string;
  /** Namespace of a namespaced object. */
  namespace?: string;
  /** Server-assigned unique ID. */
  uid?: string;
  /** Opaque version for optimistic concurrency and watches. */
  resourceVersion?: string;
  /** Incremented by the server on every spec change. */
  generation?: number;
  /** RFC 3339 creation time. */
  creationTimestamp?: string;
  /** RFC 3339 time the deletion was requested; set while finalizers hold the object. */
  deletionTimestamp?: string;
  /** Grace period of a pending deletion. */
  deletionGracePeriodSeconds?: number;
  /** Selectable key/value pairs. */
  labels?: Record<string, string>;
  /** Non-selectable key/value metadata. */
  annotations?: Record<string, string>;
  /** Owners (garbage collection and controller ownership). */
  ownerReferences?: OwnerReference[];
  /** Keys that must be removed before the object is deleted. */
  finalizers?: string[];
  /** Server-side apply bookkeeping (dropped from cached objects). */
  managedFields?: unknown[];
}

/** Any Kubernetes object. */
export interface KubeObject {
  /** `group/version` of the object's schema. */
  apiVersion?: string;
  /** Kind of the object. */
  kind?: string;
  /** Standard object metadata. */
  metadata: ObjectMeta;
  /** Kind-specific fields (spec, status, data, …): `unknown` until narrowed — see builtin_types.ts, unstructured.ts. */
  [field: string]: unknown;
}

/** metav1.ListMeta. */
export interface ListMeta {
  /** Version of the list, to start a watch from. */
  resourceVersion?: string;
  /** Token for the next page of a chunked list. */
  continue?: string;
  /** Approximate number of items after this page. */
  remainingItemCount?: number;
  /** KEP-5866: set when the list is the slice a `shardSelector` asked for; echoes the selector as the server parsed it. */
  shardInfo?: { selector?: string };
}

/** A list response (`FooList`). */
export interface KubeList<T extends KubeObject = KubeObject> {
  /** `group/version` of the list. */
  apiVersion: string;
  /** `<Kind>List`. */
  kind: string;
  /** List metadata. */
  metadata: ListMeta;
  /** The objects. */
  items: T[];
}

/** The event types of the watch protocol. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** One frame of a watch stream. */
export interface WatchEvent<T = KubeObject> {
  /** ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
  type: WatchEventType;
  /** The object (a Status for ERROR, metadata only for BOOKMARK). */
  object: T;
}

/** metav1.Condition. */
export interface Condition {
  /** CamelCase condition type, e.g. Ready. */
  type: string;
  /** True, False or Unknown. */
  status: "True" | "False" | "Unknown";
  /** CamelCase reason for the last transition. */
  reason: string;
  /** Human-readable details. */
  message: string;
  /** RFC 3339 time the status last changed. */
  lastTransitionTime: string;
  /** The metadata.generation the condition was computed from. */
  observedGeneration?: number;
}

/** Addresses one kind of resource: `GET /apis/{group}/{version}/namespaces/{ns}/{plural}`. */
export interface ResourceType {
  /** "" for the core group. */
  group: string;
  /** API version, e.g. v1. */
  version: string;
  /** Lower-case plural, as in the URL path. */
  plural: string;
  /** Kind, e.g. ConfigMap. */
  kind: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
}

/** `group/version`, or just `version` for the core group. */
export function apiVersionOf(rt: Pick<ResourceType, "group" | "version">): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

/** Cache and queue key: `namespace/name` for namespaced objects, `name` otherwise (client-go's MetaNamespaceKeyFunc). */
export function objectKey(obj: { metadata: ObjectMeta }): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : `${name}`;
}

/** Splits a key made by {@link objectKey}. */
export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf("/");
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Well-known built-in resource types. */
export const CoreTypes = {
  Namespace: { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false },
  Pod: { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true },
  Secret: { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true },
  ConfigMap: { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true },
  Service: { group: "", version: "v1", plural: "services", kind: "Service", namespaced: true },
  Node: { group: "", version: "v1", plural: "nodes", kind: "Node", namespaced: false },
  Event: { group: "events.k8s.io", version: "v1", plural: "events", kind: "Event", namespaced: true },
  CoreEvent: { group: "", version: "v1", plural: "events", kind: "Event", namespaced: true },
  Lease: { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true },
  CustomResourceDefinition: {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
  APIService: {
    group: "apiregistration.k8s.io",
    version: "v1",
    plural: "apiservices",
    kind: "APIService",
    namespaced: false,
  },
  SubjectAccessReview: {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "subjectaccessreviews",
    kind: "SubjectAccessReview",
    namespaced: false,
  },
  TokenReview: {
    group: "authentication.k8s.io",
    version: "v1",
    plural: "tokenreviews",
    kind: "TokenReview",
    namespaced: false,
  },
} as const satisfies Record<string, ResourceType>;
