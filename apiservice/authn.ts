/**
 * Delegated authentication, as k8s.io/apiserver does it for an aggregated server: the front proxy (kube-apiserver's
 * aggregator) presents a client certificate signed by the requestheader client CA, and only then are the
 * X-Remote-User / X-Remote-Group / X-Remote-Extra-* headers believed (and only when the certificate's CN is in
 * requestheader-allowed-names, if that list is non-empty). Bearer tokens are checked with a TokenReview when the
 * cluster offers one. Anything else is anonymous; the router answers 401 for it except on health endpoints.
 * @module
 */
import type { ConfigMapObject, FarmCluster, UserInfo } from "./cluster.ts";

/** The requestheader options (flags, or the extension-apiserver-authentication ConfigMap). */
export interface RequestHeaderConfig {
  /** PEM bundle of the CA(s) that sign the front proxy's client certificate. */
  clientCAPEM: string;
  /** Allowed client certificate CNs; empty = any certificate the CA signed. */
  allowedNames: string[];
  /** Headers naming the user. */
  usernameHeaders: string[];
  /** Headers carrying the user's UID. */
  uidHeaders: string[];
  /** Headers naming groups. */
  groupHeaders: string[];
  /** Prefixes of headers carrying extra attributes. */
  extraHeaderPrefixes: string[];
}

/** Defaults of kube-apiserver's flags (`X-Remote-User`, `X-Remote-Group`, `X-Remote-Extra-`). */
export const REQUESTHEADER_DEFAULTS: Omit<RequestHeaderConfig, "clientCAPEM"> = {
  allowedNames: [],
  usernameHeaders: ["X-Remote-User"],
  uidHeaders: [],
  groupHeaders: ["X-Remote-Group"],
  extraHeaderPrefixes: ["X-Remote-Extra-"],
};

/** Where the authentication ConfigMap lives. */
export const AUTHENTICATION_CONFIGMAP = { namespace: "kube-system", name: "extension-apiserver-authentication" };

function jsonList(data: Record<string, string>, key: string): string[] | undefined {
  const raw = data[key];
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.map(String) : undefined;
  } catch {
    return raw.split(",").map((s) => s.trim()).filter(Boolean);
  }
}

/**
 * Reads the requestheader options from kube-system/extension-apiserver-authentication (the keys kube-apiserver
 * writes: requestheader-client-ca-file, requestheader-allowed-names, requestheader-username-headers,
 * requestheader-uid-headers, requestheader-group-headers, requestheader-extra-headers-prefix). Returns undefined when
 * the ConfigMap or its CA is missing.
 */
export function requestHeaderFromConfigMap(cm: ConfigMapObject | undefined): RequestHeaderConfig | undefined {
  const data = cm?.data ?? {};
  const clientCAPEM = data["requestheader-client-ca-file"];
  if (!clientCAPEM) return undefined;
  return {
    clientCAPEM,
    allowedNames: jsonList(data, "requestheader-allowed-names") ?? [],
    usernameHeaders: jsonList(data, "requestheader-username-headers") ?? REQUESTHEADER_DEFAULTS.usernameHeaders,
    uidHeaders: jsonList(data, "requestheader-uid-headers") ?? [],
    groupHeaders: jsonList(data, "requestheader-group-headers") ?? REQUESTHEADER_DEFAULTS.groupHeaders,
    extraHeaderPrefixes: jsonList(data, "requestheader-extra-headers-prefix") ??
      REQUESTHEADER_DEFAULTS.extraHeaderPrefixes,
  };
}

/** What the TLS layer knows about the connection. */
export interface PeerInfo {
  /** The client certificate chained to the requestheader CA (node's `socket.authorized`). */
  verified: boolean;
  /** Subject CN of the presented certificate. */
  commonName?: string;
}

/** The outcome of authentication. */
export type AuthnResult =
  | { kind: "user"; user: UserInfo; via: "requestheader" | "token" }
  /** A verified front proxy that named no user (the aggregator's own availability and OpenAPI calls). */
  | { kind: "front-proxy" }
  | { kind: "anonymous"; reason: string };

/** The headers a front proxy may set, lower-cased, so they can be dropped from untrusted requests. */
export function requestHeaderNames(cfg: RequestHeaderConfig): { exact: string[]; prefixes: string[] } {
  return {
    exact: [...cfg.usernameHeaders, ...cfg.uidHeaders, ...cfg.groupHeaders].map((h) => h.toLowerCase()),
    prefixes: cfg.extraHeaderPrefixes.map((p) => p.toLowerCase()),
  };
}

