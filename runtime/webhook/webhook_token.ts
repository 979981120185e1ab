/**
 * Verifying a bearer token on webhook requests (`--webhook-token-audience`, off by default), for KEP-6060 "API server
 * authentication to webhooks" (alpha in Kubernetes v1.37): a TokenRequest can bind a ServiceAccount token to a
 * Validating/MutatingWebhookConfiguration, with the webhook's endpoint as its audience. Kubernetes v1.37 implements
 * the issuance and the validation of such tokens; kube-apiserver does not yet send one when it calls a webhook, so a
 * caller that holds one sends it itself. Each request's token is checked with a TokenReview for the audience
 * (answers cached 10 s, like k8s.io/apiserver's token webhook cache); no token or a token that does not hold is
 * answered 401 with kube's Status before the body is read, and counted in `authentication_attempts`.
 * @module
 */
import { type ReviewClient, reviewToken } from "../client/access_review.ts";
import { failureStatus } from "../client/errors.ts";
import type { Clock } from "../clock.ts";
import type { AuthMetrics } from "../observe/auth_metrics.ts";
import type { Logger } from "../observe/log.ts";

/** Options of {@link WebhookTokenVerifier}. */
export interface WebhookTokenOptions {
  /** Posts the TokenReviews (the Manager's client). */
  client: ReviewClient;
  /** The audience the token must be valid for, e.g. `https://kubeop-webhook.kubeop-system.svc:443`. */
  audience: string;
  /** Cache TTLs are measured on it. */
  clock: Clock;
  /** How long a review's answer is reused, ms (default 10 000). */
  cacheTtlMs?: number;
  /** Where attempts are counted. */
  metrics?: AuthMetrics;
  /** Where failed reviews are logged (never the token). */
  logger?: Logger;
}

function unauthorized(): Response {
  return new Response(JSON.stringify(failureStatus(401, "Unauthorized", "Unauthorized")), {
    status: 401,
    headers: { "content-type": "application/json" },
  });
}

/**
 * Checks a webhook request's bearer token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import type { KubeObject } from "../types.ts";
 * import { WebhookTokenVerifier } from "./webhook_token.ts";
 * const client = {
 *   create<T extends KubeObject>(_rt: unknown, obj: T): Promise<T> {
 *     const spec = obj.spec as { token: string; audiences: string[] };
 *     const ok = spec.token === "good";
 *     return Promise.resolve({ ...obj, status: { authenticated: ok, user: { username: "sa" }, audiences: spec.audiences } } as T);
 *   },
 * };
 * const verifier = new WebhookTokenVerifier({ client, audience: "https://w", clock: new VirtualClock() });
 * const head = (token?: string) =>
 *   new Request("https://w/validate", { headers: token ? { authorization: `Bearer ${token}` } : {} });
 * assert.equal(await verifier.verify(head("good")), undefined);
 * assert.equal((await verifier.verify(head("bad")))?.status, 401);
 * assert.equal((await verifier.verify(head()))?.status, 401);
 * ```
 */
export class WebhookTokenVerifier {
  readonly #opts: WebhookTokenOptions;
  readonly #cache = new Map<string, { ok: boolean; expiresMs: number }>();

  /** Keeps the options. */
  constructor(opts: WebhookTokenOptions) {
    this.#opts = opts;
  }

  /** The 401 answer for a request whose token does not hold, or undefined to admit it. */
  async verify(head: Request): Promise<Response | undefined> {
    const attempts = this.#opts.metrics?.attempts;
    const token = head.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (!token) {
      attempts?.inc({ result: "failure" });
      return unauthorized();
    }
    const ok = await this.#review(token);
    attempts?.inc({ result: ok ? "success" : "error" });
    return ok ? undefined : unauthorized();
  }

  async #review(token: string): Promise<boolean> {
    const now = this.#opts.clock.now();
    const hit = this.#cache.get(token);
    if (hit && hit.expiresMs > now) return hit.ok;
    this.#cache.delete(token);
    let ok: boolean;
    try {
      ok = (await reviewToken(this.#opts.client, token, { audiences: [this.#opts.audience] })) !== undefined;
    } catch (err) {
      // Not cached: the next request asks again.
      this.#opts.logger?.error("webhook: TokenReview failed: {error}", { error: (err as Error).message });
      return false;
    }
    this.#cache.set(token, { ok, expiresMs: now + (this.#opts.cacheTtlMs ?? 10_000) });
    while (this.#cache.size > 1_000) this.#cache.delete(this.#cache.keys().next().value!);
    return ok;
  }
}
