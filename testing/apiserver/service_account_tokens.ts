/**
 * ServiceAccount tokens of the fake server: `serviceaccounts/<name>/token` (TokenRequest) issues JWT-shaped tokens
 * whose signature is random (they are recognised, not verified: the fake keeps what it issued), TokenReview and
 * request authentication accept them while the ServiceAccount (same uid) exists and the token has not expired. Tokens
 * live as long as the server process (a restart of `kubeop dev` forgets them).
 * @module
 */
import type { Clock } from "../../runtime/clock.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import { decodeBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { jsonResponse, type ResourceRoute } from "./http_route.ts";
import { rfc3339 } from "./object_rules.ts";
import { fieldManagerOf } from "./http_write_options.ts";
import { managedFieldsAfterUpdate } from "./patch/apply.ts";
import type { UserInfo } from "./rbac_authorizer.ts";
import { invalid, methodNotAllowed, notFound } from "./status_errors.ts";

/** The `iss` claim of the fake's tokens and the API server's audience. */
export const FAKE_ISSUER = "https://kubernetes.default.svc.cluster.local";

const TOKEN_REQUEST = { group: "authentication.k8s.io", plural: "tokenrequests", kind: "TokenRequest" };
const SERVICE_ACCOUNTS = { group: "", plural: "serviceaccounts", kind: "ServiceAccount" };
const MIN_SECONDS = 600;
const MAX_SECONDS = 2 ** 32;

interface Issued {
  namespace: string;
  name: string;
  uid: string;
  audiences: string[];
  expiresAtMs: number;
  jti: string;
}

/** What a valid token says. */
export interface TokenIdentity {
  user: UserInfo;
  audiences: string[];
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
const b64json = (value: unknown) => b64url(new TextEncoder().encode(JSON.stringify(value)));

/** The tokens one fake server issued. */
export class ServiceAccountTokens {
  #store: () => FakeStore;
  #clock: Clock;
  #issued = new Map<string, Issued>();

  /** @param store the current store (it changes on restart). */
  constructor(store: () => FakeStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Issues a token for a ServiceAccount object. */
  issue(sa: KubeObject, audiences: string[], expirationSeconds: number): { token: string; expiresAtMs: number } {
    const nowMs = this.#clock.now();
    const now = Math.floor(nowMs / 1000);
    const jti = crypto.randomUUID();
    const record: Issued = {
      namespace: sa.metadata.namespace!,
      name: sa.metadata.name!,
      uid: sa.metadata.uid!,
      audiences,
      expiresAtMs: (now + expirationSeconds) * 1000,
      jti,
    };
    const claims = {
      aud: audiences,
      exp: now + expirationSeconds,
      iat: now,
      iss: FAKE_ISSUER,
      jti,
      "kubernetes.io": { namespace: record.namespace, serviceaccount: { name: record.name, uid: record.uid } },
      nbf: now,
      sub: `system:serviceaccount:${record.namespace}:${record.name}`,
    };
    const token = `${b64json({ alg: "RS256", kid: "kubeop-fake" })}.${b64json(claims)}.${
      b64url(crypto.getRandomValues(new Uint8Array(32)))
    }`;
    this.#issued.set(token, record);
    return { token, expiresAtMs: record.expiresAtMs };
  }

  /** The identity of a token this server issued that still holds, else undefined. */
  review(token: string): TokenIdentity | undefined {
    const rec = this.#issued.get(token);
    if (!rec) return undefined;
    if (this.#clock.now() >= rec.expiresAtMs) return undefined;
    const store = this.#store();
    const sa = store.objects.get("/serviceaccounts", rec.namespace, rec.name);
    if (!sa || sa.metadata.uid !== rec.uid || sa.metadata.deletionTimestamp) return undefined;
    return {
      user: {
        username: `system:serviceaccount:${rec.namespace}:${rec.name}`,
        uid: rec.uid,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${rec.namespace}`, "system:authenticated"],
        extra: { "authentication.kubernetes.io/credential-id": [`JTI=${rec.jti}`] },
      },
      audiences: rec.audiences,
    };
  }

  /** Whether a token looks like one of this fake's (its issuer), valid or not. */
  looksIssued(token: string): boolean {
    if (this.#issued.has(token)) return true;
    const payload = token.split(".")[1];
    if (!payload) return false;
    try {
      const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
      return claims?.iss === FAKE_ISSUER;
    } catch {
      return false;
    }
  }
}

/** The `serviceaccounts/token` subresource handler (POST a TokenRequest; kube's TokenREST.Create). */
export function tokenRequestHandler(
  store: () => FakeStore,
  tokens: () => ServiceAccountTokens,
  clock: Clock,
): (req: Request, route: ResourceRoute) => Promise<Response> {
  return async (req, route) => {
    // kube registers only create on the subresource: any other method is 405 with empty details.
    if (req.method !== "POST") throw methodNotAllowed(route.def, req.method.toLowerCase());
    const namespace = route.namespace ?? "";
    const name = route.name ?? "";
    const body = requireObject(
      decodeBody(await readBody(req), mediaType(req.headers.get("content-type")), "create"),
      "create",
    ) as KubeObject;
    const meta = body.metadata ?? {};
    if (meta.name && meta.name !== name) {
      throw invalid(TOKEN_REQUEST, name, [{
        reason: "FieldValueInvalid",
        field: "metadata.name",
        message: `Invalid value: "${meta.name}": must match the service account name if specified`,
      }]);
    }
    const sa = store().objects.get("/serviceaccounts", namespace, name);
    if (!sa) throw notFound(SERVICE_ACCOUNTS, name, "create");
    const spec = { ...(body.spec ?? {}) };
    const audiences: string[] = Array.isArray(spec.audiences) && spec.audiences.length > 0
      ? spec.audiences
      : [FAKE_ISSUER];
    const seconds = typeof spec.expirationSeconds === "number" ? spec.expirationSeconds : 3600;
    const why = seconds < MIN_SECONDS
      ? "may not specify a duration less than 10 minutes"
      : seconds > MAX_SECONDS
      ? "may not specify a duration larger than 2^32 seconds"
      : undefined;
    if (why) {
      throw invalid(TOKEN_REQUEST, "", [{
        reason: "FieldValueInvalid",
        field: "spec.expirationSeconds",
        message: `Invalid value: ${seconds}: ${why}`,
      }]);
    }
    const { token, expiresAtMs } = tokens().issue(sa, audiences, seconds);
    const now = rfc3339(clock.now());
    // kube's create handler records the request (its spec as decoded, expirationSeconds defaulted) in the answer.
    const decoded = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      metadata: {},
      spec: { ...spec, expirationSeconds: seconds },
    };
    const manager = fieldManagerOf(req, new URL(req.url).searchParams);
    const managedFields = managedFieldsAfterUpdate(undefined, decoded, manager, now, "Update", {
      subresource: "token",
    });
    return jsonResponse(201, {
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { name, namespace, uid: sa.metadata.uid, creationTimestamp: now, managedFields },
      spec: { audiences, expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
      status: { token, expirationTimestamp: rfc3339(expiresAtMs) },
    });
  };
}
