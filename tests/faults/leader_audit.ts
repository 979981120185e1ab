/**
 * The leader checker's observations from a real kube-apiserver's audit log (tests/faults/leader_processes_real.ts):
 * the policy that records what tests/faults/leader_checker.ts needs, and the replay into {@link LeaderObservation}s.
 * Every Lease write in `default` is logged at RequestResponse level (the holder is in the response object; no
 * `resourceNames` in the policy: a create's URL names no object, so such a rule would miss the Lease's creation), every
 * write of a MultiSecret, Secret or Event at Metadata level; each carries the server's `requestReceivedTimestamp` (µs)
 * and the User-Agent, which names the replica (`kubeop/<version> (<identity>)`).
 * @module
 */
import { MultiSecretType } from "../../controllers/multisecret/schema.ts";
import type { LeaderObservation } from "./leader_checker.ts";
import { auditMillis, completedAuditEvents } from "./shard_audit.ts";

/** Audit policy: the leader Lease's writes with their response, the operator's writes by metadata. */
export const LEADER_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: RequestResponse
  namespaces: ["default"]
  verbs: ["create", "update", "patch", "delete"]
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
  resources:
  - group: ${MultiSecretType.group}
    resources: ["multisecrets", "multisecrets/status"]
  - group: ""
    resources: ["secrets", "events"]
  - group: events.k8s.io
    resources: ["events"]
- level: None
`;

/**
 * The checker's observations: the Lease's successful writes (holder from the response; a delete empties it), every
 * other write a replica sent (successful or not: it reached the server), and at each of `stateLost` (epoch ms) the
 * Lease naming nobody — the store that held it is gone. All at the server's receive time, in that order.
 *
 * @example
 * ```ts
 * import { leaderAuditObservations } from "./leader_audit.ts";
 * const ev = (id: string, ts: string, ua: string, resource: string, holder?: string) =>
 *   JSON.stringify({
 *     auditID: id, stage: "ResponseComplete", verb: "update", userAgent: ua, requestReceivedTimestamp: ts,
 *     objectRef: { resource, name: resource === "leases" ? "kubeop" : "x" }, responseStatus: { code: 200 },
 *     responseObject: holder ? { spec: { holderIdentity: holder } } : undefined,
 *   });
 * const obs = leaderAuditObservations([
 *   ev("1", "2026-01-01T00:00:00.000001Z", "kubeop/1 (a)", "leases", "a"),
 *   ev("2", "2026-01-01T00:00:00.5Z", "kubeop/1 (a)", "secrets"),
 * ].join("\n"), []);
 * console.assert(obs.length === 2 && obs[1].kind === "write");
 * ```
 */
export function leaderAuditObservations(text: string, stateLost: number[]): LeaderObservation[] {
  const events = completedAuditEvents(text);
  const timed = [
    ...events.map((ev) => ({ at: auditMillis(ev.requestReceivedTimestamp), ev })),
    ...stateLost.map((at) => ({ at, ev: undefined })),
  ].sort((a, b) => a.at - b.at);
  const out: LeaderObservation[] = [];
  for (const [seq, { at, ev }] of timed.entries()) {
    if (!ev) {
      out.push({ kind: "lease", seq, at, holder: "" });
      continue;
    }
    const identity = ev.userAgent?.match(/\(([^)]+)\)$/)?.[1];
    if (ev.objectRef?.resource === "leases") {
      const code = ev.responseStatus?.code ?? 0;
      if (code < 200 || code > 299) continue;
      if ((ev.objectRef.name || ev.responseObject?.metadata?.name) !== "kubeop") continue; // a create names it in the body
      out.push({
        kind: "lease",
        seq,
        at,
        holder: ev.verb === "delete" ? "" : ev.responseObject?.spec?.holderIdentity ?? "",
      });
    } else if (identity) {
      const ref = ev.objectRef ?? {};
      const what = `${ev.verb} ${ref.resource}${ref.subresource ? `/${ref.subresource}` : ""} ${ref.namespace ?? ""}/${
        ref.name ?? ""
      }`;
      out.push({ kind: "write", seq, at, identity, what });
    }
  }
  return out;
}
