/** The audit-log replay for the real-tier shard run: holders from Lease responses, writes by replica, µs ordering. */
import assert from "node:assert/strict";
import { auditMillis, auditObservations } from "./shard_audit.ts";
import { checkShardSafety } from "./shard_checker.ts";

const line = (o: Record<string, unknown>) => JSON.stringify({ stage: "ResponseComplete", ...o });
const lease = (id: string, ts: string, holder: string, ua = `kubeop/0 (${holder})`) =>
  line({
    auditID: id,
    verb: "update",
    userAgent: ua,
    requestReceivedTimestamp: ts,
    objectRef: { resource: "leases", namespace: "default", name: "kubeop-bucket-0" },
    responseStatus: { code: 200 },
    responseObject: { spec: { holderIdentity: holder } },
  });
const write = (id: string, ts: string, who: string) =>
  line({
    auditID: id,
    verb: "patch",
    userAgent: `kubeop/0 (${who})`,
    requestReceivedTimestamp: ts,
    objectRef: { resource: "multisecrets", namespace: "shards", name: "ms-0", subresource: "status" },
    responseStatus: { code: 200 },
  });

Deno.test("audit timestamps keep their microseconds", () => {
  const gap = auditMillis("2026-11-24T05:00:00.000001Z") - auditMillis("2026-11-24T05:00:00Z");
  assert.ok(gap > 0.0009 && gap < 0.0011, `1 µs apart, got ${gap} ms`);
});

Deno.test("a write received after its bucket moved is reported; one before the move is not", () => {
  const log = [
    lease("1", "2026-11-24T05:00:00.000000Z", "a"),
    write("2", "2026-11-24T05:00:00.500000Z", "a"),
    lease("3", "2026-11-24T05:00:01.000000Z", "", "kubeop/0 (a)"), // a releases
    lease("4", "2026-11-24T05:00:01.000100Z", "b"),
    write("5", "2026-11-24T05:00:01.000050Z", "a"), // between the release and b's acquisition: nobody holds it
    write("5", "2026-11-24T05:00:01.000050Z", "a"), // the same request's second stage line is counted once
    lease("6", "2026-11-24T05:00:02.000000Z", "b", "kubeop/0 (b)"),
  ].join("\n");
  // Every uid maps to bucket 0 of 1.
  const obs = auditObservations(log, (name) => name === "ms-0" ? "uid-0" : undefined);
  assert.equal(obs.filter((o) => o.kind === "write").length, 2);
  const report = checkShardSafety(obs, 1);
  assert.equal(report.writesWhileNotHolder, 1);
  assert.match(report.violations[0], /a wrote uid-0 .* named nobody/);
});
