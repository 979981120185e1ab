/**
 * The resource endpoints: `[/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]` under `/api/v1` and
 * `/apis/{group}/{version}` — get, list, watch, create, update, patch, delete, deletecollection.
 * @module
 */
import { requestVerb } from "../../runtime/apimachinery/verbs.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { decodeBody, decodeObjectBody, decodePatchBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { negotiateShape, shapeList, shapeObject, typedListItems } from "./http_negotiation.ts";
import { patchObject, servedPatchType } from "./patch_object.ts";
import type { ResourceDef } from "./resource_def.ts";
import { jsonResponse, objectSubresource, type ResourceRoute } from "./http_route.ts";
import { type DeleteOptions, type FakeStore, parseRv, type WriteOptions } from "./commit_path.ts";
import { defaultPolicyWarnings } from "./commit_delete.ts";
import { duplicateJsonFields, strictJsonFieldErrors } from "./json_duplicates.ts";
import { dropUnknownGoFields, strictFieldPath } from "./go_json_unknown.ts";
import { customResourceStrictErrors } from "./custom_resource_decoding.ts";
import { badRequest, methodNotAllowed, noSuchResource, tooLargeResourceVersion } from "./status_errors.ts";
import type { WatchHub } from "./watch_hub.ts";
import { openWatch, sharded } from "./http_watch_open.ts";
import { parseListQuery, shardSelectorParam } from "./list_options.ts";
import { selectRecords } from "./list.ts";
import { listJsonResponse } from "./list_json.ts";
import type { FeatureGates } from "./feature_gates.ts";
import { checkDeleteOptions, checkWriteOptions } from "./validation/request_options.ts";
import {
  type AdmissionRequestInfo,
  admitDelete,
  needsExternalAdmission,
  writeWithAdmission,
} from "./admission_replay.ts";
import { ADMIN_USER } from "./authn.ts";
import { admittedWrite, fieldManagerOf } from "./http_write_options.ts";
import { generateName } from "./object_rules.ts";
import type { UserInfo } from "./rbac_authorizer.ts";
import { type ConversionWebhook, conversionWebhookOf } from "./crd_conversion_webhook.ts";
import {
  convertWatchBody,
  listConverted,
  listStored,
  patchConverted,
  readConverted,
  storageDefOf,
  writeConverted,
} from "./http_crd_conversion.ts";

export { jsonResponse, type ResourceRoute };

/** What the resource handlers need from the server. */
export interface ResourceContext {
  store: FakeStore;
  hub: WatchHub;
  clock: Clock;
  bookmarkIntervalMs: number;
  /** The kube-apiserver feature gates the fake implements (absent: v1.37's defaults). */
  features?: Readonly<FeatureGates>;
  /** Extra subresource handlers (`pods/log`, `pods/binding`, ...), keyed `group/plural/sub` (CRDs: `*` for group and plural). */
  subresources: Map<string, (req: Request, route: ResourceRoute, url: URL) => Promise<Response>>;
}

const truthy = (v: string | null): boolean => v === "true" || v === "1";

/** The Kubernetes verb of a request (runtime/apimachinery/verbs.ts). */
export function verbOf(method: string, route: ResourceRoute, url: URL): string {
  // The deprecated /watch/ paths are watches whatever the query says.
  if (route.watch && (method === "GET" || method === "HEAD")) return "watch";
  return requestVerb(method, Boolean(route.name), url.searchParams);
}

