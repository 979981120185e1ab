/**
 * The Kubernetes object shapes every part of kubeop shares (apimachinery's ObjectMeta, lists, watch events) and
 * {@link ResourceType}, the group/version/resource/kind tuple that addresses a collection.
 * @module
 */

/** metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta (the fields kubeop reads or writes). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/** Any Kubernetes object. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** metav1.ListMeta. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** A list response (`FooList`). */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** The event types of the watch protocol. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** One frame of a watch stream. */
export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** Addresses one kind of resource: `GET /apis/{group}/{version}/namespaces/{ns}/{plural}`. */
export interface ResourceType {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Lower-case plural, as in the URL path. */
  plural: string;
  kind: string;
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
