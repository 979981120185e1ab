/**
 * OpenAPI documents for the farm group: /openapi/v3 (index), /openapi/v3/apis/farm.example.com/v1alpha (paths with
 * `x-kubernetes-group-version-kind` and a `fieldValidation` PATCH parameter, which `kubectl apply`/`create -f`
 * validation and `kubectl explain` need) and /openapi/v2 as JSON (the aggregator merges it; kubectl itself asks
 * for protobuf there and falls back to v3).
 * @module
 */
import { FARM_GROUP, FARM_VERSION, type FarmResource } from "./llama.ts";
import { FARM_RESOURCES, type JsonDocument } from "./discovery.ts";

const gvk = (r: FarmResource) => ({ group: r.group, version: r.version, kind: r.kind });
const schemaName = (r: FarmResource) => `com.example.farm.${r.version}.${r.kind}`;
const listSchemaName = (r: FarmResource) => `com.example.farm.${r.version}.${r.listKind}`;

const SPECS: Record<string, Record<string, unknown>> = {
  Llama: {
    type: "object",
    description: "LlamaSpec is the desired state of a Llama.",
    required: ["weight", "height"],
    properties: {
      weight: { type: "number", description: "Weight in kg; must be greater than 0." },
      height: { type: "number", description: "Height in m; must be greater than 0." },
    },
  },
  FarmPod: {
    type: "object",
    description: "FarmPodSpec summarises the Pod this FarmPod mirrors.",
    properties: { containers: { type: "integer", description: "Number of containers in the Pod." } },
  },
};

function objectSchema(r: FarmResource, ref: (name: string) => string) {
  return {
    type: "object",
    description: r.kind === "Llama"
      ? "Llama is an animal on the farm, served by the kubeop farm aggregated API server."
      : "FarmPod is a read-only view of a Pod of the cluster, named farm-<pod name>.",
    required: r.kind === "Llama" ? ["spec"] : [],
    properties: {
      apiVersion: { type: "string", description: "APIVersion defines the versioned schema of this object." },
      kind: { type: "string", description: "Kind is a string value representing the REST resource." },
      metadata: {
        $ref: ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        description: "Standard object metadata.",
      },
      spec: SPECS[r.kind],
    },
    "x-kubernetes-group-version-kind": [gvk(r)],
  };
}

function listSchema(r: FarmResource, ref: (name: string) => string) {
  return {
    type: "object",
    description: `${r.listKind} is a list of ${r.kind}.`,
    required: ["items"],
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { $ref: ref("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta") },
      items: { type: "array", items: { $ref: ref(schemaName(r)) } },
    },
    "x-kubernetes-group-version-kind": [{ group: r.group, version: r.version, kind: r.listKind }],
  };
}

const META_SCHEMAS = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
    type: "object",
    description: "ObjectMeta is metadata that all persisted resources must have.",
    properties: {
      name: { type: "string" },
      namespace: { type: "string" },
      uid: { type: "string" },
      resourceVersion: { type: "string" },
      generation: { type: "integer", format: "int64" },
      creationTimestamp: { type: "string", format: "date-time" },
      labels: { type: "object", additionalProperties: { type: "string" } },
      annotations: { type: "object", additionalProperties: { type: "string" } },
    },
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta": {
    type: "object",
    properties: { resourceVersion: { type: "string" }, continue: { type: "string" } },
  },
};

const QUERY = (name: string, type = "string") => ({ name, in: "query", schema: { type } });

