/**
 * `/openapi/v2`: the whole-cluster Swagger 2.0 document, built from the same per-group-version documents as
 * `/openapi/v3` (openapi.ts) in the shapes kube-apiserver's v2 has: `#/definitions/` references (a v3
 * `allOf: [{$ref}]` becomes the `$ref` itself), body parameters instead of request bodies, `consumes`/`produces`/
 * `schemes` per operation, `<group>_<version>` tags and `<verb><Group><Version>...` operation IDs, the BearerToken
 * security definition. Custom resources' schemas are converted as kube's ToStructuralOpenAPIV2 converts them (no
 * allOf/oneOf/anyOf/not, no nullable, nothing below `x-kubernetes-preserve-unknown-fields`).
 *
 * As in v3, PATCH operations do not list `application/strategic-merge-patch+json`: kubectl apply would then compute
 * its patches from these (partly generic) schemas; without it kubectl falls back to its compiled-in structs.
 * @module
 */
import type { OpenApiSchema, ResourceDef } from "./resource_def.ts";
import { groupVersionKey, openApiV3Document } from "./openapi.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";
import { OBJECT_MEDIA_TYPES, STREAM_MEDIA_TYPES } from "./http_negotiation.ts";

type Json = Record<string, unknown>;

const V3_REF = "#/components/schemas/";
const V2_REF = "#/definitions/";

/** The friendly group name kube-openapi puts in tags and operation IDs: `rbac.authorization.k8s.io` → `rbacAuthorization`. */
function friendlyGroup(group: string): string {
  if (!group) return "core";
  const parts = group.replace(/\.k8s\.io$/, "").split(/[.-]/).filter((p) => p);
  return parts.map((p, i) => (i === 0 ? p : p[0].toUpperCase() + p.slice(1))).join("");
}

const capitalize = (s: string) => s[0].toUpperCase() + s.slice(1);

/**
 * A v3 schema in v2 form: references into `#/definitions/`, `allOf` around a single reference replaced by it (and its
 * `default: {}` dropped), IntOrString's `oneOf` as `type: string`, and v3-only keywords removed.
 */
export function schemaToV2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaToV2);
  if (schema === null || typeof schema !== "object") return schema;
  const s = schema as Json;
  const out: Json = {};
  const allOf = s.allOf as Json[] | undefined;
  const singleRef = Array.isArray(allOf) && allOf.length === 1 && typeof allOf[0].$ref === "string";
  for (const [k, v] of Object.entries(s)) {
    if (k === "$ref" && typeof v === "string") out.$ref = toV2Ref(v);
    else if (k === "allOf" && singleRef) out.$ref = toV2Ref(allOf[0].$ref as string);
    else if (k === "default" && singleRef) continue;
    else if (k === "oneOf" || k === "anyOf" || k === "not" || k === "nullable") {
      if (k === "oneOf" && s.format === "int-or-string") out.type = "string";
    } else if (k === "properties" || k === "definitions" || k === "patternProperties") {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([n, p]) => [n, schemaToV2(p)]));
    } else if (k === "enum" || k === "default" || k === "example" || k.startsWith("x-")) out[k] = v;
    else out[k] = schemaToV2(v);
  }
  return out;
}

function toV2Ref(ref: string): string {
  return ref.startsWith(V3_REF) ? V2_REF + ref.slice(V3_REF.length) : ref;
}

/** kube's ToStructuralOpenAPIV2 for a custom resource's openAPIV3Schema (apiextensions controller/openapi/v2). */
export function crdSchemaToV2(schema: OpenApiSchema): OpenApiSchema {
  const s: Json = { ...(schema as Json) };
  for (const k of ["allOf", "oneOf", "anyOf", "not"]) delete s[k];
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  if (s.nullable === true) {
    for (const k of ["type", "items", "properties"]) delete s[k];
  }
  delete s.nullable;
  if (preserve) { for (const k of ["items", "properties"]) delete s[k]; }
  if (s.items === undefined && s.type === "array") delete s.type;
  if (preserve && s.type === "object") delete s.type;
  if (s.properties) {
    const props = s.properties as Record<string, OpenApiSchema>;
    const nullable = Object.keys(props).filter((n) => (props[n] as Json).nullable === true);
    if (Array.isArray(s.required) && nullable.length > 0) {
      const kept = (s.required as string[]).filter((r) => !nullable.includes(r));
      if (kept.length > 0) s.required = kept;
      else delete s.required;
    }
    s.properties = Object.fromEntries(Object.entries(props).map(([n, p]) => [n, crdSchemaToV2(p)]));
  }
  if (s.items && typeof s.items === "object" && !Array.isArray(s.items)) {
    s.items = crdSchemaToV2(s.items as OpenApiSchema);
  }
  const additional = s.additionalProperties;
  if (additional && typeof additional === "object") {
    if ((additional as Json).nullable === true) delete s.required;
    s.additionalProperties = crdSchemaToV2(additional as OpenApiSchema);
  }
  return s as OpenApiSchema;
}

