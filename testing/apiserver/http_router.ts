/**
 * The fake server's request entry: authentication, fault injection, and dispatch to discovery, version, health,
 * review resources and the resource endpoints. Every failure is answered as a Kubernetes Status; a handler bug
 * becomes a 500 InternalError, never a crashed server.
 * @module
 */
import { healthResponse } from "./health.ts";
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { answerReview } from "./auth_reviews.ts";
import { reviewManagedFields, reviewMetadataCause } from "./review_metadata.ts";
import { ADMIN_USER } from "./authn.ts";
import { isReviewResource } from "./builtin_resources.ts";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, discoveryGroups, versionInfo } from "./discovery.ts";
import {
  type AggregatedResources,
  coreDiscoveryV2,
  DISCOVERY_V2_CONTENT_TYPE,
  groupsDiscoveryV2,
  resourcesFromLegacy,
  wantsDiscoveryV2,
} from "./discovery_v2.ts";
import type { FaultHooks } from "./faults.ts";
import { decodeObjectBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { applyFieldValidation } from "./field_validation.ts";
import { dropUnknownGoFields, strictFieldPath } from "./go_json_unknown.ts";
import { admitRequest, type AuthContext } from "./http_auth.ts";
import { handleResource, jsonResponse, type ResourceContext, type ResourceRoute, verbOf } from "./http_resources.ts";
import { acceptsAny, acceptsCustomResource, OBJECT_MEDIA_TYPES, STREAM_MEDIA_TYPES } from "./http_negotiation.ts";
import { type AnswerContext, answerInNegotiatedEncoding } from "./http_protobuf.ts";
import {
  invalid,
  methodNotAllowedPath,
  noSuchResource,
  notAcceptable,
  notAcceptableDiscovery,
} from "./status_errors.ts";
import { fieldManagerOf } from "./http_write_options.ts";
import { qualifiedResource } from "./registry.ts";
import { nodeHttpsFetch } from "./node_https_fetch.ts";
import type { RbacAuthorizer, UserInfo } from "./rbac_authorizer.ts";

/** With RBAC off, reviews allow everything (the deny hook still applies) and list a rule covering all. */
const ALLOW_ALL: Pick<RbacAuthorizer, "authorize" | "rulesFor"> = {
  authorize: () => ({ allowed: true, reason: "fake API server allows all" }),
  rulesFor: () => ({
    rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, { verbs: ["*"], nonResourceURLs: ["*"] }],
    errors: [],
  }),
};

import type { AggregatedTarget } from "./http_route.ts";
import { writtenSubresource } from "./strategy.ts";

export type { AggregatedTarget };

/** What the router needs. */
export interface RouterContext extends ResourceContext, AuthContext {
  faults: FaultHooks;
  /** The Prometheus text of GET /metrics (authorized like any non-resource path; absent: 404). */
  metricsText?: () => Promise<string>;
  /** `group/version` → target. */
  aggregated: Map<string, AggregatedTarget>;
  /** Client certificate presented to aggregated servers (front-proxy); asked for only when proxying. */
  proxyClientCert?: () => Promise<{ certPEM: string; keyPEM: string }>;
  preferredVersion: (group: string) => string | undefined;
  serverAddress: () => string;
  /** Extra non-resource paths (`/openapi/v3`, ...). */
  extraPaths: Array<(req: Request, url: URL) => Promise<Response | undefined> | Response | undefined>;
}

/** Serves one request; never throws. */
export async function routeRequest(req: Request, ctx: RouterContext): Promise<Response> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return jsonResponse(400, failureStatus(400, "BadRequest", "malformed request URL"));
  }
  // Filled in by dispatch; answerInNegotiatedEncoding re-encodes success and error answers alike.
  const answer: RouteAnswer = {};
  const res = await answerInNegotiatedEncoding(req, await answerOrStatus(req, url, ctx, answer), answer);
  return answer.deprecation ? withFirstWarning(res, answer.deprecation) : res;
}