/** The OpenAPI v3 document of farm.example.com/v1alpha. */
export function openApiV3Document(): JsonDocument {
  const ref = (name: string) => `#/components/schemas/${name}`;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = { ...META_SCHEMAS };
  for (const r of FARM_RESOURCES) {
    schemas[schemaName(r)] = objectSchema(r, ref);
    schemas[listSchemaName(r)] = listSchema(r, ref);
    const one = { content: { "application/json": { schema: { $ref: ref(schemaName(r)) } } } };
    const list = { content: { "application/json": { schema: { $ref: ref(listSchemaName(r)) } } } };
    const writable = r.verbs.includes("create");
    const base = `/apis/${r.group}/${r.version}`;
    const ns = { name: "namespace", in: "path", required: true, schema: { type: "string" } };
    const nm = { name: "name", in: "path", required: true, schema: { type: "string" } };
    const op = (extra: Record<string, unknown>) => ({ "x-kubernetes-group-version-kind": gvk(r), ...extra });
    paths[`${base}/${r.plural}`] = {
      get: op({ operationId: `list${r.kind}ForAllNamespaces`, responses: { 200: { description: "OK", ...list } } }),
    };
    paths[`${base}/namespaces/{namespace}/${r.plural}`] = {
      parameters: [ns],
      get: op({ operationId: `listNamespaced${r.kind}`, responses: { 200: { description: "OK", ...list } } }),
      ...(writable
        ? {
          post: op({
            operationId: `createNamespaced${r.kind}`,
            parameters: [QUERY("dryRun"), QUERY("fieldManager"), QUERY("fieldValidation")],
            requestBody: one,
            responses: { 201: { description: "Created", ...one } },
          }),
        }
        : {}),
    };
    paths[`${base}/namespaces/{namespace}/${r.plural}/{name}`] = {
      parameters: [ns, nm],
      get: op({ operationId: `readNamespaced${r.kind}`, responses: { 200: { description: "OK", ...one } } }),
      ...(writable
        ? {
          put: op({
            operationId: `replaceNamespaced${r.kind}`,
            parameters: [QUERY("dryRun"), QUERY("fieldManager"), QUERY("fieldValidation")],
            requestBody: one,
            responses: { 200: { description: "OK", ...one } },
          }),
          patch: op({
            operationId: `patchNamespaced${r.kind}`,
            parameters: [QUERY("dryRun"), QUERY("fieldManager"), QUERY("fieldValidation"), QUERY("force", "boolean")],
            requestBody: {
              content: {
                "application/json-patch+json": { schema: { type: "object" } },
                "application/merge-patch+json": { schema: { type: "object" } },
              },
            },
            responses: { 200: { description: "OK", ...one } },
          }),
          delete: op({ operationId: `deleteNamespaced${r.kind}`, responses: { 200: { description: "OK" } } }),
        }
        : {}),
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "kubeop farm", version: FARM_VERSION },
    paths,
    components: { schemas },
  };
}

/** A short stable hash of a document (FNV-1a), for `serverRelativeURL?hash=`. */
export function documentHash(doc: unknown): string {
  let h = 0x811c9dc5;
  for (const c of JSON.stringify(doc)) {
    h ^= c.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).toUpperCase().padStart(8, "0");
}

/** GET /openapi/v3. */
export function openApiV3Index(): { paths: Record<string, { serverRelativeURL: string }> } {
  const key = `apis/${FARM_GROUP}/${FARM_VERSION}`;
  return { paths: { [key]: { serverRelativeURL: `/openapi/v3/${key}?hash=${documentHash(openApiV3Document())}` } } };
}

/** GET /openapi/v2 (JSON; Swagger 2.0 with definitions and the same GVK extensions). */
export function openApiV2Document(): JsonDocument {
  const ref = (name: string) => `#/definitions/${name}`;
  const definitions: Record<string, unknown> = { ...META_SCHEMAS };
  const paths: Record<string, unknown> = {};
  for (const r of FARM_RESOURCES) {
    definitions[schemaName(r)] = objectSchema(r, ref);
    definitions[listSchemaName(r)] = listSchema(r, ref);
    const base = `/apis/${r.group}/${r.version}/namespaces/{namespace}/${r.plural}`;
    const single = { $ref: ref(schemaName(r)) };
    paths[`${base}/{name}`] = {
      get: { "x-kubernetes-group-version-kind": gvk(r), responses: { 200: { description: "OK", schema: single } } },
      ...(r.verbs.includes("patch")
        ? {
          patch: {
            "x-kubernetes-group-version-kind": gvk(r),
            consumes: ["application/json-patch+json", "application/merge-patch+json"],
            parameters: [{ name: "fieldValidation", in: "query", type: "string" }],
            responses: { 200: { description: "OK", schema: single } },
          },
        }
        : {}),
    };
  }
  return { swagger: "2.0", info: { title: "kubeop farm", version: FARM_VERSION }, paths, definitions };
}
