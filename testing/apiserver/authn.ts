/**
 * Who a request to the fake server comes from, as kube-apiserver's authenticators decide it: the admin bearer token
 * or the admin client certificate is the admin (`kubeop-dev`, group system:masters); a bearer token the fake issued
 * through serviceaccounts/token (./service_account_tokens.ts) is its ServiceAccount; a verified client certificate is
 * its CN with its O's as groups. A bearer token that does not hold or a certificate that does not chain is refused
 * (401), anonymous auth or not. A request with no credentials is `system:anonymous` (group system:unauthenticated),
 * which RBAC then authorizes like anyone else — or 401 with anonymous auth off, or the admin when a test asked for
 * `anonymousAdmin`. Impersonation headers (Impersonate-User, -Group, -Uid, -Extra-*) then switch the identity when
 * the requester may `impersonate` (kube's impersonation filter).
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import { CLIENT_CERT_GROUPS_HEADER, CLIENT_CERT_HEADER, CLIENT_CERT_INVALID_HEADER } from "./https_server.ts";
import { type Decision, forbiddenStatus, type RequestAttributes, type UserInfo } from "./rbac_authorizer.ts";
import type { ServiceAccountTokens } from "./service_account_tokens.ts";

/** The identity of the admin token, the admin certificate and (with `anonymousAdmin`) requests without credentials. */
export const ADMIN_USER: UserInfo = {
  username: "kubeop-dev",
  uid: "kubeop-dev",
  groups: ["system:masters", "system:authenticated"],
};

const AUTHENTICATED = "system:authenticated";
const UNAUTHENTICATED = "system:unauthenticated";

/** Who a request without credentials is when anonymous auth is on (kube's anonymous authenticator). */
export const ANONYMOUS_USER: UserInfo = { username: "system:anonymous", groups: [UNAUTHENTICATED] };

/**
 * What a request without credentials becomes: `anonymous` (kube's default: system:anonymous, authorized by RBAC),
 * `refuse` (401, kube-apiserver `--anonymous-auth=false`) or `admin` (the fake's opt-in test convenience).
 */
export type AnonymousMode = "anonymous" | "refuse" | "admin";

/** What authentication needs to know. */
export interface AuthnContext {
  /** The admin bearer token. */
  token?: string;
  /** What a request without credentials becomes. */
  anonymous: AnonymousMode;
  /** Tokens the fake issued. */
  tokens: ServiceAccountTokens;
  /** Whether client certificate headers may be trusted (HTTPS listener). */
  tls: boolean;
}

/** Groups of a ServiceAccount's user (serviceaccount.MakeGroupNames + system:authenticated). */
export function serviceAccountGroups(namespace: string): string[] {
  return ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, AUTHENTICATED];
}

/**
 * The requester, or undefined when the request must be answered 401.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ANONYMOUS_USER, authenticate } from "./authn.ts";
 * import type { ServiceAccountTokens } from "./service_account_tokens.ts";
 * // the server's issued tokens (none here)
 * const tokens = { review: () => undefined, looksIssued: () => false } as unknown as ServiceAccountTokens;
 * const ctx = { token: "t", anonymous: "anonymous" as const, tokens, tls: false };
 * assert.equal(authenticate(new Request("http://x/api"), ctx), ANONYMOUS_USER);
 * const bad = new Request("http://x/api", { headers: { authorization: "Bearer nope" } });
 * assert.equal(authenticate(bad, ctx), undefined); // 401
 * ```
 */
export function authenticate(req: Request, ctx: AuthnContext): UserInfo | undefined {
  const auth = req.headers.get("authorization");
  if (auth !== null) {
    // kube's bearer authenticator: a token that does not hold fails the request, whatever else it carries.
    const bearer = auth.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (bearer !== undefined) {
      if (ctx.token !== undefined && bearer === ctx.token) return ADMIN_USER;
      const sa = ctx.tokens.review(bearer);
      if (sa) return sa.user;
      return undefined;
    }
  }
  if (ctx.tls && req.headers.has(CLIENT_CERT_INVALID_HEADER)) return undefined;
  if (ctx.tls && req.headers.has(CLIENT_CERT_HEADER)) {
    const cn = req.headers.get(CLIENT_CERT_HEADER) ?? "";
    const groups = (req.headers.get(CLIENT_CERT_GROUPS_HEADER) ?? "").split(",").filter(Boolean).map(
      decodeURIComponent,
    );
    if (cn === ADMIN_USER.username && groups.includes("system:masters")) return ADMIN_USER;
    return { username: cn, groups: [...groups, AUTHENTICATED] };
  }
  return ctx.anonymous === "admin" ? ADMIN_USER : ctx.anonymous === "anonymous" ? ANONYMOUS_USER : undefined;
}

interface WantedUser {
  username: string;
  groups: string[];
  uid?: string;
  extra: Array<[string, string]>;
}

type Check = Omit<RequestAttributes, "user" | "verb" | "resourceRequest">;

/**
 * Applies impersonation headers as kube-apiserver v1.37 does (ConstrainedImpersonation, beta and on since v1.36):
 * each applicable constrained mode (`arbitrary-node`, `serviceaccount`, `user-info`) first needs
 * `impersonate-on:<mode>:<verb>` on the request itself and then `impersonate:<mode>` on the identity; the legacy
 * mode needs `impersonate` on users, groups, serviceaccounts, uids and userextras. The first mode that passes
 * decides; when none does, the first refusal is answered. Returns the requester when there are no such headers.
 * @throws ApiError 403 when no mode allows it, 400 when groups or a uid come without a user.
 */
