/**
 * The fake server's authentication and authorization step, run before any handler as kube-apiserver's filter chain
 * runs it: authenticate (401 when credentials do not hold), impersonate (403 without the `impersonate` verb), then
 * authorize the request's attributes with RBAC (403 with kube's message). With RBAC off every authenticated request
 * is allowed, impersonation included.
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { authenticate, type AuthnContext, impersonate } from "./authn.ts";
import { CLIENT_CERT_INVALID_HEADER } from "./https_server.ts";
import type { FaultHooks } from "./faults.ts";
import { forbiddenStatus, type RbacAuthorizer, type UserInfo } from "./rbac_authorizer.ts";
import { requestInfo } from "./request_info.ts";
import type { AuthMetrics } from "../../runtime/observe/auth_metrics.ts";

/** What {@link admitRequest} needs. */
export interface AuthContext {
  authn: AuthnContext;
  /** Absent when RBAC is off. */
  authorizer?: RbacAuthorizer;
  faults: FaultHooks;
  /** kube-apiserver's `authentication_attempts{result}` and `apiserver_authorization_decisions_total` (on /metrics). */
  authMetrics?: AuthMetrics;
}

function unauthorized(): ApiError {
  return new ApiError(failureStatus(401, "Unauthorized", "Unauthorized"), { verb: "request" });
}

/**
 * Returns the identity a request acts as, or throws the 401/403 ApiError kube-apiserver would answer with.
 */
export async function admitRequest(req: Request, url: URL, ctx: AuthContext): Promise<UserInfo> {
  const user = authenticate(req, ctx.authn);
  if (!user) {
    // kube's result label: "error" for credentials that do not hold, "failure" for none while anonymous auth is off.
    const presented = req.headers.has("authorization") || req.headers.has(CLIENT_CERT_INVALID_HEADER);
    ctx.authMetrics?.attempts.inc({ result: presented ? "error" : "failure" });
    await ctx.faults.apply("request", undefined).catch(() => {});
    throw unauthorized();
  }
  ctx.authMetrics?.attempts.inc({ result: "success" });
  const rbac = ctx.authorizer;
  const info = requestInfo(req.method, url);
  const effective = impersonate(
    req,
    user,
    info,
    (attrs) => rbac ? rbac.authorize(attrs) : { allowed: true, reason: "" },
  );
  if (!rbac) return effective;
  const attrs = { ...info, user: effective };
  const decision = rbac.authorize(attrs);
  ctx.authMetrics?.decisions.inc({ type: "RBAC", name: "rbac", decision: decision.allowed ? "allowed" : "denied" });
  if (!decision.allowed) {
    if (req.body && !req.bodyUsed) await req.body.cancel().catch(() => {});
    throw new ApiError(forbiddenStatus(attrs, decision.reason), {
      verb: attrs.verb,
      resource: attrs.resource,
      namespace: attrs.namespace,
      name: attrs.name,
    });
  }
  return effective;
}
