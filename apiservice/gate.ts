/**
 * The auth gate in front of the router, k8s.io/apiserver's delegated authentication and authorization in one step,
 * decided from the request line, the headers and the TLS peer alone (no body byte is read before it admits):
 * credentials that do not hold — a bearer token TokenReview refuses, a client certificate that does not chain to a
 * trusted CA — are answered 401 with kube's Status on every path; a request without credentials is system:anonymous
 * (group system:unauthenticated) and is authorized like anyone else. Authorization is kube's delegated authorizer:
 * `/healthz`, `/livez` and `/readyz` are always allowed (AlwaysAllowPaths), the group system:masters may do anything
 * (AlwaysAllowGroups), everything else is a SubjectAccessReview (403 with kube's wording when denied) — so with kube's
 * default RBAC an anonymous caller may read /version (system:public-info-viewer) and nothing else. A verified front
 * proxy that names no user (kube-apiserver's availability check and OpenAPI aggregation) may read discovery and
 * OpenAPI only. Refusals are counted in kube's `authentication_attempts` and `apiserver_authorization_decisions_total`.
 * @module
 */
import { failureStatus } from "../runtime/client/errors.ts";
import type { AuthMetrics } from "../runtime/observe/auth_metrics.ts";
import type { AccessAttributes, UserInfo } from "./cluster.ts";
import type { Authenticator, PeerInfo } from "./authn.ts";
import { type CachingAuthorizer, parseResourcePath } from "./authz.ts";
import { requestVerb } from "../runtime/apimachinery/verbs.ts";
import { statusResponse } from "./http.ts";

/** The gate's verdict: continue as `user`, or answer with `response`. */
export type GateResult = { user?: UserInfo } | { response: Response };

/** Options of {@link createAuthGate}. */
export interface AuthGateOptions {
  /** Who the caller is. */
  authenticator: Authenticator;
  /** What the caller may do. */
  authorizer: CachingAuthorizer;
  /** Reports a failed SubjectAccessReview/TokenReview (never includes tokens). */
  onError?: (message: string) => void;
  /** Where refused and admitted callers are counted (kube's metric names). */
  metrics?: AuthMetrics;
}

/** k8s.io/apiserver's default AlwaysAllowPaths: authorized without a SubjectAccessReview (still authenticated). */
export const ALWAYS_ALLOW_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/livez"]);

/** k8s.io/apiserver's default AlwaysAllowGroups. */
const ALWAYS_ALLOW_GROUPS = ["system:masters"];

/** kube-apiserver's 401 body: message "Unauthorized", whatever failed (the reason stays out of the answer). */
function unauthorized(): Response {
  return statusResponse(failureStatus(401, "Unauthorized", "Unauthorized"));
}

/** The SubjectAccessReview attributes of a request. */
export function accessAttributes(req: Request): AccessAttributes {
  const url = new URL(req.url);
  const resource = parseResourcePath(url.pathname);
  if (!resource) {
    return {
      verb: req.method === "GET" || req.method === "HEAD" ? "get" : req.method.toLowerCase(),
      path: url.pathname,
    };
  }
  return {
    verb: requestVerb(req.method, Boolean(resource.name), url.searchParams),
    group: resource.group,
    version: resource.version,
    resource: resource.resource,
    subresource: resource.subresource,
    namespace: resource.namespace,
    name: resource.name,
  };
}

function forbiddenMessage(user: UserInfo, a: AccessAttributes, reason?: string): string {
  const who = `User "${user.username}"`;
  const why = reason ? `: ${reason}` : "";
  if (a.path) return `forbidden: ${who} cannot ${a.verb} path "${a.path}"${why}`;
  const what = `${a.resource}.${a.group}${a.name ? ` "${a.name}"` : ""}`;
  const where = a.namespace ? ` in the namespace "${a.namespace}"` : " at the cluster scope";
  return `${what} is forbidden: ${who} cannot ${a.verb} resource "${a.resource}" in API group "${a.group}"${where}${why}`;
}

/**
 * Creates the gate.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../runtime/clock.ts";
 * import { Authenticator, REQUESTHEADER_DEFAULTS } from "./authn.ts";
 * import { CachingAuthorizer } from "./authz.ts";
 * import { createAuthGate } from "./gate.ts";
 * import { MemoryFarmCluster } from "./memory_cluster.ts";
 * const cluster = new MemoryFarmCluster({ tokens: { "alice-token": { username: "alice", groups: [] } } });
 * const authenticator = new Authenticator({ requestHeader: { clientCAPEM: "", ...REQUESTHEADER_DEFAULTS }, cluster });
 * const authorizer = new CachingAuthorizer({ cluster, clock: new VirtualClock() });
 * const gate = createAuthGate({ authenticator, authorizer });
 * const url = "https://farm/apis/farm.example.com/v1alpha/namespaces/default/llamas";
 * const alice = await gate(new Request(url, { headers: { authorization: "Bearer alice-token" } }), { verified: false });
 * assert.ok("user" in alice && alice.user?.username === "alice"); // TokenReview, then SubjectAccessReview
 * const anonymous = await gate(new Request(url), { verified: false }); // system:anonymous, authorized by SAR
 * assert.ok("response" in anonymous && anonymous.response.status === 403);
 * await anonymous.response.body?.cancel();
 * const forged = await gate(new Request(url, { headers: { authorization: "Bearer nope" } }), { verified: false });
 * assert.ok("response" in forged && forged.response.status === 401); // answered before the body is read
 * await forged.response.body?.cancel();
 * ```
 */
export function createAuthGate(opts: AuthGateOptions): (req: Request, peer: PeerInfo) => Promise<GateResult> {
  const decided = (decision: "allowed" | "denied") =>
    opts.metrics?.decisions.inc({ type: "Webhook", name: "webhook", decision });
  return async (req, peer) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "") || "/";
    let authn;
    try {
      authn = await opts.authenticator.authenticate(req.headers, peer);
    } catch (err) {
      opts.onError?.(`authentication failed: ${(err as Error).message}`);
      opts.metrics?.attempts.inc({ result: "error" });
      return { response: statusResponse(failureStatus(500, "InternalError", "authentication failed")) };
    }
    if (authn.kind === "unauthorized") {
      opts.metrics?.attempts.inc({ result: authn.result });
      return { response: unauthorized() };
    }
    opts.metrics?.attempts.inc({ result: "success" });
    if (ALWAYS_ALLOW_PATHS.has(path)) return {};
    const attrs = accessAttributes(req);
    if (authn.kind === "front-proxy") {
      if (attrs.path && attrs.verb === "get") return {};
      return { response: unauthorized() };
    }
    const user = authn.user;
    if (user.groups.some((g) => ALWAYS_ALLOW_GROUPS.includes(g))) return { user };
    let decision;
    try {
      decision = await opts.authorizer.authorize(user, attrs);
    } catch (err) {
      opts.onError?.(`SubjectAccessReview for ${user.username} failed: ${(err as Error).message}`);
      return {
        response: statusResponse(
          failureStatus(500, "InternalError", "Internal error occurred: authorization (SubjectAccessReview) failed"),
        ),
      };
    }
    decided(decision.allowed ? "allowed" : "denied");
    if (!decision.allowed) {
      const status = failureStatus(403, "Forbidden", forbiddenMessage(user, attrs, decision.reason), {
        name: attrs.name,
        group: attrs.group,
        kind: attrs.resource,
      });
      return { response: statusResponse(status) };
    }
    return { user };
  };
}
