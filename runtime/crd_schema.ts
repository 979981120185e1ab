/**
 * A CustomResourceDefinition from a TypeBox schema: one schema gives the TypeScript type (`Static<typeof Spec>`) and
 * the CRD's structural openAPIV3Schema, so the type a reconcile reads and what the API server validates cannot drift
 * apart. {@link crdFromSchema} builds the apiextensions.k8s.io/v1 object (one served and stored version, the status
 * subresource, a Ready printer column, optional categories and CEL rules), {@link customResourceType} the address
 * clients use, and {@link ConditionsSchema} is metav1.Condition's list with the validations apimachinery declares.
 * The schemas are TypeBox schemas (or any JSON Schema objects of that shape); CEL rules on a schema node go in its
 * `x-kubernetes-validations` option and are kept.
 * @module
 */
import { Type } from "@sinclair/typebox";
import type { KubeObject, ResourceType } from "./types.ts";
import { copyJson } from "./apimachinery/json_copy.ts";

/** A structural OpenAPI v3 schema node as a CRD carries it. */
export type StructuralSchema = { [keyword: string]: unknown };

/** The keywords a structural CRD schema keeps from a TypeBox schema (TypeBox's own keys and symbols go). */
const KEPT_KEYWORDS = new Set([
  "type",
  "format",
  "description",
  "default",
  "enum",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "required",
  "nullable",
]);

/**
 * Converts a TypeBox schema to a structural OpenAPI v3 schema as CRDs accept it: a union of string literals becomes
 * `enum`, `Type.Record(Type.String(), V)` becomes `additionalProperties`, `x-kubernetes-*` extensions stay, and
 * TypeBox's bookkeeping (`$id`, symbol keys, `const`) goes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Type } from "@sinclair/typebox";
 * import { structuralSchema } from "./crd_schema.ts";
 * const out = structuralSchema(Type.Object({
 *   tier: Type.Union([Type.Literal("web"), Type.Literal("db")]),
 *   labels: Type.Optional(Type.Record(Type.String(), Type.String())),
 * }));
 * assert.deepEqual(out, {
 *   type: "object",
 *   required: ["tier"],
 *   properties: {
 *     tier: { type: "string", enum: ["web", "db"] },
 *     labels: { type: "object", additionalProperties: { type: "string" } },
 *   },
 * });
 * ```
 */
export function structuralSchema(schema: object): StructuralSchema {
  const s = schema as Record<string, unknown>;
  const literals = Array.isArray(s.anyOf) ? (s.anyOf as Record<string, unknown>[]) : undefined;
  if (literals?.length && literals.every((l) => typeof l.const === "string")) {
    const out: StructuralSchema = { type: "string", enum: literals.map((l) => l.const) };
    if (s.description) out.description = s.description;
    if (s.default !== undefined) out.default = s.default;
    return out;
  }
  const out: StructuralSchema = s.type ? { type: s.type } : {};
  for (const [key, value] of Object.entries(s)) {
    if (KEPT_KEYWORDS.has(key) || key.startsWith("x-kubernetes-")) out[key] = copyJson(value);
  }
  if (s.type === "object") {
    if (s.properties) {
      out.properties = Object.fromEntries(
        Object.entries(s.properties as Record<string, object>).map(([k, v]) => [k, structuralSchema(v)]),
      );
    }
    if (s.patternProperties) {
      const [values] = Object.values(s.patternProperties as Record<string, object>);
      out.additionalProperties = structuralSchema(values);
    }
    if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  }
  if (s.type === "array" && s.items) out.items = structuralSchema(s.items as object);
  return out;
}

/**
 * metav1.Condition as a TypeBox schema, with the validations k8s.io/apimachinery declares on it: a qualified-name
 * `type` (≤ 316), `status` True/False/Unknown, a non-empty CamelCase `reason` (≤ 1024), a `message` (≤ 32768, may be
 * empty), an RFC 3339 `lastTransitionTime`, and a non-negative `observedGeneration`; all but observedGeneration are
 * required. Not re-exported from mod.ts (whose signatures stay free of TypeBox types); TypeBox users (the seed
 * controllers) import it from here for `Static` types and value checks.
 */
export const ConditionTypeBoxSchema = Type.Object({
  type: Type.String({
    maxLength: 316,
    pattern:
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
    description: "Type of condition in CamelCase or in foo.example.com/CamelCase, e.g. Ready.",
  }),
  status: Type.Union([Type.Literal("True"), Type.Literal("False"), Type.Literal("Unknown")], {
    description: "Status of the condition: True, False or Unknown.",
  }),
  reason: Type.String({
    minLength: 1,
    maxLength: 1024,
    pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
    description: "Programmatic identifier (CamelCase) of the reason for the condition's last transition.",
  }),
  message: Type.String({ maxLength: 32768, description: "Human-readable message with details about the transition." }),
  lastTransitionTime: Type.String({
    format: "date-time",
    description: "Last time the condition transitioned from one status to another.",
  }),
  observedGeneration: Type.Optional(Type.Integer({
    minimum: 0,
    format: "int64",
    description: "The .metadata.generation the condition was set based upon.",
  })),
}, { description: "One aspect of the object's current state (metav1.Condition)." });

