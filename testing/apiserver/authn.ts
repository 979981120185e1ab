/**
 * Who a request to the fake server comes from. Without credentials, or with the admin token or the admin client
 * certificate, it is the admin (`kubeop-dev`, group system:masters). A bearer token the fake issued through
 * serviceaccounts/token (./service_account_tokens.ts) is its ServiceAccount; a verified client certificate is its
 * CN with its O's as groups. Impersonation headers (Impersonate-User, -Group, -Uid, -Extra-*) then switch the
 * identity when the requester may `impersonate` (kube's impersonation filter).
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
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
