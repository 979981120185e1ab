/**
 * OpenAPI v3 discovery (`/openapi/v3` and `/openapi/v3/<api|apis/g>/<v>`) generated from the served resources, in
 * the shapes kubectl reads: the index with hashed `serverRelativeURL`s (the hash changes whenever a group-version's
 * document changes, e.g. after a CRD update), and per group-version documents whose PATCH operations carry
 * `x-kubernetes-group-version-kind` and the `fieldValidation` parameter (kubectl's strict-validation probe), and
 * whose `components.schemas` make `kubectl explain` work (CRDs: their openAPIV3Schema).
 *
 * Strategic merge patch is deliberately NOT advertised, also for built-ins: kubectl would then compute apply
 * patches from these schemas (strategicpatch.PatchMetaFromOpenAPIV3), which fails on any field a schema does not
 * spell out; without it kubectl uses its compiled-in Go struct metadata, which is exactly the real behaviour.
 * The server still accepts `application/strategic-merge-patch+json` for built-ins.
 * @module
 */

import { createHash } from "node:crypto";
import type { OpenApiSchema, ResourceDef } from "./resource_def.ts";
import { recordedSchemas } from "./openapi_recorded.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const OBJECT_META_REF = `#/components/schemas/${META}.ObjectMeta`;
const LIST_META_REF = `#/components/schemas/${META}.ListMeta`;

const API_VERSION_DOC = "APIVersion defines the versioned schema of this representation of an object. Servers should " +
  "convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: " +
  "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DOC = "Kind is a string value representing the REST resource this object represents. Servers may infer " +
  "this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: " +
  "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const METADATA_DOC = "Standard object's metadata. More info: " +
  "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** Real schema-name prefixes of built-in groups (e.g. `io.k8s.api.apps.v1.Deployment`). */
