/**
 * One schema, three uses: a TypeBox schema gives the TypeScript type (`Static`), the CRD's structural
 * openAPIV3Schema ({@link toOpenApi}, {@link customResourceDefinition}) and runtime validation
 * ({@link validationErrors}).
 * @module
 */

import { FormatRegistry, type TLiteral, type TSchema, type TUnion, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { KubeObject, ResourceType } from "../runtime/types.ts";

// TypeBox refuses unknown formats; these are the two the CRDs use (kube-apiserver checks them the same loose way).
if (!FormatRegistry.Has("date-time")) {
  FormatRegistry.Set("date-time", (v) => !Number.isNaN(Date.parse(v)));
}
if (!FormatRegistry.Has("byte")) {
  FormatRegistry.Set("byte", (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0);
}

/**
 * A string restricted to `values`: a TypeBox union of literals, emitted in the CRD as `enum`.
 * @example
 * ```ts
 * const Position = StringEnum(["up", "down"]);
 * ```
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnion<TLiteral<T[number]>[]> {
  const literals = values.map((v) => Type.Literal(v));
  return Type.Union(literals, { ...options, "x-kubeop-enum": [...values] }) as unknown as TUnion<TLiteral<T[number]>[]>;
}

/**
 * metav1.Condition as a schema (what `kubectl wait --for=condition=Ready` reads), with the validations
 * k8s.io/apimachinery declares on it: a qualified-name `type` (≤ 316), `status` True/False/Unknown, a non-empty
 * CamelCase `reason` (≤ 1024), a `message` (≤ 32768, may be empty), an RFC 3339 `lastTransitionTime`, and a
 * non-negative `observedGeneration`; all but observedGeneration are required.
 */
export const ConditionSchema = Type.Object({
  type: Type.String({
    maxLength: 316,
    pattern:
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
    description: "Type of condition in CamelCase or in foo.example.com/CamelCase, e.g. Ready.",
  }),
  status: StringEnum(["True", "False", "Unknown"], { description: "Status of the condition: True, False or Unknown." }),
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

/** The `status.conditions` list, keyed by type like Kubernetes' own condition lists. */
export const ConditionsSchema = Type.Array(ConditionSchema, {
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
  description: "The latest observations of the object's state, one per type; Ready says whether it converged.",
});

/**
 * The status fields every kubeop custom resource reports (`observedGeneration`, `conditions`); spread them last into a
 * status `Type.Object({...})`.
 */
export const ObservedStatusFields = {
  observedGeneration: Type.Optional(Type.Integer({
    minimum: 0,
    description: "The .metadata.generation the controller last reconciled; behind it, the status is not current.",
  })),
  conditions: Type.Optional(ConditionsSchema),
};

/** metav1.LabelSelector. */
export const LabelSelectorSchema = Type.Object({
  matchLabels: Type.Optional(Type.Record(Type.String(), Type.String(), {
    description: "Labels that must all be present with these values.",
  })),
  matchExpressions: Type.Optional(Type.Array(
    Type.Object({
      key: Type.String({ description: "The label key the requirement applies to." }),
      operator: StringEnum(["In", "NotIn", "Exists", "DoesNotExist"], {
        description: "How the key relates to the values: In, NotIn, Exists or DoesNotExist.",
      }),
      values: Type.Optional(Type.Array(Type.String(), {
        description: "Values for In and NotIn (non-empty); empty for Exists and DoesNotExist.",
      })),
    }),
    { description: "Requirements that must all hold." },
  )),
}, { description: "A label query (metav1.LabelSelector); matchLabels and matchExpressions are ANDed." });

// deno-lint-ignore no-explicit-any
type Json = any;

const KEEP = new Set([
  "type",
  "format",
  "description",
  "default",
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
  "enum",
]);

/**
 * Converts a TypeBox schema to a structural OpenAPI v3 schema as CRDs accept it: literal unions become `enum`,
 * records become `additionalProperties`, TypeBox's symbol keys and `const` disappear, `x-kubernetes-*` stay.
 */
export function toOpenApi(schema: TSchema): Json {
  const s = schema as Json;
  if (Array.isArray(s["x-kubeop-enum"])) {
    const out: Json = { type: "string", enum: s["x-kubeop-enum"] };
    if (s.description) out.description = s.description;
    if (s.default !== undefined) out.default = s.default;
    return out;
  }
  const out: Json = s.type ? { type: s.type } : {};
  for (const [k, v] of Object.entries(s)) {
    if (KEEP.has(k) || k.startsWith("x-kubernetes-")) out[k] = structuredClone(v);
  }
  if (s.type === "object") {
    if (s.properties) {
      out.properties = Object.fromEntries(
        Object.entries(s.properties as Record<string, TSchema>).map(([k, v]) => [k, toOpenApi(v)]),
      );
    }
    if (s.patternProperties) {
      const [inner] = Object.values(s.patternProperties as Record<string, TSchema>);
      out.additionalProperties = toOpenApi(inner);
    }
    if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  }
  if (s.type === "array" && s.items) out.items = toOpenApi(s.items);
  return out;
}

/** Human-readable validation errors (`/spec/switches: Expected integer to be less or equal to 100`); empty = valid. */
export function validationErrors(schema: TSchema, value: unknown): string[] {
  if (Value.Check(schema, value)) return [];
  return [...Value.Errors(schema, value)].map((e) => `${e.path || "/"}: ${e.message}`);
}

/** An additionalPrinterColumns entry. */
export interface PrinterColumn {
  /** Column header. */
  name: string;
  /** How kubectl formats the value (date: as an age). */
  type: "string" | "integer" | "number" | "boolean" | "date";
  /** Where the value is, e.g. `.status.phase`. */
  jsonPath: string;
  /** Shown by `kubectl explain`-style tooling. */
  description?: string;
  /** 0: always shown; 1: only with `-o wide`. */
  priority?: number;
}

/** The Ready condition's status, as `kubectl get` shows it for every kubeop kind. */
export const READY_COLUMN: PrinterColumn = {
  name: "Ready",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: "Status of the Ready condition: True once the controller converged on the current spec.",
};

/** Everything that distinguishes one custom resource's CRD. */
export interface CustomResourceSpec {
  /** API group, e.g. `useless.container.training`. */
  group: string;
  /** API version, e.g. `v1alpha1`. */
  version: string;
  /** Kind, e.g. `Machine`. */
  kind: string;
  /** Plural resource name (URL segment). */
  plural: string;
  /** Singular name. */
  singular: string;
  /** `kubectl get` abbreviations (must not clash with built-in kinds). */
  shortNames?: string[];
  /** The `spec` schema. */
  spec: TSchema;
  /** The `status` schema. */
  status: TSchema;
  /** Columns of `kubectl get` after NAME (Age is appended). */
  printerColumns?: PrinterColumn[];
  /** Top-level CEL rules (x-kubernetes-validations on the object). */
  description?: string;
}

/** The whole object's schema (apiVersion, kind, metadata, spec, status) for runtime validation. */
export function objectSchema(cr: Pick<CustomResourceSpec, "spec" | "status">): TSchema {
  return Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Object({})),
    spec: cr.spec,
    status: Type.Optional(cr.status),
  });
}

/** How clients address the custom resource `cr` (always namespaced, like {@link customResourceDefinition}). */
export function resourceTypeOf(cr: Pick<CustomResourceSpec, "group" | "version" | "plural" | "kind">): ResourceType {
  return { group: cr.group, version: cr.version, plural: cr.plural, kind: cr.kind, namespaced: true };
}

/** The apiextensions.k8s.io/v1 CustomResourceDefinition for `cr` (namespaced, status subresource, category kubeop). */
export function customResourceDefinition(cr: CustomResourceSpec): KubeObject {
  const openAPIV3Schema: Json = {
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
      metadata: { type: "object" }, // kube refuses anything but type (and name/generateName) under the root metadata
      spec: { description: `Desired state of the ${cr.kind}.`, ...toOpenApi(cr.spec) },
      status: { description: `Observed state of the ${cr.kind}, written by its controller.`, ...toOpenApi(cr.status) },
    },
    required: ["spec"],
  };
  if (cr.description) openAPIV3Schema.description = cr.description;
  const names: Json = {
    kind: cr.kind,
    listKind: `${cr.kind}List`,
    plural: cr.plural,
    singular: cr.singular,
    categories: ["kubeop"],
  };
  if (cr.shortNames?.length) names.shortNames = cr.shortNames;
  const version: Json = {
    name: cr.version,
    served: true,
    storage: true,
    schema: { openAPIV3Schema },
    subresources: { status: {} },
  };
  const columns = cr.printerColumns ?? [];
  version.additionalPrinterColumns = [
    ...columns,
    ...(columns.some((c) => c.name === "Ready") ? [] : [READY_COLUMN]),
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ];
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${cr.plural}.${cr.group}` },
    spec: { group: cr.group, names, scope: "Namespaced", versions: [version] },
  };
}