/** Serves one resource request for `user` (whom admission webhooks and policies are told about). */
export async function handleResource(
  req: Request,
  url: URL,
  route: ResourceRoute,
  ctx: ResourceContext,
  user: UserInfo = ADMIN_USER,
): Promise<Response> {
  const { def, namespace, name, subresource } = route;
  const q = url.searchParams;
  const verb = verbOf(req.method, route, url);
  const written = objectSubresource(route, verb); // status; a Pod's ephemeralcontainers, resize
  if (subresource && !written) {
    const handler = ctx.subresources.get(`${def.group}/${def.plural}/${subresource}`) ??
      (def.custom ? ctx.subresources.get(`*/*/${subresource}`) : undefined);
    if (!handler || !def.subresources.includes(subresource)) throw noSuchResource(verb);
    return await handler(req, route, url);
  }
  // A collection serves no PUT or PATCH (kube registers neither route).
  if (!name && (verb === "update" || verb === "patch")) throw methodNotAllowed(def, verb);
  if (!def.verbs.includes(verb) && !(verb === "watch" && def.verbs.includes("list"))) throw methodNotAllowed(def, verb);
  const shape = negotiateShape(req.headers.get("accept"), { managedFieldsOptOut: ctx.features?.ManagedFieldsOptOut });
  const includeObject = q.get("includeObject") ?? undefined;
  const now = ctx.clock.now();
  checkWriteOptions(verb, q, verb === "patch" ? mediaType(req.headers.get("content-type")) : undefined);
  const dryRun = q.getAll("dryRun").includes("All");
  // A CRD converting through a webhook: reads converted from the stored versions, writes to the storage version.
  const converting = def.custom ? conversionWebhookOf(ctx.store, def) : undefined;
  const translated = converting !== undefined && storageDefOf(ctx.store, def, converting) !== def;
  const admission: AdmissionRequestInfo = {
    store: ctx.store,
    def,
    subresource,
    user,
    dryRun,
    fieldManager: q.get("fieldManager") ?? undefined,
    fieldValidation: q.get("fieldValidation") ?? undefined,
  };
  switch (verb) {
    case "get": {
      const rvParam = q.get("resourceVersion");
      if (rvParam && rvParam !== "0") {
        // Served from the watch cache at least as new as asked: one the store has not reached times out (504).
        const rv = parseRv(rvParam, "get");
        if (rv > ctx.store.objects.rv) throw tooLargeResourceVersion(rv, ctx.store.objects.rv, "get");
      }
      let obj = ctx.store.get(def, name!, { namespace });
      if (converting) {
        obj = await readConverted(ctx.store, def, converting, ctx.store.peek(def, namespace, name!)!, true);
      }
      return jsonResponse(200, shapeObject(shape, def, obj, now, includeObject));
    }
    case "list": {
      const opts = parseListQuery(q, false);
      const rv = opts.resourceVersion;
      if (opts.continue && rv && rv !== "0") {
        throw badRequest("specifying resource version is not allowed when using continue", "list");
      }
      const listOptions = {
        namespace,
        labelSelector: q.get("labelSelector") ?? undefined,
        fieldSelector: q.get("fieldSelector") ?? undefined,
        // resourceVersion=0 is served whole from the watch cache: the cacher ignores limit (computeListLimit).
        limit: rv === "0" ? undefined : opts.limit || undefined,
        continue: opts.continue || undefined,
        resourceVersion: rv || undefined,
        // A limit with a non-zero resourceVersion and no match is the legacy exact read (etcd3 GetList).
        resourceVersionMatch: opts.resourceVersionMatch ||
          (rv && rv !== "0" && opts.limit && opts.limit > 0 ? "Exact" : undefined),
        shardSelector: shardSelectorParam(q, sharded(ctx), "list"),
      };
      if (
        !converting && shape.as === "object" && !shape.dropManagedFields && !ctx.store.strategies.for(def).conversion
      ) {
        // Served as stored: the items' stored JSON, not parsed and serialised again.
        const selected = selectRecords(ctx.store.objects, def, listOptions, { fieldSelector: (s) => s });
        return listJsonResponse(def, selected, (o) => ctx.store.present(def, o));
      }
      const served = converting
        ? await listConverted(ctx.store, def, converting, listStored(ctx.store, def, listOptions))
        : ctx.store.listShared(def, listOptions);
      return jsonResponse(200, shapeList(shape, def, served, now, includeObject));
    }
    case "watch": {
      const res = openWatch(url, route, ctx, shape, parseListQuery(q, true), includeObject, converting !== undefined);
      if (!converting || shape.as !== "object" || !res.body) return res;
      return new Response(convertWatchBody(res.body, ctx.store, def, converting), res);
    }
    case "create": {
      if (name) throw methodNotAllowed(def, "create");
      const { body, duplicateFields, strictErrors } = await readObject(
        req,
        route.def,
        verb,
        q.get("fieldValidation") ?? undefined,
      );
      const warnings: string[] = [];
      const meta = body.metadata as KubeObject["metadata"] | undefined;
      // Webhooks are awaited between replays of the write: the generated name must not change between them.
      if (meta?.generateName && !meta.name && needsExternalAdmission(ctx.store, def)) {
        meta.name = generateName(String(meta.generateName));
      }
      const create = admittedWrite(
        { req, q, admission, warnings },
        (target, sent, options) =>
          ctx.store.create(target, sent, { namespace, dryRun, duplicateFields, strictErrors, ...options }),
      );
      const created = translated
        ? await writeConverted(ctx.store, def, converting, body as KubeObject, create)
        : await create(def, body as KubeObject);
      return jsonResponse(201, shapeObject(shape, def, created, now), warningHeaders(warnings));
    }
    case "update": {
      const { body, duplicateFields, strictErrors } = await readObject(
        req,
        route.def,
        verb,
        q.get("fieldValidation") ?? undefined,
      );
      const existed = ctx.store.peek(def, namespace, name!) !== undefined;
      const warnings: string[] = [];
      const update = admittedUpdate({ req, q, admission, warnings }, ctx.store, route, {
        duplicateFields,
        strictErrors,
      });
      const updated = translated
        ? await writeConverted(ctx.store, def, converting, body as KubeObject, update)
        : await update(def, body as KubeObject);
      return jsonResponse(existed ? 200 : 201, shapeObject(shape, def, updated, now), warningHeaders(warnings));
    }
    case "patch":
      if (translated) return await handleConvertedPatch(req, url, route, ctx, admission, shape, converting);
      return await handlePatch(req, url, route, ctx, admission, shape);
    case "delete": {
      const opts = await readDeleteOptions(req, q, verb);
      const warnings = defaultPolicyWarnings(ctx.store.strategies.for(def), opts);
      await admitDelete({ ...admission, dryRun: opts.dryRun }, namespace, name!, deleteOptionsOf(opts), warnings);
      const { object, deleted } = ctx.store.deleteWithOutcome(def, name!, { ...opts, namespace });
      // kube-apiserver answers 202 only when orphanDependents=false was sent and the object is still there.
      const status = !deleted && opts.orphanDependents === false ? 202 : 200;
      if (deleted && !ctx.store.strategies.for(def).returnDeletedObject) {
        return jsonResponse(status, deletedStatus(def, object), warningHeaders(warnings));
      }
      return jsonResponse(status, object, warningHeaders(warnings));
    }
    case "deletecollection": {
      parseListQuery(q, false, verb);
      const opts = await readDeleteOptions(req, q, verb);
      // kube's DeleteCollection lists through the same ListPredicate, shard selector included.
      const list = ctx.store.listShared(def, {
        namespace,
        labelSelector: q.get("labelSelector") ?? undefined,
        fieldSelector: q.get("fieldSelector") ?? undefined,
        shardSelector: shardSelectorParam(q, sharded(ctx), verb),
      });
      const warnings = defaultPolicyWarnings(ctx.store.strategies.for(def), opts);
      const where = { ...admission, dryRun: opts.dryRun };
      for (const o of list.items) {
        await admitDelete(where, o.metadata.namespace, o.metadata.name!, deleteOptionsOf(opts), warnings);
        ctx.store.delete(def, o.metadata.name!, { ...opts, namespace: o.metadata.namespace });
      }
      return jsonResponse(200, typedListItems(def, list), warningHeaders(warnings)); // the items as listed before
    }
  }
  throw methodNotAllowed(def, verb);
}