function schemaPrefix(def: Pick<ResourceDef, "group" | "version" | "custom">): string {
  const { group, version } = def;
  if (!def.custom) {
    if (group === "") return `io.k8s.api.core.${version}`;
    if (group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
    if (group === "apiregistration.k8s.io") return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}`;
    return `io.k8s.api.${group.replace(/\.k8s\.io$/, "").replace(/\.authorization$/, "").split(".")[0]}.${version}`;
  }
  return `${group.split(".").reverse().join(".")}.${version}`;
}

/** The components.schemas name of a kind, e.g. `com.example.v1.Foo`. */
export function schemaName(def: Pick<ResourceDef, "group" | "version" | "custom" | "kind">): string {
  return `${schemaPrefix(def)}.${def.kind}`;
}

function gvk(def: ResourceDef) {
  return { group: def.group, version: def.version, kind: def.kind };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ "application/json": { schema } });

function queryParam(name: string, type: "string" | "boolean" | "integer", description: string) {
  return { name, in: "query", description, schema: { type, uniqueItems: true } };
}

const DRY_RUN = queryParam("dryRun", "string", "When present, indicates that modifications should not be persisted.");
const FIELD_MANAGER = queryParam(
  "fieldManager",
  "string",
  "fieldManager is a name associated with the actor or entity that is making these changes.",
);
const FIELD_VALIDATION = queryParam(
  "fieldValidation",
  "string",
  "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict",
);
const FORCE = queryParam("force", "boolean", 'Force is going to "force" Apply requests.');
const PATH_NAME = {
  name: "name",
  in: "path",
  required: true,
  description: "name of the resource",
  schema: { type: "string", uniqueItems: true },
};
const PATH_NAMESPACE = {
  name: "namespace",
  in: "path",
  required: true,
  description: "object name and auth scope, such as for teams and projects",
  schema: { type: "string", uniqueItems: true },
};
const LIST_PARAMS = ["labelSelector", "fieldSelector", "resourceVersion", "resourceVersionMatch", "continue"]
  .map((n) => queryParam(n, "string", n))
  .concat([
    queryParam("limit", "integer", "limit"),
    queryParam("watch", "boolean", "watch"),
    queryParam("timeoutSeconds", "integer", "timeoutSeconds"),
    queryParam("allowWatchBookmarks", "boolean", "allowWatchBookmarks"),
    queryParam("sendInitialEvents", "boolean", "sendInitialEvents"),
  ]);

function patchContent() {
  const body = { schema: ref(`${META}.Patch`) };
  return {
    "application/apply-patch+yaml": body,
    "application/json-patch+json": body,
    "application/merge-patch+json": body,
    // No application/strategic-merge-patch+json, also for built-ins: see the module comment.
  };
}

function op(def: ResourceDef, action: string, verb: string, extra: Record<string, unknown>) {
  const scope = def.namespaced ? "Namespaced" : "";
  const upper = def.kind;
  return {
    description: `${verb} ${def.kind}`,
    operationId: `${action}${scope}${upper}`,
    tags: [def.group || "core"],
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk(def),
    ...extra,
  };
}

function itemOperations(def: ResourceDef, name: string, sub?: string) {
  const suffix = sub ? sub[0].toUpperCase() + sub.slice(1) : "";
  const objectResponse = {
    "200": { description: "OK", content: json(ref(name)) },
    "401": { description: "Unauthorized" },
  };
  return {
    get: op(def, "get", `read the specified ${sub ?? ""}`, {
      operationId: `read${def.namespaced ? "Namespaced" : ""}${def.kind}${suffix}`,
      responses: objectResponse,
    }),
    put: op(def, "put", `replace the specified ${sub ?? ""}`, {
      operationId: `replace${def.namespaced ? "Namespaced" : ""}${def.kind}${suffix}`,
      parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      requestBody: { content: { "*/*": { schema: ref(name) } }, required: true },
      responses: { ...objectResponse, "201": { description: "Created", content: json(ref(name)) } },
    }),
    patch: op(def, "patch", `partially update the specified ${sub ?? ""}`, {
      operationId: `patch${def.namespaced ? "Namespaced" : ""}${def.kind}${suffix}`,
      parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
      requestBody: { content: patchContent(), required: true },
      responses: { ...objectResponse, "201": { description: "Created", content: json(ref(name)) } },
    }),
    ...(sub ? {} : {
      delete: op(def, "delete", "delete", {
        operationId: `delete${def.namespaced ? "Namespaced" : ""}${def.kind}`,
        parameters: [
          DRY_RUN,
          queryParam("gracePeriodSeconds", "integer", "grace period"),
          queryParam("propagationPolicy", "string", "propagation policy"),
        ],
        requestBody: { content: { "*/*": { schema: ref(`${META}.DeleteOptions`) } } },
        responses: {
          "200": { description: "OK", content: json(ref(`${META}.Status`)) },
          "202": { description: "Accepted", content: json(ref(`${META}.Status`)) },
        },
      }),
    }),
    parameters: def.namespaced ? [PATH_NAME, PATH_NAMESPACE] : [PATH_NAME],
  };
}

function collectionOperations(def: ResourceDef, name: string, withWrites: boolean) {
  const list = { "200": { description: "OK", content: json(ref(`${name}List`)) } };
  return {
    get: op(def, "list", "list or watch objects of kind", {
      operationId: `list${def.namespaced && withWrites ? "Namespaced" : ""}${def.kind}${
        withWrites || !def.namespaced ? "" : "ForAllNamespaces"
      }`,
      parameters: LIST_PARAMS,
      responses: list,
    }),
    ...(withWrites
      ? {
        post: op(def, "post", "create", {
          operationId: `create${def.namespaced ? "Namespaced" : ""}${def.kind}`,
          parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
          requestBody: { content: { "*/*": { schema: ref(name) } }, required: true },
          responses: {
            "200": { description: "OK", content: json(ref(name)) },
            "201": { description: "Created", content: json(ref(name)) },
          },
        }),
        delete: op(def, "deletecollection", "delete collection of", {
          operationId: `deleteCollection${def.namespaced ? "Namespaced" : ""}${def.kind}`,
          parameters: LIST_PARAMS,
          responses: { "200": { description: "OK", content: json(ref(`${META}.Status`)) } },
        }),
      }
      : {}),
    ...(def.namespaced && withWrites ? { parameters: [PATH_NAMESPACE] } : {}),
  };
}

/** The kind's schema: a CRD's openAPIV3Schema with the standard fields, or a permissive built-in schema. */
export function kindSchema(def: ResourceDef): OpenApiSchema {
  const base: OpenApiSchema = def.custom && def.schema ? copyJson(def.schema) : {
    type: "object",
    description:
      `${def.kind} is a ${def.group || "core"}/${def.version} resource served by the kubeop fake API server. ` +
      "Fields follow the Kubernetes API reference; unknown fields are preserved.",
    properties: {
      spec: { type: "object", description: `Spec of the ${def.kind}.`, "x-kubernetes-preserve-unknown-fields": true },
      status: {
        type: "object",
        description: `Most recently observed status of the ${def.kind}.`,
        "x-kubernetes-preserve-unknown-fields": true,
      },
    },
    "x-kubernetes-preserve-unknown-fields": true,
  };
  base.type ??= "object";
  base.properties = {
    ...(base.properties ?? {}),
    apiVersion: { type: "string", description: API_VERSION_DOC },
    kind: { type: "string", description: KIND_DOC },
    metadata: { description: METADATA_DOC, allOf: [{ $ref: OBJECT_META_REF }], default: {} },
  };
  base["x-kubernetes-group-version-kind"] = [gvk(def)];
  return base;
}

const STRING_MAP = { type: "object", additionalProperties: { type: "string", default: "" } };

/** The meta/v1 schemas every document references. */
function metaSchemas(): Record<string, OpenApiSchema> {
  return {
    [`${META}.ObjectMeta`]: {
      type: "object",
      description:
        "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
      properties: {
        name: { type: "string", description: "Name must be unique within a namespace." },
        generateName: {
          type: "string",
          description:
            "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.",
        },
        namespace: {
          type: "string",
          description: "Namespace defines the space within which each name must be unique.",
        },
        uid: { type: "string", description: "UID is the unique in time and space value for this object." },
        resourceVersion: {
          type: "string",
          description: "An opaque value that represents the internal version of this object.",
        },
        generation: {
          type: "integer",
          format: "int64",
          description: "A sequence number representing a specific generation of the desired state.",
        },
        creationTimestamp: {
          type: "string",
          format: "date-time",
          description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
        },
        deletionTimestamp: {
          type: "string",
          format: "date-time",
          description: "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.",
        },
        deletionGracePeriodSeconds: {
          type: "integer",
          format: "int64",
          description: "Number of seconds allowed for this object to gracefully terminate.",
        },
        labels: {
          ...STRING_MAP,
          description:
            "Map of string keys and values that can be used to organize and categorize (scope and select) objects.",
        },
        annotations: {
          ...STRING_MAP,
          description: "Annotations is an unstructured key value map stored with a resource.",
        },
        ownerReferences: {
          type: "array",
          description: "List of objects depended by this object.",
          items: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          "x-kubernetes-list-map-keys": ["uid"],
          "x-kubernetes-list-type": "map",
          "x-kubernetes-patch-merge-key": "uid",
          "x-kubernetes-patch-strategy": "merge",
        },
        finalizers: {
          type: "array",
          description: "Must be empty before the object is deleted from the registry.",
          items: { type: "string", default: "" },
          "x-kubernetes-list-type": "set",
          "x-kubernetes-patch-strategy": "merge",
        },
        managedFields: {
          type: "array",
          description:
            "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.",
          items: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      },
    },
    [`${META}.ListMeta`]: {
      type: "object",
      description:
        "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
      properties: {
        resourceVersion: { type: "string" },
        continue: { type: "string" },
        remainingItemCount: { type: "integer", format: "int64" },
      },
    },
    [`${META}.Status`]: {
      type: "object",
      description: "Status is a return value for calls that don't return other objects.",
      "x-kubernetes-preserve-unknown-fields": true,
      "x-kubernetes-group-version-kind": [{ group: "", kind: "Status", version: "v1" }],
    },
    [`${META}.DeleteOptions`]: {
      type: "object",
      description: "DeleteOptions may be provided when deleting an API object.",
      "x-kubernetes-preserve-unknown-fields": true,
    },
    [`${META}.Patch`]: {
      type: "object",
      description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
    },
  };
}

/**
 * The OpenAPI v3 document of one group-version, or undefined when nothing is served there.
 *
 * @example
 * ```ts
 * import { openApiV3Document } from "./openapi.ts";
 * const doc = openApiV3Document("example.com", "v1", []);
 * // doc is undefined: no resources
 * ```
 */
export function openApiV3Document(group: string, version: string, defs: ResourceDef[]): object | undefined {
  const served = defs.filter((d) => d.group === group && d.version === version)
    .sort((a, b) => compareStrings(a.plural, b.plural));
  if (served.length === 0) return undefined;
  const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const paths: Record<string, unknown> = {};
  const recorded = recordedSchemas(group, version) ?? {};
  const schemas: Record<string, OpenApiSchema> = { ...metaSchemas(), ...recorded };
  for (const def of served) {
    const name = schemaName(def);
    // Kinds recorded from kube-apiserver keep their real schemas (openapi_recorded.ts).
    const real = !def.custom && recorded[name] !== undefined;
    if (!real) schemas[name] = kindSchema(def);
    if (!real || recorded[`${name}List`] === undefined) schemas[`${name}List`] = listSchema(def, name);
    const base = def.namespaced ? `${prefix}/namespaces/{namespace}/${def.plural}` : `${prefix}/${def.plural}`;
    const add = (path: string, item: Record<string, unknown>, verbs: Record<string, string>) => {
      // Only the operations the resource serves (bindings: create; componentstatuses: get, list), as kube lists them.
      for (const [method, verb] of Object.entries(verbs)) if (!def.verbs.includes(verb)) delete item[method];
      if (Object.keys(verbs).some((method) => method in item)) paths[path] = item;
    };
    add(base, collectionOperations(def, name, true), { get: "list", post: "create", delete: "deletecollection" });
    add(`${base}/{name}`, itemOperations(def, name), { get: "get", put: "update", patch: "patch", delete: "delete" });
    if (def.namespaced) add(`${prefix}/${def.plural}`, collectionOperations(def, name, false), { get: "list" });
    for (const sub of def.subresources) {
      if (sub === "status" || sub === "scale") paths[`${base}/{name}/${sub}`] = itemOperations(def, name, sub);
    }
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "unversioned" },
    paths,
    components: { schemas },
  };
}

/** The generic `<Kind>List` schema. */
function listSchema(def: ResourceDef, name: string): OpenApiSchema {
  return {
    type: "object",
    description: `${def.listKind} is a list of ${def.kind}`,
    required: ["items"],
    properties: {
      apiVersion: { type: "string", description: API_VERSION_DOC },
      items: { type: "array", description: `List of ${def.plural}.`, items: { allOf: [ref(name)], default: {} } },
      kind: { type: "string", description: KIND_DOC },
      metadata: { description: "Standard list metadata.", allOf: [{ $ref: LIST_META_REF }], default: {} },
    },
    "x-kubernetes-group-version-kind": [{ group: def.group, version: def.version, kind: def.listKind }],
  };
}

/** `api/v1` or `apis/<group>/<version>`: the index key of a group-version. */
export function groupVersionKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/**
 * The `/openapi/v3` index: one entry per served group-version, each URL carrying a hash of its document.
 *
 * @example
 * ```ts
 * import { openApiV3Index } from "./openapi.ts";
 * const index = openApiV3Index([]) as { paths: Record<string, unknown> };
 * // index.paths is {}
 * ```
 */
export function openApiV3Index(defs: ResourceDef[]): object {
  const groupVersions = new Map<string, { group: string; version: string }>();
  for (const d of defs) groupVersions.set(groupVersionKey(d.group, d.version), { group: d.group, version: d.version });
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of [...groupVersions.keys()].sort()) {
    const { group, version } = groupVersions.get(key)!;
    const doc = openApiV3Document(group, version, defs);
    const hash = createHash("sha512").update(JSON.stringify(doc)).digest("hex").toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}
