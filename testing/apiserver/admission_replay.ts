/**
 * Admission webhooks and policies for the synchronous store: a write through HTTP is replayed around the calls it
 * must wait for. The write runs with the request's own admission steps (WriteOptions.admission); the first time a
 * phase is reached, the write stops there (nothing is stored), the webhooks of that phase are awaited, and the write
 * runs again from the start with their answer — the mutating step checks that it sees the same input (same object,
 * same stored resourceVersion) before substituting the mutated object; the validating step then substitutes the
 * object the validating webhooks approved. If the stored object changed meanwhile, the webhooks are called again on
 * the new input, as kube-apiserver re-runs admission when its optimistic update retries. Warnings of the final run
 * (decoding, strategy) and of the webhooks are returned in the order kube gives them.
 * @module
 */
import type { AdmissionOperation } from "../../runtime/webhook/review_types.ts";
import { type AdmissionAttributes, isExemptFromAdmission } from "./admission_match.ts";
import type { AdmissionContext, AdmissionHook } from "./admission.ts";
import { hasPolicies, runValidatingPolicies } from "./admission_policy.ts";
import { hasWebhooks, runMutatingWebhooks, runValidatingWebhooks } from "./admission_webhooks.ts";
import type { FakeStore } from "./commit_path.ts";
import { jsonEqual } from "./object_rules.ts";
import type { UserInfo } from "./rbac_authorizer.ts";
import type { ResourceDef } from "./resource_def.ts";
import { internalError } from "./status_errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** The request around a write: who, how, and its options. */
export interface AdmissionRequestInfo {
  store: FakeStore;
  /** The resource as the request addressed it. */
  def: ResourceDef;
  subresource?: string;
  user: UserInfo;
  dryRun: boolean;
  /** The query's fieldManager and fieldValidation (copied into the options webhooks see). */
  fieldManager?: string;
  fieldValidation?: string;
}

/** The request's admission steps, for {@link WriteOptions.admission}. */
export type RequestAdmission = Partial<Record<"mutating" | "validating", AdmissionHook>>;

/** Stops a write at an admission phase whose webhooks must be awaited. */
class Suspended {
  constructor(readonly phase: "mutating" | "validating", readonly ctx: AdmissionContext) {}
}

/** Whether a write of `def` needs the webhook machinery at all (any configuration or binding stored). */
export function needsExternalAdmission(store: FakeStore, def: ResourceDef): boolean {
  return !isExemptFromAdmission(def) && (hasWebhooks(store) || hasPolicies(store));
}

function optionsFor(info: AdmissionRequestInfo, operation: AdmissionOperation): Record<string, unknown> {
  const kind = operation === "CREATE" ? "CreateOptions" : operation === "UPDATE" ? "UpdateOptions" : "DeleteOptions";
  return {
    kind,
    apiVersion: "meta.k8s.io/v1",
    ...(info.dryRun ? { dryRun: ["All"] } : {}),
    ...(info.fieldManager && operation !== "DELETE" ? { fieldManager: info.fieldManager } : {}),
    ...(info.fieldValidation && operation !== "DELETE" ? { fieldValidation: info.fieldValidation } : {}),
  };
}

/** The attributes webhooks and policies see for a write at an admission step (objects in the request's version). */
function attributesOf(info: AdmissionRequestInfo, ctx: AdmissionContext): AdmissionAttributes {
  const { store, def } = info;
  const operation: AdmissionOperation = ctx.verb === "create" ? "CREATE" : "UPDATE";
  return {
    operation,
    def,
    subresource: info.subresource ?? "",
    namespace: def.namespaced ? String(ctx.object.metadata.namespace ?? "") : "",
    name: String(ctx.object.metadata.name ?? ""),
    object: copyJson(store.present(def, ctx.object)),
    oldObject: ctx.old ? copyJson(store.present(def, ctx.old)) : null,
    dryRun: info.dryRun,
    options: optionsFor(info, operation),
    userInfo: userInfoOf(info.user),
  };
}

function userInfoOf(user: UserInfo): AdmissionAttributes["userInfo"] {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra ? { extra: user.extra } : {}),
  };
}

/** Whether two runs reached the mutating step with the same object (managedFields' timestamps aside). */
function sameInput(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
  return jsonEqual(strip(a), strip(b));
}

