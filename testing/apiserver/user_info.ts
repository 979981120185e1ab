/**
 * Who makes a request to the fake server, as authentication answers it (kube: user.Info): what RBAC authorizes, what
 * admission webhooks are told, and what strategies that record the requester read (a CertificateSigningRequest).
 * @module
 */

/** Who makes a request (authentication's answer). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