/** What dispatch learns of its route for the answer: its encoding, and a deprecated version's warning. */
interface RouteAnswer extends AnswerContext {
  /** kube's CR handler warns on every request to a deprecated CRD version, errors and watches included. */
  deprecation?: string;
}

/** `res` with `Warning: 299 - "<text>"` before any warnings it carries. */
function withFirstWarning(res: Response, text: string): Response {
  const headers = new Headers(res.headers);
  const others = headers.get("warning");
  headers.set("warning", [`299 - ${JSON.stringify(text)}`, ...(others ? [others] : [])].join(", "));
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

async function answerOrStatus(req: Request, url: URL, ctx: RouterContext, answer: RouteAnswer): Promise<Response> {
  try {
    return await dispatch(req, url, ctx, answer);
  } catch (err) {
    if (err instanceof PageNotFound) {
      if (req.body && !req.bodyUsed) await req.body.cancel().catch(() => {});
      return new Response("404 page not found\n", {
        status: 404,
        headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
      });
    }
    if (err instanceof ApiError) {
      const headers: Record<string, string> = {};
      if (err.retryAfterSeconds !== undefined) headers["retry-after"] = String(err.retryAfterSeconds);
      if (req.body && !req.bodyUsed) await req.body.cancel().catch(() => {});
      return jsonResponse(err.code, err.status, headers);
    }
    const message = err instanceof Error ? err.message : String(err);
    return jsonResponse(500, failureStatus(500, "InternalError", `Internal error occurred: ${message}`));
  }
}

async function dispatch(req: Request, url: URL, ctx: RouterContext, answer: RouteAnswer): Promise<Response> {
  const path = url.pathname.replace(/\/+$/, "") || "/";
  // Health answers are authorized like any path (system:public-info-viewer lets anonymous callers read them).
  const user = await admitRequest(req, url, ctx);
  const health = healthResponse(url.pathname, url.searchParams);
  if (health) return health;
  if (path === "/metrics" && ctx.metricsText && req.method === "GET") {
    return new Response(await ctx.metricsText(), { headers: { "content-type": "text/plain; version=0.0.4" } });
  }
  const segments = path.split("/").filter(Boolean).map(decodeSegment);
  // kube-apiserver serves HEAD only on the OpenAPI documents, /apis and /apis/<group> (go-restful vs plain mux).
  const groupDiscovery = segments[0] === "apis" && segments.length <= 2;
  if (req.method === "HEAD" && !path.startsWith("/openapi/") && !groupDiscovery) throw methodNotAllowedPath();
  const route = resourceRoute(segments, ctx);
  // An aggregated server answers in its own encoding; a custom resource is never protobuf (its Status errors and
  // PartialObjectMetadata conversions are).
  answer.jsonOnly = route !== undefined && "proxy" in route;
  answer.custom = route !== undefined && !("proxy" in route) && route.def.custom;
  if (route && "proxy" in route) {
    await ctx.faults.apply(req.method.toLowerCase(), undefined);
    return await proxy(req, url, route.proxy, await ctx.proxyClientCert?.(), user);
  }
  if (route) {
    answer.deprecation = route.def.deprecationWarning;
    const verb = verbOf(req.method, route, url);
    answer.watch = verb === "watch";
    ctx.faults.observe({
      verb,
      resource: qualifiedResource(route.def),
      namespace: route.namespace,
      name: route.name,
      subresource: route.subresource,
      method: req.method,
      userAgent: req.headers.get("user-agent") ?? "",
    });
    if (!route.subresource || writtenSubresource(route.subresource)) {
      const offered = route.name || req.method !== "GET"
        ? OBJECT_MEDIA_TYPES
        : [...OBJECT_MEDIA_TYPES, ...STREAM_MEDIA_TYPES];
      if (!acceptsAny(req.headers.get("accept"), offered)) throw notAcceptable(offered);
      // A custom resource is never encoded as protobuf; kube's CR handler words its 406 as discovery does.
      if (route.def.custom && !acceptsCustomResource(req.headers.get("accept"), offered)) {
        throw notAcceptableDiscovery(OBJECT_MEDIA_TYPES);
      }
    }
    await ctx.faults.apply(verb, qualifiedResource(route.def));
    // Resources served by a handler of their own (bindings, componentstatuses), keyed `group/plural`.
    const own = route.subresource ? undefined : ctx.subresources.get(`${route.def.group}/${route.def.plural}`);
    if (own) return await own(req, route, url);
    if (isReviewResource(route.def) && verb === "create") return await handleReview(req, route, ctx, user);
    return await handleResource(req, url, route, ctx, user);
  }
  const openapi = path.match(/^\/openapi\/v3\/apis\/([^/]+)\/([^/]+)$/);
  const aggregatedDoc = openapi && ctx.aggregated.get(`${openapi[1]}/${openapi[2]}`);
  if (aggregatedDoc) return await proxy(req, url, aggregatedDoc, await ctx.proxyClientCert?.(), user);
  await ctx.faults.apply("get", undefined);
  const discovery = isDiscoveryPath(segments, ctx);
  if (req.method !== "GET" && req.method !== "HEAD") {
    if (discovery) throw methodNotAllowedPath();
    for (const extra of ctx.extraPaths) {
      const res = await extra(req, url);
      if (res) return res;
    }
    throw notFoundPath(segments, ctx);
  }
  if (discovery) {
    const offered = path === "/version" ? ["application/json"] : OBJECT_MEDIA_TYPES;
    if (!acceptsAny(req.headers.get("accept"), offered)) {
      // /apis and /apis/<group> negotiate in the discovery handler, with other wording (and no details).
      if (groupDiscovery) throw notAcceptableDiscovery(offered);
      throw notAcceptable(offered);
    }
  }
  if (path === "/version") return jsonResponse(200, versionInfo());
  if ((path === "/api" || path === "/apis") && wantsDiscoveryV2(req.headers.get("accept"))) {
    return await aggregatedDiscovery(req, url, path, ctx);
  }
  if (path === "/api") return jsonResponse(200, apiVersions(ctx.serverAddress()));
  if (path === "/apis") {
    return jsonResponse(200, apiGroupList(ctx.store.registry, ctx.preferredVersion, [...ctx.aggregated.keys()]));
  }
  if (segments[0] === "api" && segments.length === 2) {
    const list = apiResourceList(ctx.store.registry, "", segments[1]);
    if (list) return jsonResponse(200, list);
  }
  if (segments[0] === "apis" && segments.length === 2) {
    const group = apiGroup(ctx.store.registry, segments[1], ctx.preferredVersion, [...ctx.aggregated.keys()]);
    if (group) return jsonResponse(200, group);
  }
  if (segments[0] === "apis" && segments.length === 3) {
    const list = apiResourceList(ctx.store.registry, segments[1], segments[2]);
    if (list) return jsonResponse(200, list);
  }
  for (const extra of ctx.extraPaths) {
    const res = await extra(req, url);
    if (res) return res;
  }
  throw notFoundPath(segments, ctx);
}

/** `/version`, `/api`, `/apis`, `/api/v1`, `/apis/<group>` and `/apis/<group>/<version>` of a served group. */
function isDiscoveryPath(segments: string[], ctx: RouterContext): boolean {
  const [root, a, b] = segments;
  if (segments.length === 1) return root === "version" || root === "api" || root === "apis";
  if (root === "api" && segments.length === 2) return ctx.store.registry.forGroupVersion("", a).length > 0;
  if (root !== "apis" || segments.length > 3) return false;
  if (segments.length === 3) return ctx.store.registry.forGroupVersion(a, b).length > 0;
  return ctx.store.registry.all().some((d) => d.group === a);
}

/** A path outside every served group: kube's mux answers a plain-text 404, not a Status. */
class PageNotFound extends Error {}

/**
 * The 404 for a path nothing serves: a Status under a served group (unknown version or resource), else the mux's
 * plain-text `404 page not found`.
 */
function notFoundPath(segments: string[] = [], ctx?: RouterContext): Error {
  const [root, group] = segments;
  const servedGroup = root === "api" ||
    (root === "apis" && group !== undefined &&
      (ctx?.store.registry.all().some((d) => d.group === group) ||
        [...(ctx?.aggregated.keys() ?? [])].some((gv) => gv.split("/")[0] === group)));
  if (ctx && !servedGroup && !(root === "openapi")) return new PageNotFound("404 page not found");
  return noSuchResource();
}

/** `/api` or `/apis` as aggregated discovery v2; APIService group-versions are asked of their backends. */
async function aggregatedDiscovery(req: Request, url: URL, path: string, ctx: RouterContext): Promise<Response> {
  const headers = { "content-type": DISCOVERY_V2_CONTENT_TYPE, vary: "Accept" };
  if (path === "/api") return jsonResponse(200, coreDiscoveryV2(ctx.store.registry), headers);
  const gvs = [...ctx.aggregated.keys()];
  const groups = discoveryGroups(ctx.store.registry, ctx.preferredVersion, gvs);
  const aggregated: AggregatedResources = new Map();
  await Promise.all(gvs.map(async (gv) => {
    const [group, version] = gv.split("/");
    aggregated.set(
      gv,
      await backendResources(req, url, gv, ctx).then((l) =>
        l === undefined ? undefined : resourcesFromLegacy(l, group, version)
      ),
    );
  }));
  return jsonResponse(200, groupsDiscoveryV2(ctx.store.registry, groups, aggregated), headers);
}

/** The backend's APIResourceList for `/apis/<gv>`, or undefined when it does not answer 200 JSON. */
async function backendResources(req: Request, url: URL, gv: string, ctx: RouterContext): Promise<unknown> {
  const target = ctx.aggregated.get(gv)!;
  const probeUrl = new URL(`/apis/${gv}`, url);
  const probe = new Request(probeUrl, { headers: { accept: "application/json" }, signal: req.signal });
  try {
    const res = await proxy(probe, probeUrl, target, await ctx.proxyClientCert?.());
    if (res.status !== 200) {
      await res.body?.cancel();
      return undefined;
    }
    return await res.json();
  } catch {
    return undefined;
  }
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Parses `/api/v1/...` and `/apis/<g>/<v>/...` into a resource route (or an aggregated proxy target). */
function resourceRoute(
  segments: string[],
  ctx: RouterContext,
): ResourceRoute | { proxy: AggregatedTarget } | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === "api" && segments.length >= 3) {
    [group, version, rest] = ["", segments[1], segments.slice(2)];
  } else if (segments[0] === "apis" && segments.length >= 3) {
    [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
    const target = ctx.aggregated.get(`${group}/${version}`);
    if (target) return { proxy: target };
    if (rest.length === 0) return undefined;
  } else return undefined;
  // The deprecated watch paths (`.../watch/namespaces/{ns}/{plural}[/{name}]`), still served: no subresources.
  const watch = rest[0] === "watch" && rest.length >= 2 ? true : undefined;
  if (watch) rest = rest.slice(1);
  const registry = ctx.store.registry;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const def = registry.lookup(group, version, rest[2]);
    if (def?.namespaced) {
      if (watch && rest.length > 4) throw notFoundPath(segments, ctx);
      return { def, namespace: rest[1], name: rest[3], subresource: rest[4], watch };
    }
  }
  const def = registry.lookup(group, version, rest[0]);
  if (!def) throw notFoundPath(segments, ctx);
  // A proxy subresource carries the proxied path after it (`nodes/n1/proxy/metrics`).
  if (rest.length > (watch ? 2 : 3) && (watch || rest[2] !== "proxy")) throw notFoundPath(segments, ctx);
  return { def, name: rest[1], subresource: rest[2], watch };
}

