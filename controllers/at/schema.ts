/**
 * At (`cnat.ishankhare.dev/v1alpha1`, seed 002): run a command in a pod at a scheduled time.
 * @module
 */

import { type Static, Type } from "@sinclair/typebox";
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from "../../runtime/builtin_types.ts";
import type { KubeObject, ResourceType } from "../../runtime/types.ts";
import {
  customResourceDefinition,
  type CustomResourceSpec,
  objectSchema,
  ObservedStatusFields,
  StringEnum,
} from "../schema_util.ts";
import { customResourceType } from "../../runtime/crd_schema.ts";

/** RFC 3339 in UTC, seconds precision or finer: `2020-11-16T10:12:00Z`. */
export const SCHEDULE_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$";

/** The phases of an At, in order. */
export const PHASES = ["PENDING", "RUNNING", "DONE", "FAILED"] as const;
/** One phase. */
export type Phase = typeof PHASES[number];

/** At.spec */
export const AtSpecSchema = Type.Object({
  schedule: Type.String({
    pattern: SCHEDULE_PATTERN,
    description: "When to run, RFC 3339 in UTC, e.g. 2020-11-16T10:12:00Z. In the past: run now.",
  }),
  command: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: "Command to run in a busybox container, split on whitespace (no shell implied).",
  }),
});

/** At.spec in v1beta1 (controllers/at/conversion.ts): `command` is the argv, so an argument may hold spaces. */
export const AtV1beta1SpecSchema = Type.Object({
  schedule: AtSpecSchema.properties.schedule,
  command: Type.Array(Type.String({ maxLength: 4096 }), {
    minItems: 1,
    maxItems: 256,
    description: "The argv run in a busybox container (no shell implied): command[0] and its arguments.",
  }),
});

/** At.status */
export const AtStatusSchema = Type.Object({
  phase: Type.Optional(StringEnum(PHASES, { description: "PENDING → RUNNING → DONE, or FAILED." })),
  podName: Type.Optional(Type.String({ description: "The pod that runs the command." })),
  message: Type.Optional(Type.String({ description: "Why the At failed, or what it is waiting for." })),
  ...ObservedStatusFields,
});

/** An At object. */
export interface At extends KubeObject {
  /** Desired state. */
  spec: Static<typeof AtSpecSchema>;
  /** Observed state (status subresource). */
  status?: Static<typeof AtStatusSchema>;
}

/** The At CRD description. */
export const AtResource: CustomResourceSpec = {
  group: "cnat.ishankhare.dev",
  version: "v1alpha1",
  kind: "At",
  plural: "ats",
  singular: "at",
  shortNames: ["cnat"],
  spec: AtSpecSchema,
  status: AtStatusSchema,
  description: "Cloud Native At: runs spec.command in a pod at spec.schedule.",
  // An At runs once: after it started, a changed schedule or command would describe a run that never happened.
  rules: [{
    rule: "!has(oldSelf.status) || !has(oldSelf.status.phase) || oldSelf.status.phase == 'PENDING' || " +
      "self.spec == oldSelf.spec",
    message: "spec is immutable once the At has run (phase RUNNING, DONE or FAILED): create a new At",
    fieldPath: ".spec",
  }],
  printerColumns: [
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule" },
    { name: "Command", type: "string", jsonPath: ".spec.command", priority: 1 },
    { name: "Phase", type: "string", jsonPath: ".status.phase" },
  ],
};

/** Addresses Ats. */
export const AtType: ResourceType = customResourceType(AtResource);

/** Whole-object schema for runtime validation. */
export const AtObjectSchema = objectSchema(AtResource);

/** The v1beta1 version of the At CRD (served next to v1alpha1 only where kubeop's `/convert` webhook answers). */
export const AtV1beta1Resource: CustomResourceSpec = { ...AtResource, version: "v1beta1", spec: AtV1beta1SpecSchema };

/**
 * The CRDs of this system as `kubeop crds` prints them: At serves v1alpha1 only (the storage version), with no
 * conversion stanza, so every read works whether or not a conversion webhook runs. Where kubeop's `/convert` is
 * served, {@link atWebhookVersions} are added with the conversion stanza (deploy/'s kustomize patch, `kubeop dev`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { atCrds } from "./schema.ts";
 * assert.deepEqual(atCrds()[0].spec.versions.map((v) => v.name), ["v1alpha1"]);
 * ```
 */
export function atCrds(): CustomResourceDefinition[] {
  return [customResourceDefinition(AtResource)];
}

/**
 * The versions of the At CRD that are served only next to kubeop's conversion webhook: v1beta1 (never the storage
 * version, so it can be removed again at any time: no object is ever stored in it).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { atWebhookVersions } from "./schema.ts";
 * assert.deepEqual(atWebhookVersions().map((v) => [v.name, v.storage]), [["v1beta1", false]]);
 * ```
 */
export function atWebhookVersions(): CustomResourceDefinitionVersion[] {
  const [beta] = customResourceDefinition(AtV1beta1Resource).spec.versions;
  return [{ ...beta, storage: false }];
}