function first(headers: Headers, names: string[]): string | undefined {
  for (const n of names) {
    const v = headers.get(n)?.trim();
    if (v) return v;
  }
  return undefined;
}

function all(headers: Headers, names: string[]): string[] {
  // Headers.get joins repeated headers with ", "; group names cannot contain ", " so splitting is safe.
  return names.flatMap((n) => headers.get(n)?.split(",").map((s) => s.trim()).filter(Boolean) ?? []);
}

/**
 * Adds `system:authenticated` to an authenticated user's groups, as k8s.io/apiserver's AuthenticatedGroupAdder does
 * for every delegated authenticator: the aggregator's own OpenAPI downloads arrive as `system:aggregator` with no
 * group, and RBAC grants /openapi/* (ClusterRole system:discovery) only to the group system:authenticated, so without
 * it the SubjectAccessReview denies them and `kubectl explain` cannot find the farm's resources.
 */
function withAuthenticatedGroup(username: string, groups: string[]): string[] {
  if (username === "system:anonymous") return groups;
  if (groups.includes("system:authenticated") || groups.includes("system:unauthenticated")) return groups;
  return [...groups, "system:authenticated"];
}

/**
 * Authenticates one request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Authenticator, REQUESTHEADER_DEFAULTS } from "./authn.ts";
 * const authn = new Authenticator({ requestHeader: { clientCAPEM: "", ...REQUESTHEADER_DEFAULTS } });
 * const r = await authn.authenticate(new Headers({ "X-Remote-User": "mallory" }), { verified: false });
 * assert.ok(r.kind === "anonymous");
 * ```
 */
export class Authenticator {
  #cfg?: RequestHeaderConfig;
  readonly #cluster?: FarmCluster;

  /** Creates the instance from its options. */
  constructor(opts: { requestHeader?: RequestHeaderConfig; cluster?: FarmCluster }) {
    this.#cfg = opts.requestHeader;
    this.#cluster = opts.cluster;
  }

  /** The requestheader configuration in use (undefined: front-proxy authentication is off). */
  get requestHeader(): RequestHeaderConfig | undefined {
    return this.#cfg;
  }

  /** Replaces the requestheader configuration (a rotated front-proxy CA, new allowed names). */
  set requestHeader(cfg: RequestHeaderConfig | undefined) {
    this.#cfg = cfg;
  }

  /** Authenticates one request from its headers and TLS peer. */
  async authenticate(headers: Headers, peer: PeerInfo): Promise<AuthnResult> {
    const cfg = this.#cfg;
    if (cfg && peer.verified) {
      if (cfg.allowedNames.length > 0 && !cfg.allowedNames.includes(peer.commonName ?? "")) {
        return {
          kind: "anonymous",
          reason: `client certificate CN "${peer.commonName}" is not an allowed front proxy`,
        };
      }
      const username = first(headers, cfg.usernameHeaders);
      if (!username) return { kind: "front-proxy" };
      const extra: Record<string, string[]> = {};
      for (const [name, value] of headers) {
        const prefix = cfg.extraHeaderPrefixes.find((p) => name.toLowerCase().startsWith(p.toLowerCase()));
        if (!prefix) continue;
        const key = decodeURIComponent(name.slice(prefix.length)).toLowerCase();
        (extra[key] ??= []).push(...value.split(",").map((s) => s.trim()));
      }
      const user: UserInfo = { username, groups: withAuthenticatedGroup(username, all(headers, cfg.groupHeaders)) };
      const uid = first(headers, cfg.uidHeaders);
      if (uid) user.uid = uid;
      if (Object.keys(extra).length) user.extra = extra;
      return { kind: "user", user, via: "requestheader" };
    }
    const auth = headers.get("authorization");
    const token = auth?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (token) {
      if (!this.#cluster?.tokenReview) return { kind: "anonymous", reason: "bearer tokens are not accepted here" };
      const review = await this.#cluster.tokenReview(token);
      if (review.authenticated && review.user) {
        const user = { ...review.user, groups: withAuthenticatedGroup(review.user.username, review.user.groups ?? []) };
        return { kind: "user", user, via: "token" };
      }
      return { kind: "anonymous", reason: "invalid bearer token" };
    }
    return { kind: "anonymous", reason: "no verified front-proxy client certificate and no bearer token" };
  }
}
