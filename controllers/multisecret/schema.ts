/**
 * MultiSecret (`multi.ddnw.ml/v1alpha1`, seed 004): one Secret copied into every (selected) namespace.
 * @module
 */

import { type Static, Type } from "@sinclair/typebox";
import type { KubeObject, ResourceType } from "../../runtime/types.ts";
import {
  customResourceDefinition,
  type CustomResourceSpec,
  LabelSelectorSchema,
  objectSchema,
  ObservedStatusFields,
  resourceTypeOf,
} from "../schema_util.ts";

const DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/** MultiSecret.spec */
export const MultiSecretSpecSchema = Type.Object({
  data: Type.Optional(Type.Record(Type.String(), Type.String({ format: "byte" }), {
    description: "Base64-encoded values, copied into each child Secret's data.",
  })),
  stringData: Type.Optional(Type.Record(Type.String(), Type.String(), {
    description: "Plain values; merged into the children's data (base64-encoded), overriding data keys.",
  })),
  type: Type.Optional(Type.String({
    maxLength: 253,
    default: "Opaque",
    description: "Secret type of the children. Changing it re-creates them (a Secret's type is immutable).",
  })),
  namespaceSelector: Type.Optional(LabelSelectorSchema),
  secretName: Type.Optional(Type.String({
    maxLength: 253,
    pattern: DNS_SUBDOMAIN,
    description: "Name of the child Secrets. Default: the MultiSecret's name.",
  })),
});

/** MultiSecret.status (field names as in the original, including change_time). */
export const MultiSecretStatusSchema = Type.Object({
  wanted: Type.Optional(Type.Integer({ minimum: 0, description: "Namespaces that should hold a child." })),
  created: Type.Optional(Type.Integer({ minimum: 0, description: "Children that exist and are up to date." })),
  change_time: Type.Optional(Type.String({ description: "RFC 3339 time of the last change to the children." })),
  failedNamespaces: Type.Optional(Type.Array(Type.String(), {
    description: "Namespaces whose child could not be written (why: the Degraded condition and Warning Events).",
  })),
  ...ObservedStatusFields,
});

/** A MultiSecret object. */
export interface MultiSecret extends KubeObject {
  /** Desired state. */
  spec: Static<typeof MultiSecretSpecSchema>;
  /** Observed state (status subresource). */
  status?: Static<typeof MultiSecretStatusSchema>;
}

/** The MultiSecret CRD description. */
export const MultiSecretResource: CustomResourceSpec = {
  group: "multi.ddnw.ml",
  version: "v1alpha1",
  kind: "MultiSecret",
  plural: "multisecrets",
  singular: "multisecret",
  shortNames: ["msec"],
  spec: MultiSecretSpecSchema,
  status: MultiSecretStatusSchema,
  description: "A Secret kept in every namespace (or every namespace a selector picks).",
  printerColumns: [
    { name: "Wanted", type: "integer", jsonPath: ".status.wanted" },
    { name: "Created", type: "integer", jsonPath: ".status.created" },
    { name: "ChangeTime", type: "string", jsonPath: ".status.change_time" },
  ],
};

/** Addresses MultiSecrets. */
export const MultiSecretType: ResourceType = resourceTypeOf(MultiSecretResource);

/** Whole-object schema for runtime validation. */
export const MultiSecretObjectSchema = objectSchema(MultiSecretResource);

/** The CRDs of this system. */
export function multiSecretCrds(): KubeObject[] {
  return [customResourceDefinition(MultiSecretResource)];
}
