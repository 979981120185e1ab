/**
 * The llamas REST handlers: list (JSON or Table), watch, get, create, update (PUT), patch (merge, JSON, apply) and
 * delete, each mapping store errors to Kubernetes Status responses. Input is cleaned to apiVersion, kind, metadata
 * (name, generateName, namespace, labels, annotations, resourceVersion) and spec, then validated (422 with causes).
 * @module
 */
import { resourceId } from "../runtime/apimachinery/names.ts";
import { parseJsonBody } from "../runtime/http/body_decode.ts";
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { Clock } from "../runtime/clock.ts";
import type { KubeObject, WatchEvent } from "../runtime/types.ts";
import { FARM_API_VERSION, type Llama, LLAMAS, validateLlama } from "./llama.ts";
import type { LlamaChange, LlamaStore } from "./llama_store.ts";
import { applyJsonPatch, applyMergePatch } from "./patch.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { toTable } from "./table.ts";
import { decodeContinue, dryRunOf, limitOf, pageOf } from "./request_options.ts";
import { applyConfiguration, managerOf, recordUpdate } from "./field_ownership.ts";
import { badRequest, jsonResponse, mediaType, readBody, readObjectBody, unsupportedPatch, wantsTable } from "./http.ts";
import { serveResourceWatch } from "./watch_stream.ts";

/** What the llama handlers share. */
export interface LlamaRouteContext {
  /** The Llama store. */
  store: LlamaStore;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
  /** Interval of BOOKMARK events on watches that allow them, ms. */
  bookmarkIntervalMs: number;
}

function invalid(name: string | undefined, causes: ReturnType<typeof validateLlama>): ApiError {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const message = `Llama.${LLAMAS.group} "${name ?? ""}" is invalid: ${
    list.length === 1 ? list[0] : `[${list.join(", ")}]`
  }`;
  return new ApiError(
    failureStatus(422, "Invalid", message, { name, group: LLAMAS.group, kind: "Llama", causes }),
    { verb: "create", resource: resourceId(LLAMAS), name },
  );
}

/** Checks kind/apiVersion/namespace of a body and keeps only the fields a Llama has. */
function cleanLlama(body: Record<string, unknown>, namespace: string): Llama {
  if (body.kind !== undefined && body.kind !== "Llama") badRequest(`kind ${JSON.stringify(body.kind)} is not Llama`);
  if (body.apiVersion !== undefined && body.apiVersion !== FARM_API_VERSION) {
    badRequest(`apiVersion ${JSON.stringify(body.apiVersion)} is not ${FARM_API_VERSION}`);
  }
  const meta = (body.metadata ?? {}) as Record<string, unknown>;
  if (typeof meta !== "object" || Array.isArray(meta)) badRequest("metadata must be an object");
  if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== namespace) {
    badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  const strings = (v: unknown, field: string) => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "object" || Array.isArray(v) || Object.values(v).some((x) => typeof x !== "string")) {
      badRequest(`metadata.${field} must be a map of strings`);
    }
    return v as Record<string, string>;
  };
  const llama: Llama = {
    apiVersion: FARM_API_VERSION,
    kind: "Llama",
    metadata: { namespace },
    spec: body.spec as Llama["spec"],
  };
  if (typeof meta.name === "string" && meta.name) llama.metadata.name = meta.name;
  if (typeof meta.generateName === "string" && meta.generateName) llama.metadata.generateName = meta.generateName;
  if (typeof meta.resourceVersion === "string" && meta.resourceVersion) {
    llama.metadata.resourceVersion = meta.resourceVersion;
  }
  const labels = strings(meta.labels, "labels");
  const annotations = strings(meta.annotations, "annotations");
  if (labels) llama.metadata.labels = labels;
  if (annotations) llama.metadata.annotations = annotations;
  return llama;
}

function checked(llama: Llama): Llama {
  const causes = validateLlama(llama);
  if (causes.length) throw invalid(llama.metadata.name, causes);
  return llama;
}

