/**
 * The resource endpoints: `[/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]` under `/api/v1` and
 * `/apis/{group}/{version}` — get, list, watch, create, update, patch, delete, deletecollection.
 * @module
 */
import { requestVerb } from "../runtime/apimachinery/verbs.ts";
import type { Clock } from "../runtime/clock.ts";
import type { KubeObject } from "../runtime/types.ts";
import { decodeBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { negotiateShape, shapeList, shapeObject, watchPresenter } from "./http_negotiation.ts";
import { patchObject, servedPatchType } from "./patch_object.ts";
import { storageKeyOf } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import { type DeleteOptions, type FakeStore, parseRv } from "./fake_store.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";
import { badRequest, expired, methodNotAllowed, notFound, tooLargeResourceVersion } from "./status_errors.ts";
import type { WatchHub } from "./watch_hub.ts";
import { WatchStream } from "./watch_stream.ts";

/** A parsed resource URL. */
export interface ResourceRoute {
  def: ResourceDef;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** What the resource handlers need from the server. */
export interface ResourceContext {
  store: FakeStore;
  hub: WatchHub;
  clock: Clock;
  bookmarkIntervalMs: number;
  /** Extra subresource handlers (`pods/log`, `pods/binding`, ...), keyed `group/plural/sub` (CRDs: `*` for group and plural). */
  subresources: Map<string, (req: Request, route: ResourceRoute, url: URL) => Promise<Response>>;
}

/** JSON response helper. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

const truthy = (v: string | null): boolean => v === "true" || v === "1";

/** The Kubernetes verb of a request (runtime/apimachinery/verbs.ts). */
export function verbOf(method: string, route: ResourceRoute, url: URL): string {
  return requestVerb(method, Boolean(route.name), url.searchParams);
}

/** Serves one resource request. */
export async function handleResource(
  req: Request,
  url: URL,
  route: ResourceRoute,
  ctx: ResourceContext,
): Promise<Response> {
  const { def, namespace, name, subresource } = route;
  const q = url.searchParams;
  const verb = verbOf(req.method, route, url);
  if (subresource && subresource !== "status") {
    const handler = ctx.subresources.get(`${def.group}/${def.plural}/${subresource}`) ??
      (def.custom ? ctx.subresources.get(`*/*/${subresource}`) : undefined);
    if (!handler || !def.subresources.includes(subresource)) throw notFound(def, `${name}/${subresource}`, verb);
    return await handler(req, route, url);
  }
  if (subresource === "status" && !def.subresources.includes("status")) throw notFound(def, name ?? "", verb);
  if (!def.verbs.includes(verb) && !(verb === "watch" && def.verbs.includes("list"))) throw methodNotAllowed(def, verb);
  const shape = negotiateShape(req.headers.get("accept"));
  const includeObject = q.get("includeObject") ?? undefined;
  const now = ctx.clock.now();
  const dryRun = q.getAll("dryRun").includes("All");
  switch (verb) {
    case "get": {
      const obj = ctx.store.get(def, name!, { namespace });
      return jsonResponse(200, shapeObject(shape, def, obj, now, includeObject));
    }
    case "list": {
      const list = ctx.store.listShared(def, {
        namespace,
        labelSelector: q.get("labelSelector") ?? undefined,
        fieldSelector: q.get("fieldSelector") ?? undefined,
        limit: q.has("limit") ? Number(q.get("limit")) || undefined : undefined,
        continue: q.get("continue") ?? undefined,
        resourceVersion: q.get("resourceVersion") ?? undefined,
        resourceVersionMatch: q.get("resourceVersionMatch") ?? undefined,
      });
      return jsonResponse(200, shapeList(shape, def, list, now, includeObject));
    }
    case "watch":
      return openWatch(url, route, ctx, shape, includeObject);
    case "create": {
      if (name) throw methodNotAllowed(def, "create");
      const body = await readObject(req, verb);
      const warnings: string[] = [];
      const created = ctx.store.create(def, body as KubeObject, {
        namespace,
        dryRun,
        ...writeOptions(req, q, warnings),
      });
      return jsonResponse(201, shapeObject(shape, def, created, now), warningHeaders(warnings));
    }
    case "update": {
      const body = await readObject(req, verb);
      const existed = ctx.store.peek(def, namespace, name!) !== undefined;
      const warnings: string[] = [];
      const updated = ctx.store.update(def, body as KubeObject, {
        namespace,
        name,
        subresource: subresource === "status" ? "status" : undefined,
        dryRun,
        ...writeOptions(req, q, warnings),
      });
      return jsonResponse(existed ? 200 : 201, shapeObject(shape, def, updated, now), warningHeaders(warnings));
    }
    case "patch":
      return await handlePatch(req, url, route, ctx, dryRun, shape);
    case "delete": {
      const opts = await readDeleteOptions(req, q);
      const deleted = ctx.store.delete(def, name!, { ...opts, namespace, dryRun });
      // kube-apiserver answers 202 only for a foreground deletion that did not finish at once.
      const pending = opts.propagationPolicy === "Foreground" && ctx.store.peek(def, namespace, name!) !== undefined;
      return jsonResponse(pending ? 202 : 200, deleted);
    }
    case "deletecollection": {
      const opts = await readDeleteOptions(req, q);
      const list = ctx.store.listShared(def, {
        namespace,
        labelSelector: q.get("labelSelector") ?? undefined,
        fieldSelector: q.get("fieldSelector") ?? undefined,
      });
      const items = list.items.map((o) =>
        ctx.store.delete(def, o.metadata.name!, { ...opts, namespace: o.metadata.namespace, dryRun })
      );
      return jsonResponse(200, { ...list, items });
    }
  }
  throw methodNotAllowed(def, verb);
}

/** The default field manager kube-apiserver derives from the User-Agent (`kubectl/v1.32 ...` → `kubectl`). */
function fieldManagerOf(req: Request, q: URLSearchParams): string {
  const explicit = q.get("fieldManager");
  if (explicit) return explicit;
  const agent = req.headers.get("user-agent") ?? "unknown";
  return agent.split("/")[0].trim().slice(0, 128) || "unknown";
}

function writeOptions(req: Request, q: URLSearchParams, warnings: string[]) {
  return {
    fieldManager: fieldManagerOf(req, q),
    fieldValidation: q.get("fieldValidation") ?? "Warn",
    warnings,
  };
}

function warningHeaders(warnings: string[]): Record<string, string> {
  if (warnings.length === 0) return {};
  return { warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ") };
}

async function readObject(req: Request, verb: string): Promise<Record<string, unknown>> {
  const bytes = await readBody(req);
  return requireObject(decodeBody(bytes, mediaType(req.headers.get("content-type")), verb), verb);
}

async function readDeleteOptions(req: Request, q: URLSearchParams): Promise<DeleteOptions> {
  const bytes = await readBody(req);
  let body: Record<string, unknown> = {};
  if (bytes.byteLength > 0) {
    body = requireObject(decodeBody(bytes, mediaType(req.headers.get("content-type")), "delete"), "delete");
  }
  const policy = (q.get("propagationPolicy") ?? body.propagationPolicy) as string | undefined;
  const orphan = q.get("orphanDependents") === "true" || body.orphanDependents === true;
  if (policy && !["Background", "Foreground", "Orphan"].includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}"`, "delete");
  }
  const graceParam = q.get("gracePeriodSeconds") ?? body.gracePeriodSeconds;
  const gracePeriodSeconds = graceParam === undefined || graceParam === null ? undefined : Number(graceParam);
  if (gracePeriodSeconds !== undefined && !Number.isInteger(gracePeriodSeconds)) {
    throw badRequest(`gracePeriodSeconds: invalid value ${JSON.stringify(graceParam)}`, "delete");
  }
  return {
    propagationPolicy: (policy ?? (orphan ? "Orphan" : undefined)) as DeleteOptions["propagationPolicy"],
    preconditions: body.preconditions as DeleteOptions["preconditions"],
    gracePeriodSeconds,
  };
}

async function handlePatch(
  req: Request,
  url: URL,
  route: ResourceRoute,
  ctx: ResourceContext,
  dryRun: boolean,
  shape: ReturnType<typeof negotiateShape>,
): Promise<Response> {
  const { def, namespace, name, subresource } = route;
  const q = url.searchParams;
  const contentType = mediaType(req.headers.get("content-type"));
  const type = servedPatchType(def, contentType);
  const patch = decodeBody(await readBody(req), contentType, "patch");
  const warnings: string[] = [];
  const apply = type === "apply";
  const { object, created } = patchObject(ctx.store, def, name!, patch, {
    type,
    namespace,
    subresource: subresource === "status" ? "status" : undefined,
    dryRun,
    // Apply records its own managedFields (operation Apply) and needs an explicit manager.
    fieldManager: apply ? q.get("fieldManager") ?? undefined : fieldManagerOf(req, q),
    force: truthy(q.get("force")),
    fieldValidation: q.get("fieldValidation") ?? "Warn",
    warnings,
  });
  return jsonResponse(created ? 201 : 200, shapeObject(shape, def, object, ctx.clock.now()), warningHeaders(warnings));
}

function openWatch(
  url: URL,
  route: ResourceRoute,
  ctx: ResourceContext,
  shape: ReturnType<typeof negotiateShape>,
  includeObject?: string,
): Response {
  const { def, namespace } = route;
  const q = url.searchParams;
  const storageKey = storageKeyOf(def);
  let labels: (o: KubeObject) => boolean;
  let fields: (o: KubeObject) => boolean;
  try {
    labels = parseLabelSelector(q.get("labelSelector"));
    const fs = ctx.store.storageFieldSelector(def, q.get("fieldSelector") ?? undefined);
    fields = parseFieldSelector(fs, storageKey);
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message, "watch");
    throw err;
  }
  const nameFilter = route.name;
  const matches = (o: KubeObject) => (!nameFilter || o.metadata.name === nameFilter) && labels(o) && fields(o);
  const rvParam = q.get("resourceVersion") ?? "";
  const sendInitialEvents = truthy(q.get("sendInitialEvents"));
  const allowBookmarks = truthy(q.get("allowWatchBookmarks"));
  const timeoutSeconds = q.has("timeoutSeconds") ? Number(q.get("timeoutSeconds")) : undefined;
  if (sendInitialEvents && q.get("resourceVersionMatch") !== "NotOlderThan") {
    throw badRequest(
      "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan",
      "watch",
    );
  }
  const objects = ctx.store.objects;
  let replay: ReturnType<typeof objects.since> | undefined;
  const fromRv = rvParam && rvParam !== "0" ? parseRv(rvParam, "watch") : undefined;
  if (fromRv !== undefined && fromRv > objects.rv) throw tooLargeResourceVersion(fromRv, objects.rv);
  if (fromRv !== undefined && !sendInitialEvents) replay = objects.since(storageKey, fromRv);
  const present = (o: KubeObject) => ctx.store.present(def, o);
  const stream: WatchStream = new WatchStream({
    storageKey,
    namespace: def.namespaced ? namespace : undefined,
    matches,
    presenter: watchPresenter(shape, def, present, () => ctx.clock.now(), includeObject),
    clock: ctx.clock,
    allowBookmarks,
    bookmarkIntervalMs: ctx.bookmarkIntervalMs,
    timeoutMs: timeoutSeconds !== undefined && Number.isFinite(timeoutSeconds) ? timeoutSeconds * 1000 : undefined,
    currentRv: () => objects.rv,
    description: `${url.pathname}?${q.toString()}`,
    onClose: () => remove(),
  });
  const remove = ctx.hub.add(stream);
  if (replay === "expired") {
    const status = expired(`too old resource version: ${fromRv} (${objects.compactedRv})`).status;
    stream.sendErrorAndClose(status);
  } else if (replay === "too-large") {
    stream.sendErrorAndClose(tooLargeResourceVersion(fromRv!, objects.rv).status);
  } else if (replay) {
    for (const ev of replay) stream.deliver(ev);
  } else {
    // No RV (or "0"), or sendInitialEvents: synthetic ADDED for the current state.
    for (const obj of objects.list(storageKey, def.namespaced ? namespace : undefined)) {
      if (matches(obj)) stream.sendObject("ADDED", obj);
    }
    if (sendInitialEvents) stream.sendBookmark({ "k8s.io/initial-events-end": "true" });
  }
  return new Response(stream.body, {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-cache" },
  });
}
