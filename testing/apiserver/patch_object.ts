/**
 * PATCH through the fake store, synchronously: the patch flavours kube-apiserver serves (JSON merge patch, JSON patch,
 * strategic merge patch, server-side apply) applied to the stored object and committed by {@link FakeStore.update}
 * (or {@link FakeStore.create} when an apply names a missing object), so a patch passes the same strategy and
 * admission chain as any write. The HTTP layer (http_resources.ts) and the unit-test client (fake_client.ts) both
 * patch through here.
 * @module
 */
import type { PatchType } from "../../runtime/client/client.ts";
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore, WriteOptions } from "./commit_path.ts";
import { goTypeError } from "./go_json_types.ts";
import { sortedJson } from "./go_marshal.ts";
import { appliedUnknownFieldsError, patchedUnknownFields } from "./patch_unknown.ts";
import { requireObject } from "./http_body.ts";
import { rfc3339 } from "./object_rules.ts";
import { serverSideApply } from "./patch/apply.ts";
import { servedIn } from "./commit_managed_fields.ts";
import { applyJsonPatch } from "./patch/json_patch.ts";
import { patchedJson } from "./patch/patched_json.ts";
import { applyStrategicMergePatch, goValue } from "./patch/strategic.ts";
import { applyMergePatch } from "../../runtime/apimachinery/merge_patch.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { WrittenSubresource } from "./strategy.ts";
import { badRequest, notFound, unsupportedMediaType } from "./status_errors.ts";

/** The Content-Type of each patch flavour. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

/**
 * The patch flavour of a Content-Type `def` serves; 415 UnsupportedMediaType for other types (for a built-in, go-restful's
 * `415: Unsupported Media Type`), and for strategic merge patches of custom resources (kube-apiserver serves those only
 * merge, JSON and apply patches).
 */
export function servedPatchType(def: Pick<ResourceDef, "custom">, contentType: string): PatchType {
  const types = (Object.keys(PATCH_CONTENT_TYPES) as PatchType[]).filter((t) => !(def.custom && t === "strategic"));
  const type = types.find((t) => PATCH_CONTENT_TYPES[t] === contentType);
  if (!type && !def.custom) {
    // go-restful refuses a Content-Type no PATCH route consumes before any handler runs, in its own words.
    throw new ApiError(
      failureStatus(415, "UnsupportedMediaType", "415: Unsupported Media Type", {}),
      { verb: "patch" },
    );
  }
  if (!type) throw unsupportedMediaType(types.map((t) => PATCH_CONTENT_TYPES[t]));
  return type;
}

/** Options of {@link patchObject} (the PATCH request's query and path). */
export interface PatchObjectOptions {
  /** Which flavour the patch is. */
  type: PatchType;
  namespace?: string;
  subresource?: WrittenSubresource;
  /** Records the write in managedFields under this manager; required for apply (422 without). */
  fieldManager?: string;
  /** Server-side apply: take over conflicting fields. */
  force?: boolean;
  dryRun?: boolean;
  /** `fieldValidation` query parameter: Strict, Warn or Ignore. */
  fieldValidation?: string;
  /** Collects warnings for `Warning` response headers. */
  warnings?: string[];
  /** The request's own admission steps (webhooks), passed to the write (see {@link WriteOptions.admission}). */
  admission?: WriteOptions["admission"];
  /** Whom the write is made for (see {@link WriteOptions.user}). */
  user?: WriteOptions["user"];
}

/** What a patch did: the object as stored (and served) and whether an apply created it. */
export interface PatchResult {
  object: KubeObject;
  created: boolean;
}

/**
 * Applies `patch` to the object `name` of `def` and commits the result through the store. Errors are the ApiErrors
 * kube-apiserver answers: 404 for a missing object (apply creates it unless it targets status), 415 for a strategic
 * merge patch of a custom resource, 422 for an apply without fieldManager, 409 for a stale resourceVersion in the
 * patch, and whatever the strategy and admission refuse.
 *
 * @example
 * ```ts
 * import { FakeStore } from "./commit_path.ts";
 * import { ObjectStore } from "./object_storage.ts";
 * import { ResourceRegistry } from "./registry.ts";
 * import { VirtualClock } from "../../runtime/clock.ts";
 * import { patchObject } from "./patch_object.ts";
 * const store = new FakeStore({ registry: new ResourceRegistry(), objects: new ObjectStore(), clock: new VirtualClock() });
 * const namespaces = store.def({ group: "", version: "v1", plural: "namespaces" });
 * store.create(namespaces, { metadata: { name: "team-a" } });
 * const { object } = patchObject(store, namespaces, "team-a", { metadata: { labels: { team: "a" } } }, { type: "merge" });
 * console.assert(object.metadata.labels?.team === "a");
 * ```
 */
