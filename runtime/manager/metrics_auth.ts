/**
 * Authenticated, authorized scraping of `/metrics` (`--metrics-secure`), as kubebuilder's default scaffold does with
 * controller-runtime's `filters.WithAuthenticationAndAuthorization`: the scraper's bearer token is checked with a
 * TokenReview, then a SubjectAccessReview asks whether that user may `get` the non-resource URL `/metrics` (what the
 * `metrics-reader` ClusterRole grants). Answers are cached as k8s.io/apiserver's delegating authenticator and
 * authorizer cache them (tokens 1 min, allowed 5 min, denied 30 s) on the injected clock. A missing or rejected
 * token is 401, a denied user 403, a failed review call 500.
 * @module
 */

import type { Clock } from "../clock.ts";
import { RealClock } from "../clock.ts";
import { reviewAccess, type ReviewClient, type ReviewedUser, reviewToken } from "../client/access_review.ts";

/** Options of {@link MetricsAuthFilter}. */
export interface MetricsAuthOptions {
  /** Posts TokenReviews and SubjectAccessReviews (the operator's own client). */
  client: ReviewClient;
  /** Time source of the caches (default the wall clock). */
  clock?: Clock;
  /** How long a token's review is reused, ms (default 60 000). */
  tokenTtlMs?: number;
  /** How long an allowed decision is reused, ms (default 300 000). */
  allowTtlMs?: number;
  /** How long a denied decision is reused, ms (default 30 000). */
  denyTtlMs?: number;
  /** Cache entries kept at most, per cache (oldest dropped first; default 1 000). */
  maxEntries?: number;
}

/** The filter's answer: the request may proceed, or this response is sent instead. */
export type MetricsAuthResult = { ok: true; user: ReviewedUser } | { ok: false; response: Response };

interface Cached<T> {
  value: T;
  expiresMs: number;
}

function plain(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
  });
}

/**
 * Decides whether a request to a non-resource path (`/metrics`) may be served.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import { MetricsAuthFilter } from "./metrics_auth.ts";
 * import type { KubeObject } from "../types.ts";
 * import { nestedString } from "../unstructured.ts";
 * const reviews: string[] = [];
 * const client = {
 *   create<T extends KubeObject>(_rt: unknown, obj: T): Promise<T> {
 *     reviews.push(String(obj.kind ?? ""));
 *     const token = nestedString(obj, "spec", "token");
 *     const status = token !== undefined
 *       ? { authenticated: token === "good", user: { username: "prometheus", groups: [] } }
 *       : { allowed: true };
 *     return Promise.resolve({ ...obj, status } as T);
 *   },
 * };
 * const filter = new MetricsAuthFilter({ client, clock: new VirtualClock() });
 * const anonymous = await filter.check(new Request("https://op/metrics"));
 * assert.ok(!anonymous.ok && anonymous.response.status === 401);
 * const good = new Request("https://op/metrics", { headers: { authorization: "Bearer good" } });
 * assert.ok((await filter.check(good)).ok);
 * assert.ok((await filter.check(good)).ok); // both reviews answered from the cache
 * assert.equal(reviews.length, 2);
 * ```
 */
export class MetricsAuthFilter {
  readonly #client: ReviewClient;
  readonly #clock: Clock;
  readonly #ttl: { token: number; allow: number; deny: number };
  readonly #maxEntries: number;
  readonly #tokens = new Map<string, Cached<ReviewedUser | undefined>>();
  readonly #decisions = new Map<string, Cached<{ allowed: boolean; reason: string }>>();

  /** Creates the filter; nothing is called until {@link MetricsAuthFilter.check}. */
  constructor(opts: MetricsAuthOptions) {
    this.#client = opts.client;
    this.#clock = opts.clock ?? new RealClock();
    this.#ttl = { token: opts.tokenTtlMs ?? 60_000, allow: opts.allowTtlMs ?? 300_000, deny: opts.denyTtlMs ?? 30_000 };
    this.#maxEntries = opts.maxEntries ?? 1_000;
  }

  /** Authenticates the bearer token, then authorizes `get` on the request's path. */
  async check(req: Request): Promise<MetricsAuthResult> {
    const token = req.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (!token) return { ok: false, response: plain(401, "Unauthorized\n") };
    let user: ReviewedUser | undefined;
    try {
      user = await this.#authenticate(token);
    } catch {
      // controller-runtime answers an authentication error as 401 too; the error names the review call, not the token.
      return { ok: false, response: plain(401, "Unauthorized\n") };
    }
    if (!user) return { ok: false, response: plain(401, "Unauthorized\n") };
    const path = new URL(req.url).pathname;
    const verb = req.method === "HEAD" ? "get" : req.method.toLowerCase();
    let decision: { allowed: boolean; reason: string };
    try {
      decision = await this.#authorize(user, path, verb);
    } catch (err) {
      return { ok: false, response: plain(500, `authorization check failed: ${(err as Error).message}\n`) };
    }
    if (!decision.allowed) {
      const why = decision.reason ? `: ${decision.reason}` : "";
      return {
        ok: false,
        response: plain(403, `Forbidden (user=${user.username}, verb=${verb}, resource=, subresource=)${why}\n`),
      };
    }
    return { ok: true, user };
  }

  async #authenticate(token: string): Promise<ReviewedUser | undefined> {
    const key = await sha256(token); // never keep raw tokens as map keys
    const hit = this.#lookup(this.#tokens, key);
    if (hit) return hit.value;
    const user = await reviewToken(this.#client, token);
    this.#store(this.#tokens, key, user, this.#ttl.token);
    return user;
  }

  async #authorize(user: ReviewedUser, path: string, verb: string): Promise<{ allowed: boolean; reason: string }> {
    const key = JSON.stringify([user.username, user.uid, [...user.groups].sort(), user.extra ?? {}, path, verb]);
    const hit = this.#lookup(this.#decisions, key);
    if (hit) return hit.value;
    const review = await reviewAccess(this.#client, user, { path, verb });
    const decision = { allowed: review.allowed, reason: review.reason ?? "" };
    this.#store(this.#decisions, key, decision, decision.allowed ? this.#ttl.allow : this.#ttl.deny);
    return decision;
  }

  #lookup<T>(cache: Map<string, Cached<T>>, key: string): Cached<T> | undefined {
    const hit = cache.get(key);
    if (hit && hit.expiresMs > this.#clock.now()) return hit;
    cache.delete(key);
    return undefined;
  }

  #store<T>(cache: Map<string, Cached<T>>, key: string, value: T, ttlMs: number): void {
    if (ttlMs <= 0) return;
    cache.set(key, { value, expiresMs: this.#clock.now() + ttlMs });
    while (cache.size > this.#maxEntries) cache.delete(cache.keys().next().value!);
  }
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
