/**
 * Who makes a request to the fake server, as authentication answers it (kube: user.Info): what RBAC authorizes, what
 * admission webhooks are told, and what strategies that record the requester read (a CertificateSigningRequest).
 * @module
 */

/** Who makes a request (authentication's answer). */
export interface UserInfo {
  /** The user's name (`system:serviceaccount:<ns>:<name>` for a ServiceAccount token). */
  username: string;
  /** The user's uid, when the authenticator knows one (ServiceAccount tokens). */
  uid?: string;
  /** The groups, `system:authenticated` included for every authenticated user. */
  groups: string[];
  /** Extra attributes (a ServiceAccount token's pod name and uid, ...). */
  extra?: Record<string, string[]>;
}
