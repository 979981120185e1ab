/**
 * certificates.k8s.io CertificateSigningRequests (pkg/registry/certificates/certificates/strategy.go): a create
 * records who asked — spec.username, uid, groups and extra are the request's authenticated user, whatever the body
 * said — and starts with an empty status; an update of the main resource keeps spec and status, one of the status
 * subresource keeps spec and the Approved and Denied conditions and stamps the conditions' lastUpdateTime and
 * lastTransitionTime (kept while a condition's type and status are). Any name is accepted (kube does not validate CSR names). Neither spec nor status belongs
 * to a manager of the main resource (patch/reset_fields.ts).
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { rfc3339 } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import { copyJson } from "../../../runtime/apimachinery/json_copy.ts";

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
    if (user.extra && Object.keys(user.extra).length > 0) spec.extra = copyJson(user.extra);
  }
  csr.status = {};
}

function prepareForUpdate(next: KubeObject, old: KubeObject, ctx: StrategyContext): void {
  if (old.spec === undefined) delete next.spec;
  else next.spec = copyJson(old.spec);
  if (ctx.subresource === "status") {
    // Approval is the approval subresource's: the stored Approved and Denied conditions stay as they were.
    for (const type of ["Approved", "Denied"]) keepConditions(next, old, type);
    stampConditions(next, old, rfc3339(ctx.clock.now()));
    return;
  }
  if (old.status === undefined) delete next.status;
  else next.status = copyJson(old.status);
}

const conditionsOf = (csr: KubeObject): KubeObject[] =>
  Array.isArray(csr.status?.conditions) ? csr.status.conditions : [];

/** kube's preserveConditionInstances: the old instances of `type` replace the new ones when their number is kept. */
function keepConditions(next: KubeObject, old: KubeObject, type: string): void {
  const was = conditionsOf(old).filter((c) => c?.type === type);
  const now = conditionsOf(next).flatMap((c, i) => c?.type === type ? [i] : []);
  if (was.length !== now.length) return;
  now.forEach((at, n) => conditionsOf(next)[at] = copyJson(was[n]));
}

/** kube's populateConditionTimestamps: lastUpdateTime now; lastTransitionTime kept while type and status are. */
function stampConditions(next: KubeObject, old: KubeObject, now: string): void {
  for (const c of conditionsOf(next)) {
    if (!c || typeof c !== "object") continue;
    c.lastUpdateTime ||= now;
    if (c.lastTransitionTime) continue;
    const same = conditionsOf(old).find((o) => o?.type === c.type && o?.status === c.status && o?.lastTransitionTime);
    c.lastTransitionTime = same?.lastTransitionTime ?? now;
  }
}

/** The strategy of certificates.k8s.io/v1 certificatesigningrequests. */
export const CERTIFICATE_SIGNING_REQUESTS: ResourceStrategy = {
  validateName: () => [],
  prepareForCreate,
  prepareForUpdate,
};
