/**
 * certificates.k8s.io CertificateSigningRequests (pkg/registry/certificates/certificates/strategy.go): a create
 * records who asked — spec.username, uid, groups and extra are the request's authenticated user, whatever the body
 * said — and starts with an empty status; an update of the main resource keeps spec and status, one of the status
 * subresource keeps spec. Any name is accepted (kube does not validate CSR names). Neither spec nor status belongs
 * to a manager of the main resource (patch/reset_fields.ts).
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";

function prepareForCreate(csr: KubeObject, ctx: StrategyContext): void {
  const spec = csr.spec && typeof csr.spec === "object" ? csr.spec : (csr.spec = {});
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  const user = ctx.user;
  if (user) {
    if (user.username) spec.username = user.username;
    if (user.uid) spec.uid = user.uid;
    if (user.groups.length > 0) spec.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra);
  }
  csr.status = {};
}

function prepareForUpdate(next: KubeObject, old: KubeObject, ctx: StrategyContext): void {
  if (old.spec === undefined) delete next.spec;
  else next.spec = structuredClone(old.spec);
  if (ctx.subresource === "status") return;
  if (old.status === undefined) delete next.status;
  else next.status = structuredClone(old.status);
}

/** The strategy of certificates.k8s.io/v1 certificatesigningrequests. */
export const CERTIFICATE_SIGNING_REQUESTS: ResourceStrategy = {
  validateName: () => [],
  prepareForCreate,
  prepareForUpdate,
};
