/**
 * The Llama kind of `farm.example.com/v1alpha` (seed 001): its shape, the resource descriptors the server
 * publishes, validation of user input into field-path causes, and the tutorial's seeded llama `dolly`.
 * @module
 */
import { dns1123SubdomainErrors } from "../runtime/apimachinery/names.ts";
import type { StatusCause } from "../runtime/client/errors.ts";
import type { KubeObject, ResourceType } from "../runtime/types.ts";

/** The API group served. */
export const FARM_GROUP = "farm.example.com";
/** The only version served. */
export const FARM_VERSION = "v1alpha";
/** `farm.example.com/v1alpha`. */
export const FARM_API_VERSION = `${FARM_GROUP}/${FARM_VERSION}`;

/** A Llama. */
export interface Llama extends KubeObject {
  /** Always farm.example.com/v1alpha. */
  apiVersion: typeof FARM_API_VERSION;
  /** Always Llama. */
  kind: "Llama";
  /** Weight in kg and height in m, both > 0. */
  spec: { weight: number; height: number };
}

/** What discovery, OpenAPI, Tables and Status details say about one resource. */
export interface FarmResource extends ResourceType {
  /** Singular resource name. */
  singular: string;
  /** Kind of the list. */
  listKind: string;
  /** Verbs served. */
  verbs: string[];
  /** Short names for kubectl. */
  shortNames: string[];
  /** Categories (`kubectl get <category>`). */
  categories: string[];
}

/** llamas.farm.example.com. */
export const LLAMAS: FarmResource = {
  group: FARM_GROUP,
  version: FARM_VERSION,
  plural: "llamas",
  singular: "llama",
  kind: "Llama",
  listKind: "LlamaList",
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  shortNames: ["lm"],
  categories: ["kubeop"],
};

/** farmpods.farm.example.com (read-only). */
export const FARMPODS: FarmResource = {
  group: FARM_GROUP,
  version: FARM_VERSION,
  plural: "farmpods",
  singular: "farmpod",
  kind: "FarmPod",
  listKind: "FarmPodList",
  namespaced: true,
  verbs: ["get", "list", "watch"],
  shortNames: ["fp"],
  categories: ["kubeop"],
};

function positiveNumber(value: unknown, field: string, causes: StatusCause[]): void {
  if (value === undefined || value === null) {
    causes.push({ reason: "FieldValueRequired", message: "Required value", field });
  } else if (typeof value !== "number" || !Number.isFinite(value)) {
    causes.push({
      reason: "FieldValueTypeInvalid",
      message: `Invalid value: ${JSON.stringify(value)}: must be a number`,
      field,
    });
  } else if (value <= 0) {
    causes.push({ reason: "FieldValueInvalid", message: `Invalid value: ${value}: must be greater than 0`, field });
  }
}

/**
 * Checks a Llama as submitted (after defaulting kind/apiVersion/namespace) and returns the field errors, empty when
 * valid: a DNS-1123 subdomain name, and spec.weight / spec.height present, numeric and positive.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateLlama } from "./llama.ts";
 * const causes = validateLlama({ metadata: { name: "x" }, spec: { weight: 1 } });
 * assert.ok(causes[0].field === "spec.height");
 * ```
 */
export function validateLlama(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = obj.metadata?.name;
  if (!name) {
    causes.push({ reason: "FieldValueRequired", message: "Required value: name is required", field: "metadata.name" });
  } else if (dns1123SubdomainErrors(name).length) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(name)}: ${dns1123SubdomainErrors(name).join("; ")}`,
      field: "metadata.name",
    });
  }
  const spec = obj.spec;
  if (spec === undefined || spec === null) {
    causes.push({ reason: "FieldValueRequired", message: "Required value", field: "spec" });
    return causes;
  }
  if (typeof spec !== "object" || Array.isArray(spec)) {
    causes.push({ reason: "FieldValueTypeInvalid", message: "Invalid value: must be an object", field: "spec" });
    return causes;
  }
  positiveNumber((spec as Record<string, unknown>).weight, "spec.weight", causes);
  positiveNumber((spec as Record<string, unknown>).height, "spec.height", causes);
  for (const key of Object.keys(spec)) {
    if (key !== "weight" && key !== "height") {
      causes.push({
        reason: "FieldValueNotFound",
        message: `Unsupported field: ${JSON.stringify(key)}`,
        field: `spec.${key}`,
      });
    }
  }
  return causes;
}

/** The tutorial's llamas: `dolly` in `default` (weight 31.4, height 0.5). */
export function seedLlamas(): Array<Pick<Llama, "metadata" | "spec">> {
  return [{ metadata: { name: "dolly", namespace: "default" }, spec: { weight: 31.4, height: 0.5 } }];
}
