/**
 * The wire types of kube-apiserver's webhook protocols: AdmissionReview (admission.k8s.io/v1) for validating and
 * mutating admission webhooks, and ConversionReview (apiextensions.k8s.io/v1) for CRD conversion webhooks. The
 * runtime's webhook server answers them and the fake API server sends them, so both sides share these shapes.
 * client-node has no models for these two kinds (they are never stored), so they are written out here after
 * k8s.io/api/admission/v1 and k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.
 * @module
 */
import type { Status } from "../client/errors.ts";

/** The operation an AdmissionReview asks about (admission/v1 Operation). */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** A group/version/kind triple as AdmissionRequest carries it (metav1.GroupVersionKind). */
export interface GroupVersionKind {
  /** API group ("" for core). */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Kind, e.g. `Pod`. */
  kind: string;
}

/** A group/version/resource triple as AdmissionRequest carries it (metav1.GroupVersionResource). */
export interface GroupVersionResource {
  /** API group ("" for core). */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Plural resource name, e.g. `pods`. */
  resource: string;
}

/** The user a request is made for (authentication/v1 UserInfo). */
export interface AdmissionUserInfo {
  /** The authenticated user name. */
  username?: string;
  /** A unique value for the user across time. */
  uid?: string;
  /** The groups the user belongs to. */
  groups?: string[];
  /** Extra attributes from the authenticator. */
  extra?: Record<string, string[]>;
}

/** What kube-apiserver asks an admission webhook (admission/v1 AdmissionRequest). */
export interface AdmissionRequest {
  /** Identifies this call; the response echoes it. */
  uid: string;
  /** The kind of the object as the webhook registered for it (after matchPolicy Equivalent conversion). */
  kind: GroupVersionKind;
  /** The resource being written, in the version the webhook registered for. */
  resource: GroupVersionResource;
  /** The subresource (`status`, `scale`), when one is written. */
  subResource?: string;
  /** The kind the original request was made in, when it differs from `kind`. */
  requestKind?: GroupVersionKind;
  /** The resource the original request named, when it differs from `resource`. */
  requestResource?: GroupVersionResource;
  /** The subresource the original request named. */
  requestSubResource?: string;
  /** The object's name (may be empty on CREATE with generateName). */
  name?: string;
  /** The object's namespace (empty for cluster-scoped objects). */
  namespace?: string;
  /** What is being done to the object. */
  operation: AdmissionOperation;
  /** Who makes the request. */
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
  /** Whether the request is admitted. */
  allowed: boolean;
  /** Why the request was refused (code and message), when `allowed` is false. */
  status?: Partial<Pick<Status, "code" | "message" | "reason" | "details">> & { status?: string };
  /** A base64-encoded RFC 6902 JSON patch (mutating webhooks only). */
  patch?: string;
  /** Set with `patch`: the only type kube accepts. */
  patchType?: "JSONPatch";
  /** Annotations the apiserver adds to the audit event, keyed without the webhook's prefix. */
  auditAnnotations?: Record<string, string>;
  /** Warnings returned to the API client as `Warning` headers. */
  warnings?: string[];
}

/** The envelope of both directions (admission/v1 AdmissionReview). */
export interface AdmissionReview {
  /** Always `admission.k8s.io/v1`. */
  apiVersion: "admission.k8s.io/v1";
  /** Always `AdmissionReview`. */
  kind: "AdmissionReview";
  /** Set by kube-apiserver. */
  request?: AdmissionRequest;
  /** Set by the webhook. */
  response?: AdmissionResponse;
}

/** What kube-apiserver asks a conversion webhook (apiextensions/v1 ConversionRequest). */
export interface ConversionRequest {
  /** Identifies this call; the response echoes it. */
  uid: string;
  /** The apiVersion every object must be converted to, e.g. `example.com/v1`. */
  desiredAPIVersion: string;
  /** The objects to convert, in any of the CRD's served versions. */
  objects: Record<string, unknown>[];
}

/** What a conversion webhook answers (apiextensions/v1 ConversionResponse): objects in the same order. */
export interface ConversionResponse {
  /** The request's uid, echoed. */
  uid: string;
  /** The converted objects, in the request's order. */
  convertedObjects: Record<string, unknown>[];
  /** `status: "Success"`, or `"Failure"` with a message. */
  result: { status: "Success" | "Failure"; message?: string; code?: number; reason?: string };
}

/** The envelope of both directions (apiextensions/v1 ConversionReview). */
export interface ConversionReview {
  /** Always `apiextensions.k8s.io/v1`. */
  apiVersion: "apiextensions.k8s.io/v1";
  /** Always `ConversionReview`. */
  kind: "ConversionReview";
  /** Set by kube-apiserver. */
  request?: ConversionRequest;
  /** Set by the webhook. */
  response?: ConversionResponse;
}
