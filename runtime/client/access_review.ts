/**
 * The two delegated-auth calls an API consumer makes against the cluster: a TokenReview (authentication.k8s.io/v1)
 * to learn whose bearer token this is, and a SubjectAccessReview (authorization.k8s.io/v1) to ask whether that user
 * may do something, on a resource or a non-resource path. Used by the secure metrics filter and the farm API server.
 * @module
 */

import { CoreTypes, type KubeObject, type ResourceType } from "../types.ts";

/** The part of KubeClient the reviews need (TokenReview and SubjectAccessReview are `create` calls). */
export interface ReviewClient {
  /** POST a review; the API server answers with its status filled in. */
  create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: T): Promise<T>;
}

/** Who a token belongs to, as a TokenReview reports it. */
export interface ReviewedUser {
  /** e.g. `system:serviceaccount:monitoring:prometheus-k8s`. */
  username: string;
  /** User UID, when the authenticator reports one. */
  uid?: string;
  /** Groups, e.g. `system:serviceaccounts`. */
  groups: string[];
  /** Extra attributes (scopes and the like). */
  extra?: Record<string, string[]>;
}

/** What is asked about: ResourceAttributes, or NonResourceAttributes when `path` is set. */
export interface ReviewAttributes {
  /** Kubernetes verb for resources, lower-cased HTTP verb for paths. */
  verb: string;
  /** API group. */
  group?: string;
  /** API version. */
  version?: string;
  /** Resource (plural). */
  resource?: string;
  /** Subresource, e.g. status. */
  subresource?: string;
  /** Namespace (undefined: cluster scope or all namespaces). */
  namespace?: string;
  /** Object name. */
  name?: string;
  /** Non-resource URL path, e.g. `/metrics`. */
  path?: string;
}

/** A SubjectAccessReview's answer. */
export interface ReviewDecision {
  /** Whether the user may. */
  allowed: boolean;
  /** Why, when the authorizer says. */
  reason?: string;
}

/**
 * POSTs a TokenReview for `token`; undefined when the token is not authenticated (or names no user). With
 * `audiences`, the token must be valid for one of them (the review's `status.audiences` says which).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reviewToken } from "./access_review.ts";
 * import type { KubeObject } from "../types.ts";
 * const client = {
 *   create<T extends KubeObject>(_rt: unknown, obj: T): Promise<T> {
 *     const ok = (obj.spec as { token?: string } | undefined)?.token === "good";
 *     return Promise.resolve({ ...obj, status: { authenticated: ok, user: { username: "alice" } } } as T);
 *   },
 * };
 * assert.deepEqual(await reviewToken(client, "good"), { username: "alice", uid: undefined, groups: [], extra: undefined });
 * assert.equal(await reviewToken(client, "bad"), undefined);
 * ```
 */
export async function reviewToken(
  client: ReviewClient,
  token: string,
  opts: { audiences?: string[] } = {},
): Promise<ReviewedUser | undefined> {
  const review = await client.create<KubeObject>(CoreTypes.TokenReview, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    metadata: {},
    spec: { token, ...(opts.audiences ? { audiences: opts.audiences } : {}) },
  });
  const status = review.status as
    | { authenticated?: boolean; user?: Partial<ReviewedUser>; audiences?: string[] }
    | undefined;
  const u = status?.user;
  if (status?.authenticated !== true || !u?.username) return undefined;
  // An authenticator that ignores audiences answers none: the token was then not checked for ours.
  if (opts.audiences && !opts.audiences.some((a) => status.audiences?.includes(a))) return undefined;
  return { username: u.username, uid: u.uid, groups: u.groups ?? [], extra: u.extra };
}

/**
 * POSTs a SubjectAccessReview asking whether `user` may do `attrs`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reviewAccess } from "./access_review.ts";
 * import type { KubeObject } from "../types.ts";
 * const client = {
 *   create<T extends KubeObject>(_rt: unknown, obj: T): Promise<T> {
 *     const spec = obj.spec as { nonResourceAttributes?: { path?: string } } | undefined;
 *     const allowed = spec?.nonResourceAttributes?.path === "/metrics";
 *     return Promise.resolve({ ...obj, status: { allowed } } as T);
 *   },
 * };
 * const user = { username: "prometheus", groups: [] };
 * assert.equal((await reviewAccess(client, user, { verb: "get", path: "/metrics" })).allowed, true);
 * assert.equal((await reviewAccess(client, user, { verb: "get", resource: "pods" })).allowed, false);
 * ```
 */
export async function reviewAccess(
  client: ReviewClient,
  user: ReviewedUser,
  attrs: ReviewAttributes,
): Promise<ReviewDecision> {
  const { path, verb, ...resource } = attrs;
  const review = await client.create<KubeObject>(CoreTypes.SubjectAccessReview, {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    metadata: {},
    spec: {
      user: user.username,
      uid: user.uid,
      groups: user.groups,
      extra: user.extra,
      ...(path ? { nonResourceAttributes: { path, verb } } : { resourceAttributes: { verb, ...resource } }),
    },
  });
  const status = review.status as { allowed?: boolean; reason?: string } | undefined;
  return { allowed: status?.allowed === true, reason: status?.reason };
}
