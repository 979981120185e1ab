/**
 * Fault hooks for tests: drop or stall open watches, force compaction (the next watch from an older RV gets 410),
 * inject errors (401, 429 with Retry-After, 500, ...) or latency per verb and resource, and deny
 * SubjectAccessReviews.
 * @module
 */
import { resourceId } from "../../runtime/apimachinery/names.ts";
import type { Clock } from "../../runtime/clock.ts";
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { ObjectStore } from "./object_storage.ts";
import type { WatchHub, WatchSink } from "./watch_hub.ts";

/** Which watches a fault applies to: by bucket resource (`plural` or `plural.group`) and namespace, or a predicate. */
export type WatchFilter =
  | { resource?: string; namespace?: string }
  | ((watch: { storageKey: string; namespace?: string; description: string }) => boolean);

/** One injected fault. */
export interface InjectedFault {
  /** get, list, watch, create, update, patch, delete, deletecollection; absent: every verb. */
  verb?: string;
  /** `plural` (core) or `plural.group`; absent: every resource (and non-resource paths). */
  resource?: string;
  /** HTTP status to answer with (401, 403, 429, 500, 503, ...). */
  code?: number;
  /** Delay before handling (or before the error). */
  latencyMs?: number;
  /** Sent as Retry-After and details.retryAfterSeconds (429/503). */
  retryAfterSeconds?: number;
  /** How many requests it applies to; absent: until clear(). */
  times?: number;
  /** Message of the injected Status. */
  message?: string;
}

/** A request as the server received it, before faults and handling: what {@link FaultHooks.onRequest} reports. */
export interface ObservedRequest {
  /** Receive order across the server's life (restarts included). */
  seq: number;
  /** The server clock's wall time at receipt. */
  at: number;
  /** Resource verb (get, list, watch, create, update, patch, delete, deletecollection). */
  verb: string;
  /** `plural` (core) or `plural.group`. */
  resource: string;
  /** The namespace in the path, if any. */
  namespace?: string;
  /** The object's name in the path, if any. */
  name?: string;
  /** The subresource in the path (status, log, …), if any. */
  subresource?: string;
  /** HTTP method. */
  method: string;
  /** The User-Agent header ("" when absent): who sent it. */
  userAgent: string;
}

/** Decides a SubjectAccessReview: return true to deny it. */
export type AccessDecider = (review: KubeObject) => boolean;

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  410: "Expired",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** The fault hooks of one fake server. */
export class FaultHooks {
  #hub: () => WatchHub;
  #objects: () => ObjectStore;
  #clock: Clock;
  #rules: InjectedFault[] = [];
  #decider: AccessDecider | undefined;
  #observers = new Set<(req: ObservedRequest) => void>();
  #seq = 0;

  /**

   * Built by the fake server.

   * @ignore

   */
  constructor(opts: { hub: () => WatchHub; objects: () => ObjectStore; clock: Clock }) {
    this.#hub = opts.hub;
    this.#objects = opts.objects;
    this.#clock = opts.clock;
  }

  /** Closes matching open watches (clients see the stream end). Returns how many. */
  dropWatches(filter?: WatchFilter): number {
    const sinks = this.#select(filter);
    for (const s of sinks) s.drop();
    return sinks.length;
  }

  /** Matching watches stop sending (no events, no bookmarks) but stay open. Returns how many. */
  stallWatches(filter?: WatchFilter): number {
    const sinks = this.#select(filter);
    for (const s of sinks) s.stall();
    return sinks.length;
  }

  /** Forgets watch history: a watch from any older resourceVersion gets 410 Expired. */
  compact(): void {
    this.#objects().compact();
  }

  /** Adds a fault rule. */
  inject(fault: InjectedFault): void {
    this.#rules.push({ ...fault });
  }

  /**
   * Calls `fn` synchronously for every resource request the server receives, in receive order, before any fault
   * applies (tests count API calls and check who wrote when). Returns the unsubscribe function.
   */
  onRequest(fn: (req: ObservedRequest) => void): () => void {
    this.#observers.add(fn);
    return () => this.#observers.delete(fn);
  }

  /** Reports a received resource request to the {@link FaultHooks.onRequest} observers (the router calls it). */
  observe(req: Omit<ObservedRequest, "seq" | "at">): void {
    if (this.#observers.size === 0) return;
    const observed = { ...req, seq: this.#seq++, at: this.#clock.now() };
    for (const fn of this.#observers) fn(observed);
  }

  /** Removes every rule and the access decider. */
  clear(): void {
    this.#rules = [];
    this.#decider = undefined;
  }

  /** SubjectAccessReviews are allowed unless `denies` returns true for them. */
  denySubjectAccess(denies: AccessDecider): void {
    this.#decider = denies;
  }

  /** Whether a SubjectAccessReview is allowed. */
  allows(review: KubeObject): boolean {
    return this.#decider ? !this.#decider(review) : true;
  }

  /** Applies matching rules to a request: waits for latency, throws an ApiError for an error code. */
  async apply(verb: string, resource: string | undefined): Promise<void> {
    for (const rule of this.#rules) {
      if (rule.verb && rule.verb !== verb) continue;
      if (rule.resource && rule.resource !== resource) continue;
      if (rule.times !== undefined) {
        if (rule.times <= 0) continue;
        rule.times--;
      }
      if (rule.latencyMs) await this.#clock.sleep(rule.latencyMs);
      if (rule.code) {
        const reason = REASONS[rule.code] ?? "InternalError";
        const details = rule.retryAfterSeconds !== undefined
          ? { retryAfterSeconds: rule.retryAfterSeconds }
          : undefined;
        throw new ApiError(
          failureStatus(rule.code, reason, rule.message ?? `injected fault: ${rule.code} ${reason}`, details),
          { verb, resource },
          rule.retryAfterSeconds,
        );
      }
    }
    this.#rules = this.#rules.filter((r) => r.times === undefined || r.times > 0);
  }

  #select(filter?: WatchFilter): WatchSink[] {
    const all = this.#hub().sinks();
    if (!filter) return all;
    if (typeof filter === "function") return all.filter((s) => filter(s));
    return all.filter((s) => {
      if (filter.namespace !== undefined && s.namespace !== filter.namespace) return false;
      if (filter.resource !== undefined) {
        const [group, plural] = s.storageKey.split("/");
        const name = resourceId({ group, plural });
        if (name !== filter.resource && plural !== filter.resource) return false;
      }
      return true;
    });
  }
}