async function handleReview(req: Request, route: ResourceRoute, ctx: RouterContext, user: UserInfo): Promise<Response> {
  const bytes = await readBody(req);
  const type = mediaType(req.headers.get("content-type"));
  let decoded: unknown;
  try {
    // A review is created like any object: decoded into its Go type, unknown fields refused under Strict.
    decoded = decodeObjectBody(bytes, type, route.def, "create");
    const def = route.def;
    const unknown = dropUnknownGoFields(def.group, def.version, def.kind, decoded).map(strictFieldPath);
    const fieldValidation = new URL(req.url).searchParams.get("fieldValidation") ?? undefined;
    applyFieldValidation({ def, verb: "create", fieldValidation, warnings: [] }, unknown);
  } catch (err) {
    // A kind the protobuf decoder lacks must not turn `kubectl auth can-i` into a 400.
    if (type !== "application/vnd.kubernetes.protobuf") throw err;
    decoded = { metadata: {}, spec: {} };
  }
  const body = requireObject(decoded, "create") as KubeObject;
  const manager = fieldManagerOf(req, new URL(req.url).searchParams);
  const nowMs = ctx.clock.now();
  const out = answerReview(body, route, {
    user,
    authorizer: ctx.authorizer ?? ALLOW_ALL,
    tokens: ctx.authn.tokens,
    adminToken: ctx.authn.token,
    faults: ctx.faults,
    nowMs,
    managedFields: (review) => reviewManagedFields(review, route.def, manager, nowMs),
  });
  const metadataCause = reviewMetadataCause(body, route.def, manager, nowMs, route.namespace);
  if (metadataCause) throw invalid({ group: route.def.group, kind: "", plural: "" }, "", [metadataCause]);
  return jsonResponse(201, out);
}

