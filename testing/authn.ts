/**
 * Who a request to the fake server comes from. Without credentials, or with the admin token or the admin client
 * certificate, it is the admin (`kubeop-dev`, group system:masters). A bearer token the fake issued through
 * serviceaccounts/token (./service_account_tokens.ts) is its ServiceAccount; a verified client certificate is its
 * CN with its O's as groups. Impersonation headers (Impersonate-User, -Group, -Uid, -Extra-*) then switch the
 * identity when the requester may `impersonate` (kube's impersonation filter).
 * @module
 */
import { ApiError, failureStatus } from "../runtime/errors.ts";
import { CLIENT_CERT_GROUPS_HEADER, CLIENT_CERT_HEADER } from "./https_server.ts";
import { type Decision, forbiddenStatus, type RequestAttributes, type UserInfo } from "./rbac_authorizer.ts";
import type { ServiceAccountTokens } from "./service_account_tokens.ts";

/** The identity of unauthenticated-but-allowed requests, the admin token and the admin certificate. */
export const ADMIN_USER: UserInfo = {
  username: "kubeop-dev",
  uid: "kubeop-dev",
  groups: ["system:masters", "system:authenticated"],
};

const AUTHENTICATED = "system:authenticated";
const UNAUTHENTICATED = "system:unauthenticated";

/** What authentication needs to know. */
export interface AuthnContext {
  /** The admin bearer token, when configured. */
  token?: string;
  /** Refuse requests without credentials. */
  requireAuth: boolean;
  /** Tokens the fake issued. */
  tokens: ServiceAccountTokens;
  /** Whether client certificate headers may be trusted (HTTPS listener). */
  tls: boolean;
}

/** Groups of a ServiceAccount's user (serviceaccount.MakeGroupNames + system:authenticated). */
export function serviceAccountGroups(namespace: string): string[] {
  return ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, AUTHENTICATED];
}

/** The requester, or undefined when the request must be answered 401. */
export function authenticate(req: Request, ctx: AuthnContext): UserInfo | undefined {
  const auth = req.headers.get("authorization");
  const bearer = auth?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer !== undefined) {
    if (ctx.token !== undefined && bearer === ctx.token) return ADMIN_USER;
    const sa = ctx.tokens.review(bearer);
    if (sa) return sa.user;
    // A fake-issued token that no longer holds (expired, ServiceAccount gone) is refused like any bad token.
    if (ctx.tokens.looksIssued(bearer)) return undefined;
  }
  if (ctx.tls && req.headers.has(CLIENT_CERT_HEADER)) {
    const cn = req.headers.get(CLIENT_CERT_HEADER) ?? "";
    const groups = (req.headers.get(CLIENT_CERT_GROUPS_HEADER) ?? "").split(",").filter(Boolean).map(
      decodeURIComponent,
    );
    if (cn === ADMIN_USER.username && groups.includes("system:masters")) return ADMIN_USER;
    return { username: cn, groups: [...groups, AUTHENTICATED] };
  }
  if (bearer !== undefined && ctx.token !== undefined) return undefined;
  return ctx.requireAuth ? undefined : ADMIN_USER;
}

/**
 * Applies impersonation headers: checks `impersonate` on each requested user, group, uid and extra with
 * `authorize`, and returns the impersonated identity (the requester when there are no such headers).
 * @throws ApiError 403 when an impersonation is not allowed, 400 when groups come without a user.
 */
export function impersonate(
  req: Request,
  requester: UserInfo,
  authorize: (attrs: RequestAttributes) => Decision,
): UserInfo {
  const h = req.headers;
  const user = h.get("impersonate-user");
  const groupsAsked = h.get("impersonate-group") !== null;
  const groupList = groupsAsked ? (h.get("impersonate-group") ?? "").split(",").map((g) => g.trim()) : [];
  const uid = h.get("impersonate-uid");
  const extras: Array<[string, string]> = [];
  h.forEach((value, name) => {
    if (!name.startsWith("impersonate-extra-")) return;
    const key = decodeURIComponent(name.slice("impersonate-extra-".length));
    for (const v of value.split(",")) extras.push([key, v.trim()]);
  });
  if (user === null && !groupsAsked && uid === null && extras.length === 0) return requester;
  if (user === null) {
    const asked = [...groupList.map((g) => `Group=${g}`), ...(uid !== null ? [`UID=${uid}`] : [])];
    throw new ApiError(
      failureStatus(400, "BadRequest", `requested [${asked.join(" ")}] without impersonating a user`),
      { verb: "impersonate" },
    );
  }
  const check = (attrs: Omit<RequestAttributes, "user" | "verb" | "resourceRequest">) => {
    const full: RequestAttributes = { user: requester, verb: "impersonate", resourceRequest: true, ...attrs };
    const decision = authorize(full);
    if (!decision.allowed) throw new ApiError(forbiddenStatus(full, decision.reason), { verb: "impersonate" });
  };
  let username = user;
  let groups: string[] = [];
  const sa = user.match(/^system:serviceaccount:([^:]+):([^:]+)$/);
  if (sa) {
    check({ apiGroup: "", apiVersion: "v1", resource: "serviceaccounts", namespace: sa[1], name: sa[2] });
    if (!groupsAsked) groups = serviceAccountGroups(sa[1]).filter((g) => g !== AUTHENTICATED);
  } else {
    check({ apiGroup: "", apiVersion: "v1", resource: "users", name: user });
  }
  for (const g of groupList) {
    check({ apiGroup: "", apiVersion: "v1", resource: "groups", name: g });
    groups.push(g);
  }
  const extra: Record<string, string[]> = {};
  for (const [key, value] of extras) {
    check({
      apiGroup: "authentication.k8s.io",
      apiVersion: "v1",
      resource: "userextras",
      subresource: key,
      name: value,
    });
    (extra[key] ??= []).push(value);
  }
  if (uid !== null) check({ apiGroup: "authentication.k8s.io", apiVersion: "v1", resource: "uids", name: uid });
  if (username !== "system:anonymous") {
    if (!groups.includes(AUTHENTICATED) && !groups.includes(UNAUTHENTICATED)) groups.push(AUTHENTICATED);
  } else if (!groups.includes(UNAUTHENTICATED)) groups.push(UNAUTHENTICATED);
  username = user;
  return { username, groups, ...(uid !== null ? { uid } : {}), ...(extras.length ? { extra } : {}) };
}
