/**
 * The shard checker's observations from a real kube-apiserver's audit log (tests/faults/shard_processes_real.ts): the
 * policy that records what the checker needs, and the replay into {@link ShardObservation}s. Every bucket Lease write
 * is logged at RequestResponse level (the holder is in the response object), every MultiSecret write at Metadata
 * level; both carry the server's `requestReceivedTimestamp` (µs) and the User-Agent, which names the replica
 * (`kubeop/<version> (<identity>)`).
 * @module
 */
import { MultiSecretType } from "../../controllers/multisecret/schema.ts";
import type { ShardObservation } from "./shard_checker.ts";

/** The namespace of the ring's Leases in the real run. */
export const LEASE_NS = "default";

/** Audit policy: bucket Lease writes with their response (the holder), MultiSecret writes by metadata. */
export const SHARD_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: RequestResponse
  namespaces: ["${LEASE_NS}"]
  verbs: ["create", "update", "patch", "delete"]
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
- level: Metadata
  verbs: ["create", "update", "patch", "delete"]
  resources:
  - group: ${MultiSecretType.group}
    resources: ["multisecrets", "multisecrets/status"]
- level: None
`;

/** One audit.k8s.io/v1 Event line, the fields the checkers read. */
export interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  userAgent?: string;
  requestReceivedTimestamp: string;
  /** When the event's stage was reached (ResponseComplete: the answer was sent). */
  stageTimestamp?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code?: number };
  responseObject?: { metadata?: { name?: string }; spec?: { holderIdentity?: string } };
}

/**
 * The requests of an audit log, once each (its ResponseComplete or Panic event), skipping lines that are not JSON (a
 * line cut by a concurrent write or by the kill of kube-apiserver).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { completedAuditEvents } from "./shard_audit.ts";
 * const line = (stage: string) =>
 *   JSON.stringify({ auditID: "a", stage, verb: "update", requestReceivedTimestamp: "2026-11-24T05:33:58.1Z" });
 * const events = completedAuditEvents([line("RequestReceived"), line("ResponseComplete"), "{cut"].join("\n"));
 * assert.deepEqual(events.map((e) => e.stage), ["ResponseComplete"]);
 * ```
 */
export function completedAuditEvents(text: string): AuditEvent[] {
  const events: AuditEvent[] = [];
  const seen = new Set<string>();
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    let ev: AuditEvent;
    try {
      ev = JSON.parse(line);
    } catch {
      continue;
    }
    if (ev.stage !== "ResponseComplete" && ev.stage !== "Panic") continue;
    if (seen.has(ev.auditID)) continue;
    seen.add(ev.auditID);
    events.push(ev);
  }
  return events;
}

/** `2026-11-24T05:33:58.123456Z` → milliseconds with the microseconds as a fraction. */
export function auditMillis(ts: string): number {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(ts);
  if (!m) return Date.parse(ts);
  return Date.parse(`${m[1]}Z`) + Number(`0.${m[2] ?? "0"}`) * 1000;
}

/**
 * The checker's observations from an audit log: bucket Lease writes that succeeded (holder from the response; a
 * delete empties it) and every MultiSecret write sent by a replica, both at their receive time. A write's reconcile
 * span is (replica, number of bucket holder changes so far), as in the fake-server run.
 */
export function auditObservations(text: string, uidOf: (name: string) => string | undefined): ShardObservation[] {
  const events = completedAuditEvents(text);
  events.sort((a, b) => auditMillis(a.requestReceivedTimestamp) - auditMillis(b.requestReceivedTimestamp));
  const out: ShardObservation[] = [];
  const holders = new Map<number, string>();
  let holderChanges = 0;
  for (const [seq, ev] of events.entries()) {
    const at = auditMillis(ev.requestReceivedTimestamp);
    const identity = ev.userAgent?.match(/\(([^)]+)\)$/)?.[1];
    if (ev.objectRef?.resource === "leases") {
      const bucket = /^kubeop-bucket-(\d+)$/.exec(ev.objectRef.name ?? "");
      const code = ev.responseStatus?.code ?? 0;
      if (!bucket || code < 200 || code > 299) continue;
      const holder = ev.verb === "delete" ? "" : ev.responseObject?.spec?.holderIdentity ?? "";
      const b = Number(bucket[1]);
      if (holders.get(b) !== holder) holderChanges++;
      holders.set(b, holder);
      out.push({ kind: "lease", seq, at, bucket: b, holder });
    } else if (identity && ev.objectRef?.name) {
      const uid = uidOf(ev.objectRef.name);
      if (uid) out.push({ kind: "write", seq, at, uid, identity, reconcile: `${identity}#${holderChanges}` });
    }
  }
  return out;
}