/** Now, as managedFields times are written: RFC 3339 in whole seconds. */
function nowSeconds(ctx: LlamaRouteContext): string {
  return new Date(ctx.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** 422 on PatchOptions, as ValidatePatchOptions answers an apply without fieldManager. */
function fieldManagerRequired(): never {
  const message = "Required value: is required for apply patch";
  throw new ApiError(
    failureStatus(422, "Invalid", `PatchOptions.meta.k8s.io "" is invalid: fieldManager: ${message}`, {
      group: "meta.k8s.io",
      kind: "PatchOptions",
      causes: [{ reason: "FieldValueRequired", message, field: "fieldManager" }],
    }),
    { verb: "patch", resource: resourceId(LLAMAS) },
  );
}

function randomSuffix(): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  return Array.from(crypto.getRandomValues(new Uint8Array(5)), (b) => alphabet[b % alphabet.length]).join("");
}

function render(req: Request, obj: Llama, ctx: LlamaRouteContext, code = 200): Response {
  if (wantsTable(req.headers.get("accept"))) {
    return jsonResponse(
      toTable([obj], LLAMAS, { nowMs: ctx.clock.now(), resourceVersion: obj.metadata.resourceVersion }),
    );
  }
  return jsonResponse(obj, code);
}

/**
 * What a filtered watch sees of a change, as kube-apiserver does it: a MODIFIED that moves an object out of the
 * selector is a DELETED, one that moves it in is an ADDED; changes outside the selector are not sent.
 */
export function selectorEvent(
  change: LlamaChange,
  match: (l: KubeObject) => boolean,
): WatchEvent<KubeObject> | undefined {
  const now = match(change.object);
  if (change.type !== "MODIFIED" || !change.previous) {
    return now ? { type: change.type, object: change.object } : undefined;
  }
  const before = match(change.previous);
  if (before && now) return { type: "MODIFIED", object: change.object };
  if (before) return { type: "DELETED", object: change.object };
  if (now) return { type: "ADDED", object: change.object };
  return undefined;
}

/** GET collection (list or watch). `namespace` undefined = all namespaces. */
export function listOrWatchLlamas(req: Request, url: URL, ctx: LlamaRouteContext, namespace?: string): Response {
  const q = url.searchParams;
  const labels = parseLabelSelector(q.get("labelSelector"));
  const fields = parseFieldSelector(q.get("fieldSelector"));
  const match = (l: KubeObject) =>
    (namespace === undefined || l.metadata.namespace === namespace) && labels(l) && fields(l);
  const table = wantsTable(req.headers.get("accept"));
  const includeObject = q.get("includeObject") ?? undefined;
  const nowMs = () => ctx.clock.now();
  if (q.get("watch") === "true" || q.get("watch") === "1") {
    const rvParam = q.get("resourceVersion") ?? "";
    const sendInitial = q.get("sendInitialEvents") === "true";
    const bookmarks = q.get("allowWatchBookmarks") === "true";
    if (rvParam && !/^\d+$/.test(rvParam)) badRequest(`invalid resourceVersion ${JSON.stringify(rvParam)}`);
    const initialState = sendInitial || rvParam === "" || rvParam === "0";
    const since = initialState ? Number(ctx.store.resourceVersion) : Number(rvParam);
    return serveResourceWatch<LlamaChange>({
      clock: ctx.clock,
      kind: "Llama",
      apiVersion: FARM_API_VERSION,
      subscribe: (listener) => ctx.store.subscribe(since, listener),
      eventOf: (change) => selectorEvent(change, match),
      fromState: initialState,
      stateObjects: () => ctx.store.list(namespace, match).items,
      resourceVersion: () => ctx.store.resourceVersion,
      sendInitialEvents: sendInitial,
      bookmarks,
      bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      timeoutSeconds: Number(q.get("timeoutSeconds") ?? ""),
      encode: table
        ? (object, i) => toTable([object], LLAMAS, { nowMs: nowMs(), noHeaders: i > 0, includeObject })
        : undefined,
    });
  }
  const token = q.get("continue") ? decodeContinue(q.get("continue")!) : undefined;
  const rvParam = q.get("resourceVersion") ?? "";
  if (token && rvParam && rvParam !== "0") badRequest("specifying resource version is not allowed when using continue");
  const all = token ? { items: ctx.store.listAt(token.rv, namespace, match), rv: String(token.rv) } : ctx.store.list(
    namespace,
    match,
  );
  const rv = all.rv;
  // resourceVersion=0 is served from kube's watch cache, which ignores limit.
  const page = pageOf(all.items, (l) => `${l.metadata.namespace}/${l.metadata.name}`, {
    limit: rvParam === "0" && !token ? 0 : limitOf(q),
    after: token?.after,
    rv: Number(rv),
    countRemaining: !q.get("labelSelector") && !q.get("fieldSelector"),
  });
  const metadata = {
    resourceVersion: rv,
    ...(page.continue ? { continue: page.continue } : {}),
    ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
  };
  if (table) {
    const t = toTable(page.items, LLAMAS, { nowMs: nowMs(), resourceVersion: rv, includeObject });
    return jsonResponse({ ...t, metadata });
  }
  return jsonResponse({ apiVersion: FARM_API_VERSION, kind: LLAMAS.listKind, metadata, items: page.items });
}

/** DELETE collection (deletecollection): deletes what the selectors match; answers the deleted llamas as a list. */
export async function deleteLlamaCollection(
  req: Request,
  url: URL,
  ctx: LlamaRouteContext,
  namespace?: string,
): Promise<Response> {
  const q = url.searchParams;
  const labels = parseLabelSelector(q.get("labelSelector"));
  const fields = parseFieldSelector(q.get("fieldSelector"));
  const { dryRun } = await deleteOptions(req, url);
  const deleted = await ctx.store.deleteCollection(namespace, (l) => labels(l) && fields(l), { dryRun });
  return jsonResponse({
    apiVersion: FARM_API_VERSION,
    kind: LLAMAS.listKind,
    metadata: { resourceVersion: ctx.store.resourceVersion },
    items: deleted,
  });
}

/** DeleteOptions from the body (JSON) and the query: preconditions and dryRun. */
async function deleteOptions(
  req: Request,
  url: URL,
): Promise<{ preconditions?: { uid?: string; resourceVersion?: string }; dryRun: boolean }> {
  let body: { preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: unknown } = {};
  const text = await req.text();
  if (text.trim()) {
    let opts: unknown;
    try {
      opts = parseJsonBody(text);
    } catch (err) {
      badRequest(`the request body is not valid DeleteOptions JSON: ${(err as Error).message}`);
    }
    if (typeof opts !== "object" || opts === null) badRequest("DeleteOptions must be an object");
    body = opts as typeof body;
  }
  const values = url.searchParams.getAll("dryRun");
  if (Array.isArray(body.dryRun)) values.push(...body.dryRun.map(String));
  return { preconditions: body.preconditions, dryRun: dryRunOf(values, "DeleteOptions") };
}

/** GET one llama. */
export function getLlama(req: Request, ctx: LlamaRouteContext, namespace: string, name: string): Response {
  return render(req, ctx.store.get(namespace, name), ctx);
}

/** POST a llama (201). */
export async function createLlama(req: Request, ctx: LlamaRouteContext, namespace: string): Promise<Response> {
  if (mediaType(req) !== "application/json" && !mediaType(req).endsWith("yaml")) unsupportedPatch(mediaType(req));
  const llama = cleanLlama(await readObjectBody(req), namespace);
  delete llama.metadata.resourceVersion;
  if (!llama.metadata.name && llama.metadata.generateName) {
    llama.metadata.name = `${llama.metadata.generateName}${randomSuffix()}`;
  }
  const q = new URL(req.url).searchParams;
  const dryRun = dryRunOf(q.getAll("dryRun"), "CreateOptions");
  const manager = managerOf(q.get("fieldManager"), req.headers.get("user-agent"));
  llama.metadata.managedFields = recordUpdate(undefined, llama, manager, nowSeconds(ctx));
  const created = await ctx.store.create(checked(llama), { dryRun });
  return render(req, created, ctx, 201);
}

/** PUT a llama (resourceVersion in the body is a precondition). */
export async function replaceLlama(
  req: Request,
  ctx: LlamaRouteContext,
  namespace: string,
  name: string,
): Promise<Response> {
  const llama = cleanLlama(await readObjectBody(req), namespace);
  if (llama.metadata.name !== name) {
    badRequest(`the name of the object (${llama.metadata.name ?? ""}) does not match the name on the URL (${name})`);
  }
  const q = new URL(req.url).searchParams;
  const dryRun = dryRunOf(q.getAll("dryRun"), "UpdateOptions");
  const manager = managerOf(q.get("fieldManager"), req.headers.get("user-agent"));
  const updated = await ctx.store.update(
    namespace,
    name,
    (current) => {
      llama.metadata.managedFields = recordUpdate(current, llama, manager, nowSeconds(ctx));
      return checked(llama);
    },
    "update",
    { dryRun },
  );
  return render(req, updated, ctx);
}

/** PATCH a llama: merge patch, JSON patch, or apply (create when missing, else merge). */
export async function patchLlama(
  req: Request,
  ctx: LlamaRouteContext,
  namespace: string,
  name: string,
): Promise<Response> {
  const type = mediaType(req);
  if (!["application/merge-patch+json", "application/json-patch+json", "application/apply-patch+yaml"].includes(type)) {
    unsupportedPatch(type);
  }
  const patch = await readBody(req);
  const q = new URL(req.url).searchParams;
  const dryRun = dryRunOf(q.getAll("dryRun"), "PatchOptions");
  const time = nowSeconds(ctx);
  if (type === "application/apply-patch+yaml") {
    if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
      badRequest("apply patch must be an object");
    }
    const manager = q.get("fieldManager");
    if (!manager) fieldManagerRequired();
    if ((patch as { metadata?: { managedFields?: unknown } }).metadata?.managedFields !== undefined) {
      badRequest("metadata.managedFields must be nil");
    }
    const applied = cleanLlama(patch as Record<string, unknown>, namespace);
    if (applied.metadata.name !== name) badRequest("the name of the object does not match the name on the URL");
    const force = q.get("force") === "true";
    try {
      ctx.store.get(namespace, name);
    } catch {
      delete applied.metadata.resourceVersion;
      const fresh = { ...applied, metadata: { ...applied.metadata, managedFields: [] } };
      const created = applyConfiguration(fresh, applied, { manager, force, time });
      return render(req, await ctx.store.create(checked(created), { dryRun }), ctx, 201);
    }
    const updated = await ctx.store.update(
      namespace,
      name,
      (current) => {
        const next = applyConfiguration(current, applied, { manager, force, time });
        // A resourceVersion in the configuration is a precondition, as for any write.
        if (applied.metadata.resourceVersion) next.metadata.resourceVersion = applied.metadata.resourceVersion;
        return checked(next);
      },
      "patch",
      { dryRun },
    );
    return render(req, updated, ctx);
  }
  const manager = managerOf(q.get("fieldManager"), req.headers.get("user-agent"));
  const updated = await ctx.store.update(
    namespace,
    name,
    (current) => {
      const patched = type === "application/json-patch+json"
        ? applyJsonPatch(current, patch)
        : applyMergePatch(current, patch);
      if (typeof patched !== "object" || patched === null || Array.isArray(patched)) {
        badRequest("the patched object is not an object");
      }
      const next = cleanLlama(patched as Record<string, unknown>, namespace);
      next.metadata.name = name;
      next.metadata.managedFields = recordUpdate(current, next, manager, time);
      // A patch may carry a resourceVersion precondition; one equal to the current state's is the unpatched value.
      return checked(next);
    },
    "patch",
    { dryRun },
  );
  return render(req, updated, ctx);
}

/** DELETE a llama; answers the deleted object (as kube-apiserver does for custom resources). */
export async function deleteLlama(
  req: Request,
  ctx: LlamaRouteContext,
  namespace: string,
  name: string,
): Promise<Response> {
  const { preconditions, dryRun } = await deleteOptions(req, new URL(req.url));
  const deleted = await ctx.store.delete(namespace, name, preconditions, { dryRun });
  return render(req, deleted, ctx);
}