/** Forwards a request to an aggregated API server (front-proxy identity headers); 503 when it cannot be reached. */
export async function proxy(
  req: Request,
  url: URL,
  target: AggregatedTarget,
  clientCert?: { certPEM: string; keyPEM: string },
  user: UserInfo = ADMIN_USER,
): Promise<Response> {
  if (typeof target === "function") return await target(req);
  const dest = new URL(url.pathname + url.search, target.url);
  const headers = new Headers(req.headers);
  for (const h of [...headers.keys()]) {
    if (h.startsWith("x-remote-") || h.startsWith("impersonate-")) headers.delete(h);
  }
  for (const h of ["authorization", "host"]) headers.delete(h);
  headers.set("x-remote-user", user.username);
  for (const g of user.groups) headers.append("x-remote-group", g);
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    for (const v of values) headers.append(`x-remote-extra-${encodeURIComponent(key)}`, v);
  }
  const reqBody = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
  try {
    if (dest.protocol === "https:") {
      // As kube's aggregator: the caBundle, the Service's DNS name, or no check at all (node:https; see its module).
      const res = await nodeHttpsFetch(dest, {
        method: req.method,
        headers,
        body: reqBody,
        signal: req.signal,
        cert: clientCert?.certPEM,
        key: clientCert?.keyPEM,
        caPEM: target.caPEM,
        serverName: target.serverName,
        insecureSkipVerify: target.insecureSkipTLSVerify,
      });
      const out = new Headers(res.headers);
      out.delete("content-length");
      out.delete("transfer-encoding");
      return new Response(res.body, { status: res.status, headers: out });
    }
    const res = await fetch(dest, { method: req.method, headers, body: reqBody, signal: req.signal });
    const out = new Headers(res.headers);
    out.delete("content-length");
    out.delete("transfer-encoding");
    return new Response(res.body, { status: res.status, headers: out });
  } catch (err) {
    return unreachable(err);
  }
}

function unreachable(err: unknown): Response {
  return jsonResponse(
    503,
    failureStatus(503, "ServiceUnavailable", `error trying to reach service: ${(err as Error).message}`),
  );
}