/**
 * The `status.conditions` list as a TypeBox schema: {@link ConditionTypeBoxSchema} items keyed by type, like
 * Kubernetes' own condition lists. Not re-exported from mod.ts; {@link ConditionsSchema} is its structural form.
 */
export const ConditionsTypeBoxSchema = Type.Array(ConditionTypeBoxSchema, {
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
  description: "The latest observations of the object's state, one per type; Ready says whether it converged.",
});

/**
 * `status.conditions` as a CRD schema: metav1.Condition's list keyed by type, with apimachinery's validations (a
 * qualified-name `type`, `status` True/False/Unknown, a CamelCase `reason`, a `message`, an RFC 3339
 * `lastTransitionTime`, an optional `observedGeneration`). Plain JSON, so it fits any schema library; with TypeBox,
 * `Type.Unsafe<Condition[]>(ConditionsSchema)` gives the field the runtime's `Condition[]` type.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Type } from "@sinclair/typebox";
 * import { ConditionsSchema, structuralSchema } from "./crd_schema.ts";
 * import type { Condition } from "./types.ts";
 * const Status = Type.Object({ conditions: Type.Optional(Type.Unsafe<Condition[]>(ConditionsSchema)) });
 * const conditions = structuralSchema(Status).properties as Record<string, Record<string, unknown>>;
 * assert.equal(conditions.conditions["x-kubernetes-list-type"], "map");
 * ```
 */
export const ConditionsSchema: StructuralSchema = structuralSchema(ConditionsTypeBoxSchema);

/** An additionalPrinterColumns entry (what `kubectl get` shows after NAME). */
export interface PrinterColumn {
  /** Column header. */
  name: string;
  /** How kubectl formats the value (date: as an age). */
  type: "string" | "integer" | "number" | "boolean" | "date";
  /** Where the value is, e.g. `.spec.replicas`. */
  jsonPath: string;
  /** What the column shows. */
  description?: string;
  /** 0: always shown; 1: only with `-o wide`. */
  priority?: number;
}

/** The Ready condition's status, as `kubectl get` shows it; {@link crdFromSchema} appends it unless a column is named Ready. */
export const READY_COLUMN: PrinterColumn = {
  name: "Ready",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: "Status of the Ready condition: True once the controller converged on the current spec.",
};

/** One `x-kubernetes-validations` entry (apiextensions.k8s.io/v1 ValidationRule): a CEL rule the API server checks. */
export interface ValidationRule {
  /** CEL expression over `self` (and `oldSelf` in transition rules); true means valid. */
  rule: string;
  /** The error message when the rule is false. */
  message?: string;
  /** Where the error points, relative to the rule's node, e.g. `.spec`. */
  fieldPath?: string;
  /** FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate. */
  reason?: string;
}

/** What {@link crdFromSchema} needs to know about a custom resource. */
export interface CustomResourceSchema {
  /** API group, e.g. `examples.kubeop.dev`. */
  group: string;
  /** The one version, e.g. `v1alpha1`. */
  version: string;
  /** Kind, e.g. `Website`. */
  kind: string;
  /** Plural resource name (the URL segment), e.g. `websites`. */
  plural: string;
  /** Singular name (default: the kind in lower case). */
  singular?: string;
  /** `kubectl get` abbreviations (must not clash with built-in kinds). */
  shortNames?: string[];
  /** Groups of resources the kind belongs to, e.g. `["kubeop"]` (`kubectl get kubeop` lists them all). */
  categories?: string[];
  /** Namespaced (default) or cluster-scoped. */
  scope?: "Namespaced" | "Cluster";
  /** The `spec` schema, a TypeBox schema (required in every object). */
  spec: object;
  /** The `status` schema, a TypeBox schema, served through the status subresource. */
  status: object;
  /** The object's description (`kubectl explain <kind>`). */
  description?: string;
  /** Columns of `kubectl get` after NAME; {@link READY_COLUMN} (unless one is named Ready) and Age are appended. */
  printerColumns?: PrinterColumn[];
  /**
   * CEL rules on the whole object (`x-kubernetes-validations` at the schema root), for what OpenAPI cannot say, e.g.
   * across spec fields; rules on one field go in its schema's `x-kubernetes-validations` option.
   */
  rules?: ValidationRule[];
}