/** The stored form of an object the webhooks answered in the request's version. */
function toStored(info: AdmissionRequestInfo, before: KubeObject, served: KubeObject): KubeObject {
  const conversion = info.store.strategies.for(info.def).conversion;
  const out = conversion ? conversion.toStorage(served) : served;
  out.apiVersion = before.apiVersion;
  out.kind = before.kind;
  if (out.apiVersion === undefined) delete out.apiVersion;
  if (out.kind === undefined) delete out.kind;
  return out;
}

/**
 * Runs `write` (a store call given the request's admission steps and a fresh warnings list) until it completes with
 * every webhook and policy answered; returns its result and appends the warnings to `warnings`.
 */
export async function writeWithAdmission<T>(
  info: AdmissionRequestInfo,
  warnings: string[],
  write: (admission: RequestAdmission | undefined, warnings: string[]) => T,
): Promise<T> {
  if (!needsExternalAdmission(info.store, info.def)) return write(undefined, warnings);
  type Mutation = { input: KubeObject; oldRv?: string; output: KubeObject; warnings: string[] };
  let mutation: Mutation | undefined;
  let validation: { of: Mutation; object: KubeObject; warnings: string[] } | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    let hit: Mutation | undefined;
    const run: string[] = [];
    try {
      const out = write({
        mutating: (ctx) => {
          const oldRv = ctx.old?.metadata.resourceVersion;
          if (mutation && mutation.oldRv === oldRv && sameInput(mutation.input, ctx.object)) {
            hit = mutation;
            const managedFields = ctx.object.metadata.managedFields;
            ctx.object = copyJson(mutation.output);
            // An apply stamps managedFields with the time of each run: this run's are the ones to keep.
            if (managedFields === undefined) delete ctx.object.metadata.managedFields;
            else ctx.object.metadata.managedFields = managedFields;
            ctx.warnings.push(...mutation.warnings);
            return;
          }
          throw new Suspended("mutating", { ...ctx, object: copyJson(ctx.object) });
        },
        validating: (ctx) => {
          if (hit && validation?.of === hit) {
            ctx.object = copyJson(validation.object);
            ctx.warnings.push(...validation.warnings);
            return;
          }
          throw new Suspended("validating", { ...ctx, object: copyJson(ctx.object) });
        },
      }, run);
      warnings.push(...run);
      return out;
    } catch (err) {
      if (!(err instanceof Suspended)) throw err;
      const ctx = err.ctx;
      const attrs = attributesOf(info, ctx);
      const hookWarnings: string[] = [];
      if (err.phase === "mutating") {
        const mutated = await runMutatingWebhooks(info.store, attrs, hookWarnings);
        mutation = {
          input: ctx.object,
          oldRv: ctx.old?.metadata.resourceVersion,
          output: mutated ? toStored(info, ctx.object, mutated) : ctx.object,
          warnings: hookWarnings,
        };
      } else {
        runValidatingPolicies(info.store, attrs, hookWarnings);
        await runValidatingWebhooks(info.store, attrs, hookWarnings);
        validation = { of: hit!, object: ctx.object, warnings: hookWarnings };
      }
    }
  }
  throw internalError("admission did not settle: the object kept changing while webhooks were called", "create");
}

/**
 * Admission of a DELETE: mutating webhooks (which cannot change anything), then policies and validating webhooks,
 * with `oldObject` the object as stored and DeleteOptions as options.
 */
export async function admitDelete(
  info: AdmissionRequestInfo,
  namespace: string | undefined,
  name: string,
  options: Record<string, unknown>,
  warnings: string[],
): Promise<void> {
  const { store, def } = info;
  if (!needsExternalAdmission(store, def)) return;
  const stored = store.peek(def, namespace, name);
  if (!stored) return;
  const attrs: AdmissionAttributes = {
    operation: "DELETE",
    def,
    subresource: "",
    namespace: def.namespaced ? namespace ?? "" : "",
    name,
    object: null,
    oldObject: copyJson(store.present(def, stored)),
    dryRun: info.dryRun,
    options: { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1", ...options },
    userInfo: userInfoOf(info.user),
  };
  await runMutatingWebhooks(store, attrs, warnings);
  runValidatingPolicies(store, attrs, warnings);
  await runValidatingWebhooks(store, attrs, warnings);
}
