/**
 * The options of a write to the fake server's object semantics (FakeStore create, update and their HTTP
 * callers): namespace, status subresource, dry run, field manager and validation, warnings, and the request's own
 * admission steps.
 * @module
 */
import type { AdmissionChain } from "./admission.ts";
import type { UserInfo } from "./user_info.ts";
import type { WrittenSubresource } from "./strategy.ts";

/** Write options of FakeStore create/update. */
export interface WriteOptions {
  /** Namespace of the object. */
  namespace?: string;
  /** The name in the URL (update/status); must match the body. */
  name?: string;
  /** Write the status subresource (or a Pod's ephemeralcontainers or resize). */
  subresource?: WrittenSubresource;
  /** Validate and admit, but do not persist. */
  dryRun?: boolean;
  /** Records the write in managedFields under this manager (operation Update). */
  fieldManager?: string;
  /** `fieldValidation` query parameter: Strict, Warn (default over HTTP) or Ignore. */
  fieldValidation?: string;
  /** Collects warnings for `Warning` response headers. */
  warnings?: string[];
  /** Keys the JSON body held twice (`spec.a`): refused under Strict, warned about under Warn. */
  duplicateFields?: string[];
  /**
   * A JSON body's strict decoding errors in document order (`duplicate field "a"`, `unknown field "b"`: a built-in's,
   * found by the HTTP layer, which dropped the unknown fields); they replace {@link duplicateFields}' messages.
   */
  strictErrors?: string[];
  /**
   * This request's own admission steps, run after the chain's hooks of the same phase (kube: the webhook plugins
   * come last in each phase). The HTTP layer calls admission webhooks and policies through them.
   */
  admission?: Partial<Record<"mutating" | "validating", AdmissionChain["mutating"][number]>>;
  /** The object is a patch's result: a changed uid is 422 immutable, not a failed uid precondition (409). */
  patched?: boolean;
  /**
   * Whom the write is made for (kube: the request context's user.Info): strategies that record the requester read it,
   * as a CertificateSigningRequest's spec.username. Absent for the fake's own writers.
   */
  user?: UserInfo;
  /** Answer with the stored object itself, not a copy: for callers that only serialize it (the HTTP layer). */
  shared?: boolean;
}