/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition of `cr`: one served and stored version whose
 * openAPIV3Schema is built from the TypeBox `spec` and `status` schemas, the status subresource (so a status write
 * never changes spec and a spec write never changes status), and printer columns ending in Ready and Age.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Type } from "@sinclair/typebox";
 * import { crdFromSchema } from "./crd_schema.ts";
 * const crd = crdFromSchema({
 *   group: "examples.kubeop.dev",
 *   version: "v1alpha1",
 *   kind: "Website",
 *   plural: "websites",
 *   spec: Type.Object({ replicas: Type.Integer({ minimum: 0 }) }),
 *   status: Type.Object({}),
 * });
 * assert.equal(crd.metadata.name, "websites.examples.kubeop.dev");
 * const [version] = (crd.spec as { versions: { subresources: unknown }[] }).versions;
 * assert.deepEqual(version.subresources, { status: {} });
 * ```
 */
export function crdFromSchema(cr: CustomResourceSchema): KubeObject {
  const openAPIV3Schema: StructuralSchema = {
    type: "object",
    properties: {
      apiVersion: {
        type: "string",
        description: "APIVersion defines the versioned schema of this representation of an object. Servers should " +
          "convert recognized schemas to the latest internal value, and may reject unrecognized values.",
      },
      kind: {
        type: "string",
        description: "Kind is a string value representing the REST resource this object represents. Servers may " +
          "infer this from the endpoint the client submits requests to. In CamelCase.",
      },
      metadata: { type: "object" }, // kube-apiserver refuses anything but type (and name) under the root metadata
      spec: { description: `Desired state of the ${cr.kind}.`, ...structuralSchema(cr.spec) },
      status: {
        description: `Observed state of the ${cr.kind}, written by its controller.`,
        ...structuralSchema(cr.status),
      },
    },
    required: ["spec"],
  };
  if (cr.description) openAPIV3Schema.description = cr.description;
  if (cr.rules?.length) openAPIV3Schema["x-kubernetes-validations"] = copyJson(cr.rules);
  const columns = cr.printerColumns ?? [];
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${cr.plural}.${cr.group}` },
    spec: {
      group: cr.group,
      names: {
        kind: cr.kind,
        listKind: `${cr.kind}List`,
        plural: cr.plural,
        singular: cr.singular ?? cr.kind.toLowerCase(),
        ...(cr.categories?.length ? { categories: cr.categories } : {}),
        ...(cr.shortNames?.length ? { shortNames: cr.shortNames } : {}),
      },
      scope: cr.scope ?? "Namespaced",
      versions: [{
        name: cr.version,
        served: true,
        storage: true,
        schema: { openAPIV3Schema },
        subresources: { status: {} },
        additionalPrinterColumns: [
          ...columns,
          ...(columns.some((c) => c.name === "Ready") ? [] : [READY_COLUMN]),
          { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        ],
      }],
    },
  };
}

/**
 * The CustomResourceDefinition of a kind served at several versions (kubebuilder's multi-version API): the first of
 * `versions` is the storage version, every other one is served but not stored, each with its own schema and printer
 * columns. Objects move between versions through the CRD's `spec.conversion` (a conversion webhook; without one,
 * kube-apiserver only rewrites apiVersion). Every entry must name the same group, kind, plural and scope.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Type } from "@sinclair/typebox";
 * import { crdFromSchemas } from "./crd_schema.ts";
 * const v1 = { group: "example.com", version: "v1", kind: "Widget", plural: "widgets", spec: Type.Object({}), status: Type.Object({}) };
 * const crd = crdFromSchemas([v1, { ...v1, version: "v2" }]);
 * const versions = (crd.spec as { versions: { name: string; storage: boolean }[] }).versions;
 * assert.deepEqual(versions.map((v) => [v.name, v.storage]), [["v1", true], ["v2", false]]);
 * ```
 */
export function crdFromSchemas(versions: readonly CustomResourceSchema[]): KubeObject {
  const [storage, ...served] = versions;
  if (!storage) throw new Error("crdFromSchemas: no version given");
  const crd = crdFromSchema(storage);
  const spec = crd.spec as { versions: Record<string, unknown>[] };
  const seen = new Set([storage.version]);
  for (const cr of served) {
    for (const field of ["group", "kind", "plural", "scope"] as const) {
      if ((cr[field] ?? "Namespaced") !== (storage[field] ?? "Namespaced")) {
        throw new Error(
          `crdFromSchemas: ${cr.kind} ${cr.version} has ${field} ${cr[field]}, ${storage.version} has ${
            storage[field]
          }`,
        );
      }
    }
    if (seen.has(cr.version)) throw new Error(`crdFromSchemas: ${cr.kind} version ${cr.version} is given twice`);
    seen.add(cr.version);
    const [version] = (crdFromSchema(cr).spec as { versions: Record<string, unknown>[] }).versions;
    spec.versions.push({ ...version, storage: false });
  }
  return crd;
}

/** How clients address the custom resource `cr` (the ResourceType KubeClient and Controller take). */
export function customResourceType(
  cr: Pick<CustomResourceSchema, "group" | "version" | "kind" | "plural" | "scope">,
): ResourceType {
  return {
    group: cr.group,
    version: cr.version,
    plural: cr.plural,
    kind: cr.kind,
    namespaced: (cr.scope ?? "Namespaced") === "Namespaced",
  };
}
