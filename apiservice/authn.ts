/**
 * Delegated authentication, as k8s.io/apiserver does it for an aggregated server: the front proxy (kube-apiserver's
 * aggregator) presents a client certificate signed by the requestheader client CA, and only then are the
 * X-Remote-User / X-Remote-Group / X-Remote-Extra-* headers believed (and only when the certificate's CN is in
 * requestheader-allowed-names, if that list is non-empty). Bearer tokens are checked with a TokenReview when the
 * cluster offers one; a certificate signed by the cluster's client CA (client-ca-file) is its CN and O's. Credentials
 * that do not hold are refused (401); a request with none is system:anonymous, authorized like anyone (./gate.ts).
 * @module
 */
import { chainIssuedBy } from "./cert_chain.ts";
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
  /** The client certificate chained to a trusted CA (node's `socket.authorized`). */
  verified: boolean;
  /** A client certificate was sent at all (default: `verified`, or a known CN). */
  presented?: boolean;
  /** Subject CN of the presented certificate. */
  commonName?: string;
  /** Subject O's of the presented certificate (the groups of an x509 user). */
  organizations?: string[];
  /** The chain the peer sent, DER, leaf first; tells which trusted CA issued it (absent: the front-proxy CA). */
  chain?: Uint8Array[];
}

/** The user a request without credentials becomes (kube's anonymous authenticator). */
export const ANONYMOUS_USER: UserInfo = { username: "system:anonymous", groups: ["system:unauthenticated"] };

/** The outcome of authentication. */
export type AuthnResult =
  | { kind: "user"; user: UserInfo; via: "requestheader" | "x509" | "token" }
  /** A verified front proxy that named no user (the aggregator's own availability and OpenAPI calls). */
  | { kind: "front-proxy" }
  /** No credentials at all, anonymous auth on: system:anonymous, to be authorized like anyone. */
  | { kind: "anonymous"; user: UserInfo }
  /**
   * Answer 401: credentials that do not hold (`error`: a bearer token TokenReview refused, a client certificate
   * that does not chain to a trusted CA or names a front proxy not allowed) or none with anonymous auth off
   * (`failure`) — the `result` of kube's authentication_attempts.
   */
  | { kind: "unauthorized"; result: "failure" | "error"; reason: string };

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
 * Authenticates one request as k8s.io/apiserver's delegating authenticator does: the union of the requestheader
 * (front proxy) authenticator, the x509 client-certificate authenticator (client-ca-file) and the TokenReview bearer
 * authenticator, the first that succeeds wins; when none does and one of them failed (a certificate that does not
 * verify, a token TokenReview refused), the request is refused (401) — only a request with no credentials at all
 * becomes system:anonymous (anonymous auth on, the default) and is authorized like any other.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Authenticator, REQUESTHEADER_DEFAULTS } from "./authn.ts";
 * const authn = new Authenticator({ requestHeader: { clientCAPEM: "", ...REQUESTHEADER_DEFAULTS } });
 * const forged = await authn.authenticate(new Headers({ "X-Remote-User": "mallory" }), { verified: false });
 * assert.ok(forged.kind === "anonymous" && forged.user.username === "system:anonymous");
 * const badToken = await authn.authenticate(new Headers({ authorization: "Bearer x" }), { verified: false });
 * assert.ok(badToken.kind === "unauthorized");
 * ```
 */
export class Authenticator {
  #cfg?: RequestHeaderConfig;
  #clientCAPEM?: string;
  readonly #cluster?: FarmCluster;
  readonly #anonymous: boolean;

  /** Creates the instance from its options. */
  constructor(opts: {
    requestHeader?: RequestHeaderConfig;
    /** The cluster's client CA (client-ca-file): certificates it signed authenticate as their CN and O's. */
    clientCAPEM?: string;
    cluster?: FarmCluster;
    /** Requests without credentials become system:anonymous (default true); false answers them 401. */
    anonymous?: boolean;
  }) {
    this.#cfg = opts.requestHeader;
    this.#clientCAPEM = opts.clientCAPEM;
    this.#cluster = opts.cluster;
    this.#anonymous = opts.anonymous ?? true;
  }

  /** The requestheader configuration in use (undefined: front-proxy authentication is off). */
  get requestHeader(): RequestHeaderConfig | undefined {
    return this.#cfg;
  }

  /** Replaces the requestheader configuration (a rotated front-proxy CA, new allowed names). */
  set requestHeader(cfg: RequestHeaderConfig | undefined) {
    this.#cfg = cfg;
  }

  /** The client CA in use (undefined: x509 client-certificate users are off). */
  get clientCAPEM(): string | undefined {
    return this.#clientCAPEM;
  }

  /** Replaces the client CA (a rotated client-ca-file). */
  set clientCAPEM(pem: string | undefined) {
    this.#clientCAPEM = pem;
  }

  /** Authenticates one request from its headers and TLS peer; never reads a body. */
  async authenticate(headers: Headers, peer: PeerInfo): Promise<AuthnResult> {
    const errors: string[] = [];
    let frontProxy = false;
    const presented = peer.presented ?? (peer.verified || peer.commonName !== undefined);
    if (presented) {
      const cert = this.#fromCertificate(headers, peer);
      if ("user" in cert) return { kind: "user", user: cert.user, via: cert.via };
      if ("error" in cert) errors.push(cert.error);
      else frontProxy = true;
    }
    const auth = headers.get("authorization");
    const token = auth?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (token) {
      const review = this.#cluster?.tokenReview ? await this.#cluster.tokenReview(token) : undefined;
      if (review?.authenticated && review.user) {
        const user = { ...review.user, groups: withAuthenticatedGroup(review.user.username, review.user.groups ?? []) };
        return { kind: "user", user, via: "token" };
      }
      errors.push(review ? "invalid bearer token" : "bearer tokens are not accepted here");
    }
    if (errors.length) return { kind: "unauthorized", result: "error", reason: errors.join("; ") };
    if (frontProxy) return { kind: "front-proxy" };
    if (!this.#anonymous) return { kind: "unauthorized", result: "failure", reason: "anonymous requests are refused" };
    return { kind: "anonymous", user: ANONYMOUS_USER };
  }

  /** The requestheader and x509 authenticators: a user, a front proxy naming none (`{}`), or why the cert fails. */
  #fromCertificate(
    headers: Headers,
    peer: PeerInfo,
  ): { user: UserInfo; via: "requestheader" | "x509" } | { error: string } | Record<never, never> {
    const cfg = this.#cfg;
    if (!peer.verified) return { error: "client certificate does not chain to a trusted CA" };
    const clientCA = this.#clientCAPEM;
    const fromFrontProxyCA = cfg && (peer.chain ? chainIssuedBy(peer.chain, cfg.clientCAPEM) : true);
    if (cfg && fromFrontProxyCA) {
      if (cfg.allowedNames.length > 0 && !cfg.allowedNames.includes(peer.commonName ?? "")) {
        return { error: `client certificate CN "${peer.commonName}" is not an allowed front proxy` };
      }
      const username = first(headers, cfg.usernameHeaders);
      if (!username) return {};
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
      return { user, via: "requestheader" };
    }
    if (clientCA && peer.chain && chainIssuedBy(peer.chain, clientCA) && peer.commonName) {
      const username = peer.commonName;
      return { user: { username, groups: withAuthenticatedGroup(username, peer.organizations ?? []) }, via: "x509" };
    }
    return { error: "client certificate does not chain to a trusted CA" };
  }
}
