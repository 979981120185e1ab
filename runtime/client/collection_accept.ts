/**
 * The `Accept` header of collection reads (list, watch): the resource as JSON, or PartialObjectMetadata(List) for
 * metadata-only informers, each optionally with KEP-5958's `drop=metadata.managedFields` parameter, which asks the
 * server to leave `metadata.managedFields` out of every object it sends (kube-apiserver's `ManagedFieldsOptOut` gate,
 * alpha and off by default since v1.38; client-go sends the same parameter on every clause). kube-apiserver without the
 * gate ignores an unknown Accept parameter and sends the objects whole, so the informer still drops them itself; a
 * server that answers 406 to the parameter is asked again without it (the client then stops sending it).
 * @module
 */

/** KEP-5958's Accept parameter. */
export const DROP_MANAGED_FIELDS = "drop=metadata.managedFields";

const METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const JSON_TYPE = "application/json";

/**
 * `Accept` for a list (`list: true`) or a watch: metadata-only or not, with or without {@link DROP_MANAGED_FIELDS}.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { collectionAccept } from "./collection_accept.ts";
 * assert.equal(collectionAccept({ list: true }), "application/json");
 * assert.equal(collectionAccept({ list: false, dropManagedFields: true }), "application/json;drop=metadata.managedFields");
 * assert.equal(
 *   collectionAccept({ list: true, metadataOnly: true, dropManagedFields: true }),
 *   "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1;drop=metadata.managedFields," +
 *     "application/json;drop=metadata.managedFields",
 * );
 * ```
 */
export function collectionAccept(opts: { list: boolean; metadataOnly?: boolean; dropManagedFields?: boolean }): string {
  const clauses = opts.metadataOnly ? [opts.list ? METADATA_LIST : METADATA, JSON_TYPE] : [JSON_TYPE];
  return clauses.map((c) => opts.dropManagedFields ? `${c};${DROP_MANAGED_FIELDS}` : c).join(",");
}