function parameterToV2(p: Json): Json {
  if (typeof p.$ref === "string") return p;
  const schema = (p.schema ?? {}) as Json;
  const out: Json = { ...schema };
  if (p.description !== undefined) out.description = p.description;
  out.name = p.name;
  out.in = p.in;
  if (p.required) out.required = true;
  return out;
}

function operationToV2(operation: Json, tag: string, gvPart: string): Json {
  const { requestBody, responses, parameters, operationId, tags: _tags, description, ...rest } = operation;
  const action = operation["x-kubernetes-action"];
  const body = requestBody as { content: Record<string, { schema: unknown }>; required?: boolean } | undefined;
  const consumes = action === "patch" && body ? Object.keys(body.content) : ["*/*"];
  const produces = action === "list" ? [...OBJECT_MEDIA_TYPES, ...STREAM_MEDIA_TYPES] : [...OBJECT_MEDIA_TYPES];
  const params: Json[] = [];
  if (body) {
    const schema = Object.values(body.content)[0]?.schema;
    params.push({ name: "body", in: "body", ...(body.required ? { required: true } : {}), schema: schemaToV2(schema) });
  }
  for (const p of (parameters ?? []) as Json[]) params.push(parameterToV2(p));
  const v2Responses: Json = {};
  for (const [code, r] of Object.entries((responses ?? {}) as Record<string, Json>)) {
    const content = r.content as Record<string, { schema: unknown }> | undefined;
    const schema = content ? Object.values(content)[0]?.schema : undefined;
    v2Responses[code] = { description: r.description, ...(schema ? { schema: schemaToV2(schema) } : {}) };
  }
  const id = String(operationId ?? "");
  const verbEnd = id.search(/[A-Z]/);
  return {
    description,
    consumes,
    produces,
    schemes: ["https"],
    tags: [tag],
    operationId: verbEnd < 0 ? id + gvPart : id.slice(0, verbEnd) + gvPart + id.slice(verbEnd),
    ...(params.length ? { parameters: params } : {}),
    responses: v2Responses,
    ...rest,
  };
}

const OPERATIONS = ["get", "put", "post", "delete", "options", "head", "patch"];

/**
 * The Swagger 2.0 document of every served group-version (`/openapi/v2`).
 *
 * @example
 * ```ts
 * import { openApiV2Document } from "./openapi_v2.ts";
 * const doc = openApiV2Document([]) as { swagger: string; paths: object };
 * console.assert(doc.swagger === "2.0");
 * ```
 */
export function openApiV2Document(defs: ResourceDef[]): object {
  const v2Defs = defs.map((d) => (d.custom && d.schema ? { ...d, schema: crdSchemaToV2(d.schema) } : d));
  const groupVersions = new Map<string, { group: string; version: string }>();
  for (const d of v2Defs) {
    groupVersions.set(groupVersionKey(d.group, d.version), { group: d.group, version: d.version });
  }
  const paths: Json = {};
  const definitions: Json = {};
  for (const key of [...groupVersions.keys()].sort()) {
    const { group, version } = groupVersions.get(key)!;
    const doc = openApiV3Document(group, version, v2Defs) as
      | { paths: Record<string, Json>; components: { schemas: Record<string, unknown> } }
      | undefined;
    if (!doc) continue;
    const tag = `${friendlyGroup(group)}_${version}`;
    const gvPart = capitalize(friendlyGroup(group)) + capitalize(version);
    for (const [path, item] of Object.entries(doc.paths)) {
      const out: Json = {};
      for (const [k, v] of Object.entries(item)) {
        if (OPERATIONS.includes(k)) out[k] = operationToV2(v as Json, tag, gvPart);
        else if (k === "parameters") out[k] = (v as Json[]).map(parameterToV2);
        else out[k] = v;
      }
      paths[path] = out;
    }
    for (const [name, schema] of Object.entries(doc.components.schemas)) definitions[name] ??= schemaToV2(schema);
  }
  return {
    swagger: "2.0",
    info: { title: "Kubernetes", version: "1.37" },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => compareStrings(a, b))),
    definitions: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => compareStrings(a, b))),
    securityDefinitions: {
      BearerToken: { description: "Bearer Token authentication", type: "apiKey", name: "authorization", in: "header" },
    },
    security: [{ BearerToken: [] }],
  };
}
