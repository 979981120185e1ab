/**
 * The wire types of kube-apiserver's webhook protocols: AdmissionReview (admission.k8s.io/v1) for validating and
 * mutating admission webhooks, and ConversionReview (apiextensions.k8s.io/v1) for CRD conversion webhooks. The
 * runtime's webhook server answers them and the fake API server sends them, so both sides share these shapes.
 * client-node has no models for these two kinds (they are never stored), so they are written out here after
 * k8s.io/api/admission/v1 and k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.
 * @module
 */
import type { V1Status } from "@kubernetes/client-node";

/** The operation an AdmissionReview asks about (admission/v1 Operation). */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** A group/version/kind triple as AdmissionRequest carries it (metav1.GroupVersionKind). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A group/version/resource triple as AdmissionRequest carries it (metav1.GroupVersionResource). */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** The user a request is made for (authentication/v1 UserInfo). */
export interface AdmissionUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** What kube-apiserver asks an admission webhook (admission/v1 AdmissionRequest). */
export interface AdmissionRequest {
  /** Identifies this call; the response echoes it. */
  uid: string;
  /** The kind of the object as the webhook registered for it (after matchPolicy Equivalent conversion). */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  /** The kind the original request was made in, when it differs from `kind`. */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: AdmissionUserInfo;
  /** The object being admitted (absent on DELETE). */
  object?: Record<string, unknown> | null;
  /** The existing object (UPDATE and DELETE). */
  oldObject?: Record<string, unknown> | null;
  /** True when the request will not be persisted; a webhook with side effects must then not perform them. */
  dryRun?: boolean;
  /** The operation's options (meta/v1 CreateOptions, UpdateOptions or DeleteOptions), with apiVersion and kind. */
  options?: Record<string, unknown> | null;
}

/** What an admission webhook answers (admission/v1 AdmissionResponse). */
export interface AdmissionResponse {
  /** The request's uid, echoed. */
  uid: string;
  allowed: boolean;
  /** Why the request was refused (code and message), when `allowed` is false. */
  status?: Pick<V1Status, "code" | "message" | "reason" | "details"> & { status?: string };
  /** A base64-encoded RFC 6902 JSON patch (mutating webhooks only). */
  patch?: string;
  patchType?: "JSONPatch";
  /** Annotations the apiserver adds to the audit event, keyed without the webhook's prefix. */
  auditAnnotations?: Record<string, string>;
  /** Warnings returned to the API client as `Warning` headers. */
  warnings?: string[];
}

/** The envelope of both directions (admission/v1 AdmissionReview). */
export interface AdmissionReview {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** What kube-apiserver asks a conversion webhook (apiextensions/v1 ConversionRequest). */
export interface ConversionRequest {
  uid: string;
  /** The apiVersion every object must be converted to, e.g. `example.com/v1`. */
  desiredAPIVersion: string;
  objects: Record<string, unknown>[];
}

/** What a conversion webhook answers (apiextensions/v1 ConversionResponse): objects in the same order. */
export interface ConversionResponse {
  uid: string;
  convertedObjects: Record<string, unknown>[];
  /** `status: "Success"`, or `"Failure"` with a message. */
  result: { status: "Success" | "Failure"; message?: string; code?: number; reason?: string };
}

/** The envelope of both directions (apiextensions/v1 ConversionReview). */
export interface ConversionReview {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "ConversionReview";
  request?: ConversionRequest;
  response?: ConversionResponse;
}