export function patchObject(
  store: FakeStore,
  def: ResourceDef,
  name: string,
  patch: unknown,
  opts: PatchObjectOptions,
): PatchResult {
  const { namespace, dryRun, type } = opts;
  servedPatchType(def, PATCH_CONTENT_TYPES[type]);
  const warnings = opts.warnings ?? [];
  const status = opts.subresource;
  const stored = store.peek(def, namespace, name);
  const current = stored ? store.get(def, name, { namespace }) : undefined;
  if (type === "apply") {
    const fieldManager = opts.fieldManager;
    if (!fieldManager) throw applyNeedsFieldManager(name);
    const sentMeta = isObject(patch) ? (patch as Record<string, unknown>).metadata : undefined;
    const sentNamespace = isObject(sentMeta) ? (sentMeta as Record<string, unknown>).namespace : undefined;
    const applied = checkApplyBody(def, name, namespace, patch);
    const unknown = appliedUnknownFieldsError(
      def,
      applied,
      typeof sentNamespace === "string" ? sentNamespace : "",
      name,
    );
    if (unknown) throw unknown;
    if (!current && status) throw notFound(def, name, "patch");
    const merged = serverSideApply(current, applied, {
      fieldManager,
      force: opts.force ?? false,
      nowIso: rfc3339(store.clock.now()),
      def,
      subresource: status,
      inVersion: (apiVersion, obj) => servedIn(store, def, obj, apiVersion),
    });
    const writeOpts = {
      namespace,
      name,
      dryRun,
      fieldValidation: opts.fieldValidation,
      warnings,
      admission: opts.admission,
      user: opts.user,
    };
    if (!current) return { object: store.create(def, merged, writeOpts), created: true };
    merged.metadata.resourceVersion = current.metadata.resourceVersion;
    return { object: store.update(def, merged, { ...writeOpts, subresource: status }), created: false };
  }
  if (!current) throw notFound(def, name, "patch");
  let next: unknown;
  switch (type) {
    case "json":
      next = applyJsonPatch(current, patch);
      break;
    case "strategic":
      next = applyStrategicMergePatch(current, patchMap(patch, ""), def);
      break;
    default:
      next = applyMergePatch(current, patchMap(patch, "error decoding patch: "));
  }
  const obj = requireObject(next, "patch") as KubeObject;
  const typeError = def.custom ? undefined : goTypeError(def.group, def.version, def.kind, obj);
  // kube prints a strategic merge patch's refused object as the patch map (`%+v`), the others' as patched JSON.
  // A custom resource's patched JSON is an unstructured map's: every key sorted.
  const refused = () =>
    type === "strategic" ? goValue(patch) : def.custom ? sortedJson(obj) : patchedJson(obj, patch, type);
  if (typeError) throw patchedUndecodable(refused(), typeError);
  const strictError = patchedUnknownFields(def, obj, opts.fieldValidation, warnings);
  if (strictError) throw patchedUndecodable(refused(), strictError);
  obj.metadata = isObject(obj.metadata) ? obj.metadata : {};
  if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = current.metadata.resourceVersion;
  const updated = store.update(def, obj, {
    namespace,
    name,
    patched: true,
    subresource: status,
    dryRun,
    fieldManager: opts.fieldManager,
    fieldValidation: opts.fieldValidation,
    warnings,
    admission: opts.admission,
    user: opts.user,
  });
  return { object: updated, created: false };
}

/**
 * kube's answer when the patched object does not decode into its Go type: 422 `"" is invalid: patch: Invalid value:
 * "<the patched object: patch/patched_json.ts; a strategic merge patch: the patch as Go prints a map>": json: cannot
 * unmarshal ...` (or `strict decoding error: ...`).
 */
function patchedUndecodable(json: string, why: string): ApiError {
  const message = `Invalid value: ${JSON.stringify(json)}: ${why}`;
  return new ApiError(
    failureStatus(422, "Invalid", ` "" is invalid: patch: ${message}`, {
      causes: [{ reason: "FieldValueInvalid", message, field: "patch" }],
    }),
    { verb: "patch" },
  );
}

/**
 * The applied object as kube's field manager and REST checks see it (versioncheck.go, structuredmerge.go,
 * rest.go checkName, rest/meta.go): 400 for a body that is not an object, a group/version/kind other than the
 * resource's, managedFields in the body, no name or another name than the URL's, another namespace than the URL's.
 */
function checkApplyBody(def: ResourceDef, name: string, namespace: string | undefined, patch: unknown): KubeObject {
  if (!isObject(patch)) {
    const got = Array.isArray(patch) ? "array" : patch === null ? "null" : typeof patch;
    throw badRequest(
      "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal " +
        `${got} into Go value of type map[string]interface {}`,
      "patch",
    );
  }
  const applied = patch as unknown as KubeObject;
  const apiVersion = typeof applied.apiVersion === "string" ? applied.apiVersion : "";
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
  const kind = typeof applied.kind === "string" ? applied.kind : "";
  if (group !== def.group || version !== def.version || kind !== def.kind) {
    throw badRequest(`invalid object type: ${group}/${version}, Kind=${kind}`, "patch");
  }
  const meta: Record<string, unknown> = isObject(applied.metadata) ? applied.metadata : {};
  if (meta.managedFields !== undefined && meta.managedFields !== null) {
    throw badRequest("metadata.managedFields must be nil", "patch");
  }
  if (typeof meta.name !== "string" || meta.name === "") {
    throw badRequest(
      `the name of the object (${name} based on URL) was undeterminable: name must be provided`,
      "patch",
    );
  }
  if (meta.name !== name) {
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`, "patch");
  }
  if (def.namespaced && typeof meta.namespace === "string" && meta.namespace && meta.namespace !== namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request", "patch");
  }
  applied.metadata = { ...meta, name } as KubeObject["metadata"];
  if (def.namespaced) applied.metadata.namespace = namespace;
  return applied;
}

/** A merge or strategic merge patch must be a JSON object (kube's decode error otherwise). */
function patchMap(patch: unknown, prefix: string): Record<string, unknown> {
  if (isObject(patch)) return patch;
  const got = Array.isArray(patch) ? "array" : patch === null ? "null" : typeof patch;
  throw badRequest(`${prefix}json: cannot unmarshal ${got} into Go value of type map[string]interface {}`, "patch");
}

function applyNeedsFieldManager(name: string): ApiError {
  return new ApiError(
    failureStatus(
      422,
      "Invalid",
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      {
        causes: [{
          reason: "FieldValueRequired",
          message: "Required value: is required for apply patch",
          field: "fieldManager",
        }],
      },
    ),
    { verb: "patch", name },
  );
}

function isObject(v: unknown): v is Record<string, never> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
