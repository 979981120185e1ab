/**
 * The fake API server's admission chain, in kube-apiserver's order: mutating admission runs on the request's object
 * before the resource strategy (defaulting, schema and built-in validation), validating admission after it, just
 * before storage. Hooks are plain functions; a hook may change `ctx.object` (mutating phase only, by convention) or
 * throw an ApiError to refuse the request. The built-in NamespaceLifecycle plugin is the first mutating hook.
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { ResourceDef } from "./resource_def.ts";
import { forbidden } from "./status_errors.ts";
import type { ObjectStore } from "./object_storage.ts";

/** What an admission hook sees; it may mutate `object` (mutating phase) or throw an ApiError. */
export interface AdmissionContext {
  /** The resource written. */
  def: ResourceDef;
  /** The write. */
  verb: "create" | "update";
  /** The object about to be stored; mutating hooks may change it. */
  object: KubeObject;
  /** The stored object, on updates. */
  old?: KubeObject;
  /** The subresource written (status, scale), if any. */
  subresource?: string;
  /** `fieldValidation` query parameter: Strict, Warn or Ignore. */
  fieldValidation?: string;
  /** Append texts here to send `Warning: 299 - "..."` headers. */
  warnings: string[];
  /** A dry run: a plugin keeps its own writes (quota usage) to itself. */
  dryRun?: boolean;
}

/** One admission plugin (or webhook call): mutate `ctx.object` or throw an ApiError. */
export type AdmissionHook = (ctx: AdmissionContext) => void;

/** What a delete's admission sees: the resource and the object's name and namespace ("" when cluster-scoped). */
export interface DeleteAdmissionContext {
  /** The resource deleted from. */
  def: ResourceDef;
  /** The object's namespace, "" for a cluster-scoped one. */
  namespace: string;
  /** The object's name. */
  name: string;
}

/** An admission plugin's check of a delete: throw an ApiError to refuse it. */
export type DeleteAdmissionHook = (ctx: DeleteAdmissionContext) => void;

/**
 * The two phases. Append to extend: `store.admission.validating.push(hook)`.
 *
 * @example
 * ```ts
 * import type { AdmissionChain } from "./admission.ts";
 * const chain: AdmissionChain = { mutating: [], validating: [], deleting: [] };
 * // Label every new object (mutating admission sees it before defaulting and validation).
 * chain.mutating.push((ctx) => {
 *   if (ctx.verb === "create") ctx.object.metadata.labels = { ...ctx.object.metadata.labels, admitted: "yes" };
 * });
 * ```
 */
export interface AdmissionChain {
  /** Run first, in order, on the object as the request sent it (after name checks). */
  readonly mutating: AdmissionHook[];
  /** Run last, in order, on the object as it will be stored (after the strategy's validation). */
  readonly validating: AdmissionHook[];
  /** Run on each delete, in order, before it is carried out. */
  readonly deleting: DeleteAdmissionHook[];
}

/** Runs hooks in order. */
export function runAdmission(hooks: readonly AdmissionHook[], ctx: AdmissionContext): void {
  for (const hook of hooks) hook(ctx);
}

/**
 * The NamespaceLifecycle admission plugin: a namespaced object may be created only in an existing namespace that is
 * not being terminated (404 NotFound / 403 Forbidden).
 */
export function namespaceLifecycle(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (ctx.verb !== "create" || !ctx.def.namespaced) return;
    const namespace = ctx.object.metadata.namespace!;
    const ns = objects.get("/namespaces", "", namespace);
    if (!ns) {
      throw new ApiError(
        failureStatus(404, "NotFound", `namespaces "${namespace}" not found`, { name: namespace, kind: "namespaces" }),
        { verb: "create", resource: "namespaces", name: namespace },
      );
    }
    if (ns.metadata.deletionTimestamp) {
      throw forbidden(
        ctx.def,
        ctx.object.metadata.name ?? "",
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        "create",
        [{
          reason: "NamespaceTerminating",
          message: `namespace ${namespace} is being terminated`,
          field: "metadata.namespace",
        }],
      );
    }
  };
}

/** The namespaces NamespaceLifecycle never lets go. */
const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(["default", "kube-system", "kube-public"]);

/** NamespaceLifecycle on a delete: `default`, `kube-system` and `kube-public` may not be deleted (403). */
export function namespaceDeletionLifecycle(): DeleteAdmissionHook {
  return (ctx) => {
    if (ctx.def.group === "" && ctx.def.plural === "namespaces" && IMMORTAL_NAMESPACES.has(ctx.name)) {
      throw forbidden(ctx.def, ctx.name, "this namespace may not be deleted", "delete");
    }
  };
}
