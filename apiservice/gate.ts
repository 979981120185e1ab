/**
 * The auth gate in front of the router: health endpoints are open; everything else needs an authenticated user
 * (401 otherwise — unlike k8s.io/apiserver, which would map the caller to system:anonymous and answer 403), and
 * every request of a user is authorized with a SubjectAccessReview (403 when denied). A verified front proxy that
 * names no user (kube-apiserver's availability check and OpenAPI aggregation) may read discovery and OpenAPI only.
 * @module
 */
import { failureStatus } from "../runtime/client/errors.ts";
import type { AccessAttributes, UserInfo } from "./cluster.ts";
import type { Authenticator, PeerInfo } from "./authn.ts";
import { type CachingAuthorizer, parseResourcePath } from "./authz.ts";
import { requestVerb } from "../runtime/apimachinery/verbs.ts";
import { statusResponse } from "./http.ts";
import { PUBLIC_PATHS } from "./router.ts";

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
}

function isPublic(path: string): boolean {
  return PUBLIC_PATHS.has(path) || path.startsWith("/livez/") || path.startsWith("/readyz/");
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
 * const anonymous = await gate(new Request(url), { verified: false });
 * assert.ok("response" in anonymous && anonymous.response.status === 401); // answered before the body is read
 * await anonymous.response.body?.cancel();
 * ```
 */
export function createAuthGate(opts: AuthGateOptions): (req: Request, peer: PeerInfo) => Promise<GateResult> {
  return async (req, peer) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "") || "/";
    if (isPublic(path)) return {};
    let authn;
    try {
      authn = await opts.authenticator.authenticate(req.headers, peer);
    } catch (err) {
      opts.onError?.(`authentication failed: ${(err as Error).message}`);
      return { response: statusResponse(failureStatus(500, "InternalError", "authentication failed")) };
    }
    const attrs = accessAttributes(req);
    if (authn.kind === "front-proxy") {
      if (attrs.path && attrs.verb === "get") return {};
      return {
        response: statusResponse(failureStatus(401, "Unauthorized", "Unauthorized: the front proxy named no user")),
      };
    }
    if (authn.kind === "anonymous") {
      return { response: statusResponse(failureStatus(401, "Unauthorized", `Unauthorized: ${authn.reason}`)) };
    }
    let decision;
    try {
      decision = await opts.authorizer.authorize(authn.user, attrs);
    } catch (err) {
      opts.onError?.(`SubjectAccessReview for ${authn.user.username} failed: ${(err as Error).message}`);
      return {
        response: statusResponse(
          failureStatus(500, "InternalError", "Internal error occurred: authorization (SubjectAccessReview) failed"),
        ),
      };
    }
    if (!decision.allowed) {
      const status = failureStatus(403, "Forbidden", forbiddenMessage(authn.user, attrs, decision.reason), {
        name: attrs.name,
        group: attrs.group,
        kind: attrs.resource,
      });
      return { response: statusResponse(status) };
    }
    return { user: authn.user };
  };
}
