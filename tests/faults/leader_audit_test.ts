/** tests/faults/leader_audit.ts: the leader checker's observations from kube-apiserver audit events. */
import assert from "node:assert/strict";
import { LEADER_AUDIT_POLICY, leaderAuditObservations } from "./leader_audit.ts";

const event = (id: string, ms: number, fields: Record<string, unknown>) =>
  JSON.stringify({
    auditID: id,
    stage: "ResponseComplete",
    requestReceivedTimestamp: new Date(ms).toISOString().replace("Z", "000Z"),
    responseStatus: { code: 201 },
    ...fields,
  });

Deno.test("leader audit: a Lease create (its URL names no object) sets the holder; a state loss empties it", () => {
  // A rule limited by resourceNames would not log the create at all: the policy names none.
  assert.doesNotMatch(LEADER_AUDIT_POLICY, /resourceNames/);
  const lease = (holder: string, verb: string) => ({
    verb,
    userAgent: `kubeop/1 (${holder})`,
    objectRef: { resource: "leases", namespace: "default", name: verb === "create" ? "" : "kubeop" },
    responseObject: { metadata: { name: "kubeop" }, spec: { holderIdentity: holder } },
  });
  const write = (who: string) => ({
    verb: "create",
    userAgent: `kubeop/1 (${who})`,
    objectRef: { resource: "secrets", namespace: "t", name: "" },
  });
  const text = [
    event("1", 1_000, lease("a", "create")),
    event("2", 1_100, write("a")),
    event("3", 1_200, {
      ...lease("x", "update"),
      objectRef: { resource: "leases", namespace: "default", name: "other" },
    }),
    event("4", 3_000, lease("b", "create")),
    event("5", 3_100, write("b")),
    "{ cut by a kill",
  ].join("\n");
  const obs = leaderAuditObservations(text, [2_000]);
  assert.deepEqual(
    obs.map((o) => o.kind === "lease" ? `lease:${o.holder}` : `write:${o.identity}`),
    ["lease:a", "write:a", "lease:", "lease:b", "write:b"],
  );
});
