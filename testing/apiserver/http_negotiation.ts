/**
 * Response shapes the client asked for through `Accept`: the resource itself, a meta.k8s.io/v1 Table
 * (`as=Table`, kubectl get), or PartialObjectMetadata(List) (metadata-only informers), each without
 * `metadata.managedFields` when the chosen clause carries KEP-5958's `drop=metadata.managedFields` and the
 * ManagedFieldsOptOut gate is on (off, the parameter is ignored, as kube-apiserver ignores parameters it does not
 * know); written as JSON, and the router re-encodes the resource itself as protobuf when Accept prefers that
 * (http_protobuf.ts).
 * @module
 */
import type { KubeList, WatchEventType } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { toPartialObjectMetadata, toPartialObjectMetadataList } from "./partial_metadata.ts";
import type { ResourceDef } from "./resource_def.ts";
import { toTable } from "./table.ts";
import { apiVersionOf } from "../../runtime/types.ts";
import { dropManagedFields } from "../../runtime/cache/cache.ts";
import type { WatchPresenter } from "./watch_stream.ts";

/** What to send: the representation, and whether `metadata.managedFields` is left out (KEP-5958). */
export interface ResponseShape {
  /** The resource itself, a Table, or PartialObjectMetadata(List). */
  as: "object" | "table" | "partial";
  /** The chosen clause asked `drop=metadata.managedFields` and the ManagedFieldsOptOut gate is on. */
  dropManagedFields: boolean;
}

/**
 * Picks the first `Accept` clause the server can produce (JSON always works). `managedFieldsOptOut`: the gate.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { negotiateShape } from "./http_negotiation.ts";
 * const accept = "application/json;drop=metadata.managedFields";
 * assert.deepEqual(negotiateShape(accept, { managedFieldsOptOut: true }), { as: "object", dropManagedFields: true });
 * assert.deepEqual(negotiateShape(accept), { as: "object", dropManagedFields: false }); // gate off: ignored
 * ```
 */
export function negotiateShape(accept: string | null, opts: { managedFieldsOptOut?: boolean } = {}): ResponseShape {
  for (const clause of (accept ?? "").split(",")) {
    const params = new Map(
      clause.split(";").slice(1).map((p) => p.trim().split("=", 2) as [string, string]).map(([k, v]) => [k, v ?? ""]),
    );
    const type = clause.split(";")[0].trim();
    const as = params.get("as");
    // `+` joins several drop targets; unknown ones are ignored (forward compatible, as kube's parser).
    const dropManagedFields = opts.managedFieldsOptOut === true &&
      (params.get("drop") ?? "").split("+").includes("metadata.managedFields");
    if (as === "Table" && params.get("g") === "meta.k8s.io") return { as: "table", dropManagedFields };
    if ((as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") && params.get("g") === "meta.k8s.io") {
      return { as: "partial", dropManagedFields };
    }
    if (!as && (type === "application/json" || type === "*/*" || type === "application/*")) {
      return { as: "object", dropManagedFields };
    }
  }
  return { as: "object", dropManagedFields: false };
}

/** `obj` without `metadata.managedFields` when `shape` says so (a copy: stored objects are never changed). */
function dropped(shape: ResponseShape, obj: KubeObject): KubeObject {
  return shape.dropManagedFields && obj.metadata?.managedFields ? dropManagedFields({ ...obj }) : obj;
}

/** Shapes one object. */
export function shapeObject(
  shape: ResponseShape,
  def: ResourceDef,
  obj: KubeObject,
  nowMs: number,
  includeObject?: string,
): unknown {
  obj = dropped(shape, obj);
  if (shape.as === "table") {
    // The table convertor copies a single object's resourceVersion into the Table's metadata.
    return toTable([obj], def, {
      nowMs,
      includeColumns: true,
      includeObject: includeObject as "None" | "Metadata" | "Object",
      listMeta: { resourceVersion: obj.metadata.resourceVersion },
    });
  }
  if (shape.as === "partial") return toPartialObjectMetadata(obj);
  return obj;
}

/** Shapes a list. */
export function shapeList(
  shape: ResponseShape,
  def: ResourceDef,
  list: KubeList,
  nowMs: number,
  includeObject?: string,
): unknown {
  if (shape.dropManagedFields) list = { ...list, items: list.items.map((o) => dropped(shape, o)) };
  if (shape.as === "table") {
    return toTable(list.items, def, {
      nowMs,
      includeColumns: true,
      listMeta: list.metadata,
      includeObject: includeObject as "None" | "Metadata" | "Object",
    });
  }
  if (shape.as === "partial") {
    // kube appends each item to a nil slice: an empty PartialObjectMetadataList answers `"items": null`.
    const partial = toPartialObjectMetadataList(list);
    return partial.items.length ? partial : { ...partial, items: null };
  }
  return typedListItems(def, list);
}

/**
 * A list as kube encodes it: a built-in's items carry no apiVersion and kind (Go leaves a typed list's items'
 * TypeMeta empty); a custom resource's (unstructured) items keep theirs.
 */
export function typedListItems(def: ResourceDef, list: KubeList): KubeList {
  if (def.custom) return list;
  return { ...list, items: list.items.map((o) => typedListItem(def, o)) };
}

/** One item of {@link typedListItems}: a built-in's without apiVersion and kind, a custom resource's as it is. */
export function typedListItem<T extends KubeObject>(def: ResourceDef, obj: T): T {
  if (def.custom) return obj;
  const { apiVersion: _v, kind: _k, ...rest } = obj;
  return rest as T;
}

/** A watch presenter for a shape: converts stored objects with `present` first. */
export function watchPresenter(
  shape: ResponseShape,
  def: ResourceDef,
  present: (obj: KubeObject) => KubeObject,
  nowMs: () => number,
  includeObject?: string,
): WatchPresenter {
  const base = `${def.group}/${def.version}/${def.plural}${shape.dropManagedFields ? "\u0000drop" : ""}`;
  if (shape.dropManagedFields) {
    const whole = present;
    present = (obj) => dropped(shape, whole(obj));
  }
  const bookmarkObject = (rv: string, annotations?: Record<string, string>): KubeObject => ({
    kind: def.kind,
    apiVersion: apiVersionOf(def),
    metadata: annotations ? { resourceVersion: rv, annotations } : { resourceVersion: rv },
  });
  if (shape.as === "table") {
    let first = true;
    return {
      // Column definitions only go with the first event of a stream, so encodings cannot be shared.
      key: `${base}\u0000table\u0000${Math.random()}`,
      present: (obj: KubeObject, _type: WatchEventType) => {
        const includeColumns = first;
        first = false;
        return toTable([present(obj)], def, {
          nowMs: nowMs(),
          includeColumns,
          includeObject: includeObject as "None" | "Metadata" | "Object",
          listMeta: { resourceVersion: obj.metadata.resourceVersion },
        });
      },
      bookmark: bookmarkObject,
    };
  }
  if (shape.as === "partial") {
    return {
      key: `${base}\u0000partial`,
      present: (obj) => toPartialObjectMetadata(present(obj)),
      bookmark: (rv, annotations) => toPartialObjectMetadata(bookmarkObject(rv, annotations)),
    };
  }
  return { key: `${base}\u0000object`, present: (obj) => present(obj), bookmark: bookmarkObject };
}

/** The representations kube-apiserver serves objects in (named in its 406 message). */
export const OBJECT_MEDIA_TYPES: readonly string[] = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
];