export function impersonate(
  req: Request,
  requester: UserInfo,
  request: Omit<RequestAttributes, "user">,
  authorize: (attrs: RequestAttributes) => Decision,
): UserInfo {
  const h = req.headers;
  const user = h.get("impersonate-user");
  const groupHeader = h.get("impersonate-group");
  const groups = groupHeader === null ? [] : groupHeader.split(",").map((g) => g.trim());
  const uid = h.get("impersonate-uid") ?? undefined;
  const extra: Array<[string, string]> = [];
  h.forEach((value, name) => {
    if (!name.startsWith("impersonate-extra-")) return;
    const key = decodeURIComponent(name.slice("impersonate-extra-".length));
    for (const v of value.split(",")) extra.push([key, v.trim()]);
  });
  if (user === null && groupHeader === null && uid === undefined && extra.length === 0) return requester;
  if (user === null) {
    const asked = [...groups.map((g) => `Group=${g}`), ...(uid !== undefined ? [`UID=${uid}`] : [])];
    throw new ApiError(
      failureStatus(400, "BadRequest", `requested [${asked.join(" ")}] without impersonating a user`),
      { verb: "impersonate" },
    );
  }
  const wanted: WantedUser = { username: user, groups, uid, extra };
  const check = (attrs: RequestAttributes): ApiError | undefined => {
    const decision = authorize(attrs);
    return decision.allowed ? undefined : new ApiError(forbiddenStatus(attrs, decision.reason), { verb: attrs.verb });
  };
  const onlyUsername = groups.length === 0 && uid === undefined && extra.length === 0;
  const node = /^system:node:(.+)$/.test(user);
  const sa = /^system:serviceaccount:[^:]+:[^:]+$/.test(user);
  const modes: Array<[string, boolean]> = [
    ["arbitrary-node", onlyUsername && node],
    ["serviceaccount", onlyUsername && sa],
    ["user-info", !node && !sa],
  ];
  let firstErr: ApiError | undefined;
  for (const [mode, applies] of modes) {
    if (!applies) continue;
    const verb = `impersonate-on:${mode}:${request.verb}`;
    const err = check({ ...request, user: requester, verb }) ??
      identityCheck(
        wanted,
        `impersonate:${mode}`,
        "authentication.k8s.io",
        (c, v) => check({ user: requester, verb: v, resourceRequest: true, ...c }),
      );
    if (!err) return impersonatedUser(wanted);
    firstErr ??= err;
  }
  const legacyErr = identityCheck(
    wanted,
    "impersonate",
    "",
    (c, v) => check({ user: requester, verb: v, resourceRequest: true, ...c }),
  );
  if (!legacyErr) return impersonatedUser(wanted);
  throw firstErr ?? legacyErr;
}

/** The `impersonate[:<mode>]` checks of one identity (impersonationModeState.check); the first refusal. */
function identityCheck(
  wanted: WantedUser,
  verb: string,
  userGroup: string,
  check: (attrs: Check, verb: string) => ApiError | undefined,
): ApiError | undefined {
  const version = "v1";
  const node = wanted.username.match(/^system:node:(.+)$/);
  const sa = wanted.username.match(/^system:serviceaccount:([^:]+):([^:]+)$/);
  const constrained = verb !== "impersonate";
  const usernameCheck: Check = node && constrained
    ? { apiGroup: userGroup, apiVersion: version, resource: "nodes", name: node[1] }
    : sa
    ? { apiGroup: userGroup, apiVersion: version, resource: "serviceaccounts", namespace: sa[1], name: sa[2] }
    : { apiGroup: userGroup, apiVersion: version, resource: "users", name: wanted.username };
  const checks: Check[] = [usernameCheck];
  if (wanted.uid !== undefined) {
    checks.push({ apiGroup: "authentication.k8s.io", apiVersion: "v1", resource: "uids", name: wanted.uid });
  }
  for (const g of wanted.groups) checks.push({ apiGroup: userGroup, apiVersion: version, resource: "groups", name: g });
  for (const [key, value] of wanted.extra) {
    checks.push({
      apiGroup: "authentication.k8s.io",
      apiVersion: "v1",
      resource: "userextras",
      subresource: key,
      name: value,
    });
  }
  for (const c of checks) {
    const err = check(c, verb);
    if (err) return err;
  }
  return undefined;
}

function impersonatedUser(wanted: WantedUser): UserInfo {
  const sa = wanted.username.match(/^system:serviceaccount:([^:]+):([^:]+)$/);
  const node = /^system:node:/.test(wanted.username) && wanted.groups.length === 0;
  let groups = [...wanted.groups];
  if (sa && groups.length === 0) groups = serviceAccountGroups(sa[1]).filter((g) => g !== AUTHENTICATED);
  else if (node) groups = ["system:nodes"];
  if (wanted.username === "system:anonymous") {
    if (!groups.includes(UNAUTHENTICATED)) groups.push(UNAUTHENTICATED);
  } else if (!groups.includes(UNAUTHENTICATED) && !groups.includes(AUTHENTICATED)) groups.push(AUTHENTICATED);
  const extra: Record<string, string[]> = {};
  for (const [key, value] of wanted.extra) (extra[key] ??= []).push(value);
  return {
    username: wanted.username,
    groups,
    ...(wanted.uid !== undefined ? { uid: wanted.uid } : {}),
    ...(wanted.extra.length ? { extra } : {}),
  };
}