/** A PUT of `sent` as `target` at the route's name (and status subresource) through admission. */
function admittedUpdate(
  call: Parameters<typeof admittedWrite>[0],
  store: FakeStore,
  route: ResourceRoute,
  strict: Pick<WriteOptions, "duplicateFields" | "strictErrors"> = {},
): (target: ResourceDef, sent: KubeObject) => Promise<KubeObject> {
  const { namespace, name } = route;
  return admittedWrite(call, (target, sent, options) =>
    store.update(target, sent, {
      namespace,
      name,
      subresource: objectSubresource(route, "get"),
      dryRun: call.admission.dryRun,
      ...strict,
      ...options,
    }));
}

function warningHeaders(warnings: string[]): Record<string, string> {
  if (warnings.length === 0) return {};
  return { warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ") };
}

/**
 * The body of a create or update, the duplicate keys of a JSON body, and for a built-in's JSON body its strict
 * decoding errors in document order (duplicates and the unknown fields, dropped from `body` here as kube's decoder
 * drops them).
 */
async function readObject(
  req: Request,
  def: ResourceDef,
  verb: "create" | "update",
  fieldValidation: string | undefined,
): Promise<{ body: Record<string, unknown>; duplicateFields: string[]; strictErrors?: string[] }> {
  const bytes = await readBody(req);
  const contentType = mediaType(req.headers.get("content-type"));
  const body = decodeObjectBody(bytes, contentType, def, verb);
  const json = contentType === "application/json" || contentType === "*/*" || contentType === "";
  if (!json) return { body, duplicateFields: [] };
  const text = new TextDecoder().decode(bytes);
  if (def.custom) return { body, ...customResourceStrictErrors(def, body, text, verb, fieldValidation) };
  // Decoded as the Go type the body names (as decodeObjectBody type-checks it), else the URL's.
  const [group, version] = typeof body.apiVersion === "string" && body.apiVersion
    ? (body.apiVersion.includes("/") ? body.apiVersion.split("/", 2) : ["", body.apiVersion])
    : [def.group, def.version];
  const kind = typeof body.kind === "string" && body.kind ? body.kind : def.kind;
  const unknown = dropUnknownGoFields(group, version, kind, body).map(strictFieldPath);
  const strictErrors = strictJsonFieldErrors(text, new Set(unknown));
  return { body, duplicateFields: duplicateJsonFields(text), strictErrors };
}

/** The DeleteOptions admission webhooks see (meta.k8s.io/v1 fields that were set). */
function deleteOptionsOf(opts: Awaited<ReturnType<typeof readDeleteOptions>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (opts.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.preconditions) out.preconditions = opts.preconditions;
  if (opts.orphanDependents !== undefined) out.orphanDependents = opts.orphanDependents;
  if (opts.propagationPolicy) out.propagationPolicy = opts.propagationPolicy;
  if (opts.dryRun) out.dryRun = ["All"];
  return out;
}

/** kube's answer to a DELETE that removed the object at once (unless the resource returns deleted objects). */
function deletedStatus(def: ResourceDef, obj: KubeObject): Record<string, unknown> {
  const details: Record<string, unknown> = { name: obj.metadata.name };
  if (def.group) details.group = def.group;
  details.kind = def.plural;
  details.uid = obj.metadata.uid;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}

async function readDeleteOptions(
  req: Request,
  q: URLSearchParams,
  verb: string,
): Promise<DeleteOptions & { orphanDependents?: boolean; dryRun: boolean }> {
  const bytes = await readBody(req);
  // kube reads DeleteOptions from the body when there is one, else from the query (never both).
  let opts: Record<string, unknown>;
  let dryRun: string[];
  if (bytes.byteLength > 0) {
    opts = requireObject(decodeBody(bytes, mediaType(req.headers.get("content-type")), "delete"), "delete");
    dryRun = Array.isArray(opts.dryRun) ? opts.dryRun.map(String) : [];
  } else {
    opts = Object.fromEntries(q.entries());
    dryRun = q.getAll("dryRun");
  }
  const policy = (opts.propagationPolicy ?? undefined) as string | undefined;
  const orphanParam = opts.orphanDependents;
  const orphanDependents = orphanParam === undefined || orphanParam === null
    ? undefined
    : orphanParam === true || orphanParam === "true";
  checkDeleteOptions(verb, { dryRun, propagationPolicy: policy, orphanDependents });
  const orphan = orphanDependents === true;
  const graceParam = opts.gracePeriodSeconds;
  const gracePeriodSeconds = graceParam === undefined || graceParam === null ? undefined : Number(graceParam);
  if (gracePeriodSeconds !== undefined && !Number.isInteger(gracePeriodSeconds)) {
    throw badRequest(`gracePeriodSeconds: invalid value ${JSON.stringify(graceParam)}`, "delete");
  }
  return {
    propagationPolicy: (policy ?? (orphan ? "Orphan" : undefined)) as DeleteOptions["propagationPolicy"],
    preconditions: opts.preconditions as DeleteOptions["preconditions"],
    gracePeriodSeconds,
    orphanDependents,
    dryRun: dryRun.includes("All"),
  };
}

async function handlePatch(
  req: Request,
  url: URL,
  route: ResourceRoute,
  ctx: ResourceContext,
  admission: AdmissionRequestInfo,
  shape: ReturnType<typeof negotiateShape>,
): Promise<Response> {
  const { def, namespace, name } = route;
  const dryRun = admission.dryRun;
  const q = url.searchParams;
  const contentType = mediaType(req.headers.get("content-type"));
  const type = servedPatchType(def, contentType);
  const patch = decodePatchBody(await readBody(req), contentType);
  const warnings: string[] = [];
  const apply = type === "apply";
  const { object, created } = await writeWithAdmission(
    admission,
    warnings,
    (steps, w) =>
      patchObject(ctx.store, def, name!, patch, {
        type,
        namespace,
        subresource: objectSubresource(route, "get"),
        dryRun,
        // Apply records its own managedFields (operation Apply) and needs an explicit manager.
        fieldManager: apply ? q.get("fieldManager") ?? undefined : fieldManagerOf(req, q),
        force: truthy(q.get("force")),
        fieldValidation: q.get("fieldValidation") ?? "Warn",
        warnings: w,
        admission: steps,
        user: admission.user,
      }),
  );
  return jsonResponse(created ? 201 : 200, shapeObject(shape, def, object, ctx.clock.now()), warningHeaders(warnings));
}

/** A PATCH in a version a conversion webhook converts from the storage version (merge and JSON patches). */
async function handleConvertedPatch(
  req: Request,
  url: URL,
  route: ResourceRoute,
  ctx: ResourceContext,
  admission: AdmissionRequestInfo,
  shape: ReturnType<typeof negotiateShape>,
  converting: ConversionWebhook,
): Promise<Response> {
  const { def, namespace, name } = route;
  const q = url.searchParams;
  const contentType = mediaType(req.headers.get("content-type"));
  const type = servedPatchType(def, contentType);
  const patch = decodePatchBody(await readBody(req), contentType);
  const warnings: string[] = [];
  const write = admittedUpdate({ req, q, admission, warnings }, ctx.store, route);
  const object = await patchConverted(ctx.store, def, converting, { namespace, name: name! }, type, patch, write);
  return jsonResponse(200, shapeObject(shape, def, object, ctx.clock.now()), warningHeaders(warnings));
}
