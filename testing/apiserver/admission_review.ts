/**
 * Unit tests of admission webhooks without a server: an AdmissionReview v1 for one object, served through the
 * webhook's route as runtime/webhook/server.ts would serve it, and the AdmissionResponse it answered.
 * @module
 */
import type { ResourceType } from "../../runtime/types.ts";
import type { AdmissionOperation, AdmissionResponse, AdmissionReview } from "../../runtime/webhook/review_types.ts";
import type { WebhookRoute } from "../../runtime/webhook/server.ts";

/** The request to review: its operation and objects (absent `oldObject` on CREATE). */
export interface ReviewRequest<T> {
  /** CREATE, UPDATE, DELETE or CONNECT. */
  operation: AdmissionOperation;
  /** The object as it would be stored (absent on DELETE). */
  object?: T;
  /** The object before the change (UPDATE, DELETE). */
  oldObject?: T;
}

/**
 * Serves an AdmissionReview of `request` for `rt` (kind and resource, uid `u`, no user) through `route`; resolves
 * with its response, rejects when the route answered other than HTTP 200.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CoreTypes } from "../../runtime/types.ts";
 * import { allowed, answerValidation } from "../../runtime/webhook/admission.ts";
 * import { reviewThroughRoute } from "./admission_review.ts";
 * const route = { path: "/validate", serve: (body: unknown, signal: AbortSignal) => answerValidation(body, () => allowed(), signal) };
 * const response = await reviewThroughRoute(route, CoreTypes.ConfigMap, {
 *   operation: "CREATE",
 *   object: { metadata: { name: "c" } },
 * });
 * assert.equal(response.allowed, true);
 * ```
 */
export async function reviewThroughRoute<T extends object>(
  route: WebhookRoute,
  rt: ResourceType,
  request: ReviewRequest<T>,
): Promise<AdmissionResponse> {
  const review: AdmissionReview = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "u",
      kind: { group: rt.group, version: rt.version, kind: rt.kind },
      resource: { group: rt.group, version: rt.version, resource: rt.plural },
      operation: request.operation,
      userInfo: {},
      object: request.object as Record<string, unknown> | undefined,
      oldObject: request.oldObject as Record<string, unknown> | undefined,
    },
  };
  const answer = await route.serve(review, new AbortController().signal);
  if (answer.status !== 200) {
    throw new Error(`webhook ${route.path}: answered HTTP ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  return (answer.body as AdmissionReview).response!;
}