/** What a collection GET (list or watch) also offers. */
export const STREAM_MEDIA_TYPES: readonly string[] = [
  "application/json;stream=watch",
  "application/vnd.kubernetes.protobuf;stream=watch",
];

const AS_KINDS = new Set(["Table", "PartialObjectMetadata", "PartialObjectMetadataList", "APIGroupDiscoveryList"]);

/**
 * Whether some clause of `Accept` names a representation among `types` (wildcards included; a clause asking for a
 * conversion kube does not know, or with q=0, does not count). An absent or empty header accepts anything.
 *
 * @example
 * ```ts
 * import { acceptsAny, OBJECT_MEDIA_TYPES } from "./http_negotiation.ts";
 * acceptsAny("application/xml, application/json;q=0.9", OBJECT_MEDIA_TYPES); // true
 * acceptsAny("application/xml", OBJECT_MEDIA_TYPES); // false
 * ```
 */
export function acceptsAny(accept: string | null, types: readonly string[]): boolean {
  if (!accept || !accept.trim()) return true;
  const offered = new Set(types.map((t) => t.split(";")[0]));
  for (const clause of accept.split(",")) {
    const [rawType, ...rawParams] = clause.split(";").map((p) => p.trim());
    const type = rawType.toLowerCase();
    const params = new Map(rawParams.map((p) => p.split("=", 2) as [string, string]).map(([k, v]) => [k, v ?? ""]));
    if (params.get("q") !== undefined && Number(params.get("q")) === 0) continue;
    const as = params.get("as");
    if (as !== undefined && !AS_KINDS.has(as)) continue;
    if (type === "*/*" || type === "application/*" || offered.has(type)) return true;
  }
  return false;
}

/**
 * {@link acceptsAny} for a custom resource: kube-apiserver encodes a custom resource itself only as JSON or YAML, so
 * a protobuf clause counts only when it asks for a conversion (`as=PartialObjectMetadata`, `as=Table`), which is a
 * built-in kind. `Accept: application/vnd.kubernetes.protobuf, application/json` gets JSON; protobuf alone gets 406.
 *
 * @example
 * ```ts
 * import { acceptsCustomResource, OBJECT_MEDIA_TYPES } from "./http_negotiation.ts";
 * acceptsCustomResource("application/vnd.kubernetes.protobuf", OBJECT_MEDIA_TYPES); // false
 * acceptsCustomResource("application/vnd.kubernetes.protobuf, application/json", OBJECT_MEDIA_TYPES); // true
 * ```
 */
export function acceptsCustomResource(accept: string | null, types: readonly string[]): boolean {
  if (!accept || !accept.trim()) return true;
  const clauses = accept.split(",").filter((clause) => {
    const [type, ...params] = clause.split(";").map((p) => p.trim().toLowerCase());
    return !type.startsWith("application/vnd.kubernetes.protobuf") || params.some((p) => p.startsWith("as="));
  });
  return clauses.length > 0 && acceptsAny(clauses.join(","), types);
}
