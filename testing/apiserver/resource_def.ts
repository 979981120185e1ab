/**
 * The fake API server's description of one served resource: enough to route requests, build discovery, OpenAPI and
 * Table output, and apply kube-apiserver's metadata rules. Built-in kinds are listed in builtin_resources.ts;
 * CRDs add definitions at run time.
 * @module
 */

/** One `additionalPrinterColumns` entry (apiextensions.k8s.io/v1 CustomResourceColumnDefinition). */
export interface PrintColumn {
  /** Column header. */
  name: string;
  /** OpenAPI type of the value. */
  type: "string" | "integer" | "number" | "boolean" | "date";
  /** JSONPath into the object, e.g. `.status.phase`. */
  jsonPath: string;
  /** OpenAPI format, e.g. date-time. */
  format?: string;
  /** Shown by `kubectl explain` and in Table column definitions. */
  description?: string;
  /** 0: shown by default; higher: only with `-o wide`. */
  priority?: number;
}

/** A JSON schema in the OpenAPI v3 dialect CRDs use (structural schema with x-kubernetes-* extensions). */
// deno-lint-ignore no-explicit-any
export type OpenApiSchema = Record<string, any>;

/** A served resource. */
export interface ResourceDef {
  /** "" for core. */
  group: string;
  /** API version, e.g. v1. */
  version: string;
  /** Plural, lower case: the URL segment. */
  plural: string;
  /** Lower-case singular name. */
  singular: string;
  /** Kind, e.g. ConfigMap. */
  kind: string;
  /** Kind of the list, e.g. ConfigMapList. */
  listKind: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
  /** Verbs served: get, list, watch, create, update, patch, delete, deletecollection. */
  verbs: string[];
  /** Short names for kubectl, e.g. cm. */
  shortNames?: string[];
  /** Categories for kubectl, e.g. all. */
  categories?: string[];
  /** Subresources served under `<name>/<sub>`: "status", "log", "binding", "scale", ... */
  subresources: string[];
  /** Table columns after NAME. Absent: Age only (CRD default) or the built-in printer's columns. */
  printColumns?: PrintColumn[];
  /** openAPIV3Schema for validation, defaulting, OpenAPI documents and explain. */
  schema?: OpenApiSchema;
  /** Whether metadata.generation tracks spec changes (false for Secret, ConfigMap, Namespace, ...). */
  tracksGeneration: boolean;
  /** True for resources added by a CustomResourceDefinition (merge/json/apply patches only; no strategic merge). */
  custom: boolean;
  /** A CRD version's selectableFields (JSONPaths such as `.spec.color`) usable in field selectors. */
  selectableFields?: string[];
  /** Stored and served but with no behaviour beyond CRUD (rbac, apps). */
  storedOnly?: boolean;
  /** A CRD version's `subresources.scale` paths (the replicas and selector its scale subresource reads and writes). */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** A deprecated version's `Warning` text, sent on every request to it (kube's CR handler). */
  deprecationWarning?: string;
}

/**
 * A namespaced, version v1 definition with the conventional names for `kind` (`foos`, `foo`, `FooList`), no verbs and
 * no subresources; `over` replaces any field. For tests of the pure modules (patches, tables, schema) that need a
 * definition without a registry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resourceDefFor } from "./resource_def.ts";
 * const deploy = resourceDefFor("apps", "Deployment", { subresources: ["status", "scale"] });
 * assert.ok(deploy.plural === "deployments" && deploy.listKind === "DeploymentList");
 * ```
 */
export function resourceDefFor(group: string, kind: string, over: Partial<ResourceDef> = {}): ResourceDef {
  return {
    group,
    version: "v1",
    plural: kind.toLowerCase() + "s",
    singular: kind.toLowerCase(),
    kind,
    listKind: kind + "List",
    namespaced: true,
    verbs: [],
    subresources: [],
    tracksGeneration: false,
    custom: false,
    ...over,
  };
}
