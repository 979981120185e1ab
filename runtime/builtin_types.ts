/**
 * The built-in kinds kubeop reads field by field, typed from @kubernetes/client-node's generated models (type-only
 * imports: no client-node code is loaded) as they travel as JSON — timestamps are RFC 3339 strings, not the models'
 * `Date` — with kubeop's own {@link ObjectMeta}. Anything else is a {@link KubeObject}, whose other fields are
 * `unknown` until narrowed.
 * @module
 */

import type {
  EventsV1Event,
  V1APIService,
  V1ConfigMap,
  V1Container,
  V1ContainerStatus,
  V1CustomResourceDefinitionSpec,
  V1CustomResourceDefinitionStatus,
  V1CustomResourceDefinitionVersion,
  V1Lease,
  V1Namespace,
  V1Node,
  V1Pod,
  V1Secret,
  V1Service,
  V1SubjectAccessReview,
  V1TokenReview,
} from "@kubernetes/client-node";
import type { KubeObject, ObjectMeta } from "./types.ts";

/** A client-node model as JSON carries it: `Date` fields become strings, recursively. */
export type Wire<T> = T extends Date ? string
  : T extends readonly (infer U)[] ? Wire<U>[]
  : T extends object ? { [K in keyof T]: Wire<T[K]> }
  : T;

/** A built-in object: client-node's model `M` on the wire, with kubeop's {@link ObjectMeta}. */
export type Typed<M> = KubeObject & Omit<Wire<M>, "apiVersion" | "kind" | "metadata"> & { metadata: ObjectMeta };

/** core/v1 Pod. */
export type Pod = Typed<V1Pod>;
/** A container of a Pod's spec. */
export type Container = Wire<V1Container>;
/** A container's status in a Pod's status. */
export type ContainerStatus = Wire<V1ContainerStatus>;
/** core/v1 Secret. */
export type Secret = Typed<V1Secret>;
/** core/v1 ConfigMap. */
export type ConfigMap = Typed<V1ConfigMap>;
/** core/v1 Namespace. */
export type Namespace = Typed<V1Namespace>;
/** core/v1 Node. */
export type Node = Typed<V1Node>;
/** core/v1 Service. */
export type Service = Typed<V1Service>;
/** coordination.k8s.io/v1 Lease. */
export type Lease = Typed<V1Lease>;
/** events.k8s.io/v1 Event. */
export type Event = Typed<EventsV1Event>;
/** One version of a CRD; its schema stays untyped (client-node renames the `$ref` and `x-kubernetes-*` keys). */
export type CustomResourceDefinitionVersion = Omit<Wire<V1CustomResourceDefinitionVersion>, "schema"> & {
  schema?: { openAPIV3Schema?: Record<string, unknown> };
};
/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
export type CustomResourceDefinition = KubeObject & {
  metadata: ObjectMeta;
  spec: Omit<Wire<V1CustomResourceDefinitionSpec>, "versions"> & { versions: CustomResourceDefinitionVersion[] };
  status?: Wire<V1CustomResourceDefinitionStatus>;
};
/** apiregistration.k8s.io/v1 APIService. */
export type APIService = Typed<V1APIService>;
/** authentication.k8s.io/v1 TokenReview. */
export type TokenReview = Typed<V1TokenReview>;
/** authorization.k8s.io/v1 SubjectAccessReview. */
export type SubjectAccessReview = Typed<V1SubjectAccessReview>;
