/**
 * meta.k8s.io/v1 PartialObjectMetadata(List): what the server returns for
 * `Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1` (metadata-only informers) and what
 * Table rows carry as `object`.
 * @module
 */

import type { ListMeta, ObjectMeta } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** A metadata-only view of an object. */
export interface PartialObjectMetadata {
  kind: "PartialObjectMetadata";
  apiVersion: "meta.k8s.io/v1";
  metadata: ObjectMeta;
}

/** A metadata-only list. */
export interface PartialObjectMetadataList {
  kind: "PartialObjectMetadataList";
  apiVersion: "meta.k8s.io/v1";
  metadata: ListMeta;
  items: PartialObjectMetadata[];
}

/**
 * Keeps only `metadata` (a deep copy), with kind PartialObjectMetadata, less the annotations that stand for a field of
 * kube's internal type (a DaemonSet's template generation).
 *
 * @example
 * ```ts
 * import { toPartialObjectMetadata } from "./partial_metadata.ts";
 * const p = toPartialObjectMetadata({ apiVersion: "v1", kind: "Pod", metadata: { name: "a" }, spec: {} });
 * // p is { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: { name: "a" } }
 * ```
 */
export function toPartialObjectMetadata(obj: KubeObject): PartialObjectMetadata {
  const metadata: ObjectMeta = copyJson(obj.metadata ?? {});
  const moved = FIELD_ANNOTATIONS.get(`${obj.apiVersion}/${obj.kind}`);
  if (moved && metadata.annotations) {
    for (const key of moved) delete metadata.annotations[key];
    if (Object.keys(metadata.annotations).length === 0) delete metadata.annotations;
  }
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata };
}

/**
 * Annotations a kind's served version carries for a field of kube's internal type (its conversion moves them): the
 * metadata-only views, made from the internal object, do not show them. apps/v1 DaemonSets: spec.templateGeneration.
 */
const FIELD_ANNOTATIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ["apps/v1/DaemonSet", ["deprecated.daemonset.template.generation"]],
]);

/**
 * Converts a list (any `FooList`), keeping resourceVersion, continue and remainingItemCount of its ListMeta — what
 * kube-apiserver's asPartialObjectMetadataList copies (v1.37 drops a sharded list's `shardInfo` there).
 */
export function toPartialObjectMetadataList(
  list: { metadata?: ListMeta; items: KubeObject[] },
): PartialObjectMetadataList {
  const { resourceVersion, continue: cont, remainingItemCount } = list.metadata ?? {};
  const metadata: ListMeta = {};
  if (resourceVersion !== undefined) metadata.resourceVersion = resourceVersion;
  if (cont !== undefined) metadata.continue = cont;
  if (remainingItemCount !== undefined) metadata.remainingItemCount = remainingItemCount;
  return {
    kind: "PartialObjectMetadataList",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    items: list.items.map(toPartialObjectMetadata),
  };
}
