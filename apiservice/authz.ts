/**
 * Delegated authorization: every resource request is checked with a SubjectAccessReview, and answers are cached
 * briefly (allowed and denied 10 s each by default, like k8s.io/apiserver's delegating authorizer) on the injected
 * Clock. Also maps an HTTP request to the SubjectAccessReview attributes it needs.
 * @module
 */
import type { Clock } from "../runtime/clock.ts";
import type { AccessAttributes, AccessDecision, FarmCluster, UserInfo } from "./cluster.ts";

/** Options of {@link CachingAuthorizer}. */
export interface AuthorizerOptions {
  /** The cluster (SubjectAccessReview, ConfigMaps, Secrets, Pods). */
  cluster: FarmCluster;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
  /** How long an allowed answer is cached, ms. */
  allowTtlMs?: number;
  /** How long a denied answer is cached, ms. */
  denyTtlMs?: number;
  /** Entries kept at most (oldest evicted first); default 10 000. */
  maxEntries?: number;
}

/**
 * SubjectAccessReview with a TTL cache.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../runtime/clock.ts";
 * import { CachingAuthorizer } from "./authz.ts";
 * import { MemoryFarmCluster } from "./memory_cluster.ts";
 * const cluster = new MemoryFarmCluster();
 * const authz = new CachingAuthorizer({ cluster, clock: new VirtualClock() });
 * const user = { username: "alice", groups: [] };
 * await authz.authorize(user, { verb: "get" });
 * await authz.authorize(user, { verb: "get" });
 * assert.ok(cluster.reviews.length === 1);
 * ```
 */
export class CachingAuthorizer {
  readonly #opts: Required<Omit<AuthorizerOptions, "cluster" | "clock">> & Pick<AuthorizerOptions, "cluster" | "clock">;
  readonly #cache = new Map<string, { decision: AccessDecision; expiresMs: number }>();

  /** Creates the instance from its options. */
  constructor(opts: AuthorizerOptions) {
    this.#opts = {
      cluster: opts.cluster,
      clock: opts.clock,
      allowTtlMs: opts.allowTtlMs ?? 10_000,
      denyTtlMs: opts.denyTtlMs ?? 10_000,
      maxEntries: opts.maxEntries ?? 10_000,
    };
  }

  /** Decides one request (cached SubjectAccessReview). */
  async authorize(user: UserInfo, attrs: AccessAttributes): Promise<AccessDecision> {
    const key = JSON.stringify([user.username, user.uid, [...user.groups].sort(), user.extra ?? {}, attrs]);
    const now = this.#opts.clock.now();
    const hit = this.#cache.get(key);
    if (hit && hit.expiresMs > now) return hit.decision;
    this.#cache.delete(key);
    const decision = await this.#opts.cluster.subjectAccessReview(user, attrs);
    const ttl = decision.allowed ? this.#opts.allowTtlMs : this.#opts.denyTtlMs;
    if (ttl > 0) {
      this.#cache.set(key, { decision, expiresMs: now + ttl });
      while (this.#cache.size > this.#opts.maxEntries) this.#cache.delete(this.#cache.keys().next().value!);
    }
    return decision;
  }
}

/** The parts of a farm resource URL. */
export interface ResourcePath {
  /** API group. */
  group: string;
  /** API version. */
  version: string;
  /** Namespace (undefined: cluster scope or all namespaces). */
  namespace?: string;
  /** Resource (plural). */
  resource: string;
  /** Object name. */
  name?: string;
  /** Subresource, e.g. status. */
  subresource?: string;
}

/** A path segment percent-decoded; a malformed escape (`%ZZ`) stays as sent, as the fake server does. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Parses `/apis/{g}/{v}[/namespaces/{ns}]/{resource}[/{name}[/{sub}]]`; undefined for other paths. */
export function parseResourcePath(pathname: string): ResourcePath | undefined {
  const parts = pathname.split("/").filter(Boolean).map(decodeSegment);
  if (parts[0] !== "apis" || parts.length < 4) return undefined;
  const [, group, version, ...rest] = parts;
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest.splice(0, 2);
  }
  if (rest.length < 1 || rest.length > 3) return undefined;
  return { group, version, namespace, resource: rest[0], name: rest[1], subresource: rest[2] };
}
