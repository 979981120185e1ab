/**
 * The seed controllers' TypeBox helpers on top of the runtime's CRD builder (runtime/crd_schema.ts): one schema gives
 * the TypeScript type (`Static`), the CRD ({@link customResourceDefinition}) and runtime validation
 * ({@link validationErrors}).
 * @module
 */

import { FormatRegistry, type TLiteral, type TSchema, type TUnion, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { CustomResourceDefinition } from "../runtime/builtin_types.ts";
import { ConditionsTypeBoxSchema, crdFromSchema, type CustomResourceSchema } from "../runtime/crd_schema.ts";

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
  return Type.Union(literals, options) as unknown as TUnion<TLiteral<T[number]>[]>;
}

/**
 * The status fields every kubeop custom resource reports (`observedGeneration`, `conditions`); spread them last into a
 * status `Type.Object({...})`.
 */
export const ObservedStatusFields = {
  observedGeneration: Type.Optional(Type.Integer({
    minimum: 0,
    description: "The .metadata.generation the controller last reconciled; behind it, the status is not current.",
  })),
  conditions: Type.Optional(ConditionsTypeBoxSchema),
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

/** Human-readable validation errors (`/spec/switches: Expected integer to be less or equal to 100`); empty = valid. */
export function validationErrors(schema: TSchema, value: unknown): string[] {
  if (Value.Check(schema, value)) return [];
  return [...Value.Errors(schema, value)].map((e) => `${e.path || "/"}: ${e.message}`);
}

/**
 * Everything that distinguishes one seed custom resource's CRD: the runtime's {@link CustomResourceSchema} with a
 * required singular and TypeBox `spec` and `status` schemas (for `Static` types and {@link objectSchema}).
 */
export interface CustomResourceSpec extends CustomResourceSchema {
  /** Singular name. */
  singular: string;
  /** The `spec` schema. */
  spec: TSchema;
  /** The `status` schema. */
  status: TSchema;
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

/** The apiextensions.k8s.io/v1 CustomResourceDefinition for a seed resource: the runtime's, in category kubeop. */
export function customResourceDefinition(cr: CustomResourceSpec): CustomResourceDefinition {
  // crdFromSchema builds exactly this shape; KubeObject is just its public, client-independent type.
  return crdFromSchema({ ...cr, categories: ["kubeop"] }) as unknown as CustomResourceDefinition;
}
