import assert from "node:assert/strict";
import { countRequests } from "./audit.ts";
import { latestResults, resultsTable } from "./report.ts";

Deno.test("countRequests: one request per auditID, by User-Agent prefix and namespace; Events and Leases apart", async () => {
  const ev = (id: string, verb: string, ua: string, resource: string, extra: Record<string, string> = {}) =>
    JSON.stringify({ auditID: id, verb, userAgent: ua, objectRef: { resource, namespace: "ns", ...extra } });
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(
      path,
      [
        ev("1", "watch", "kubeop/0.1.0", "machines"),
        ev("1", "watch", "kubeop/0.1.0", "machines"), // ResponseStarted + ResponseComplete of one watch
        ev("2", "create", "kubeop/0.1.0", "switches"),
        ev("3", "patch", "kubeop/0.1.0", "machines", { name: "m-1", subresource: "status" }),
        ev("4", "create", "kubeop/0.1.0", "events"),
        ev("5", "update", "kubeop/0.1.0", "leases"),
        ev("6", "create", "machine-go", "switches"),
        JSON.stringify({ auditID: "7", verb: "create", userAgent: "kubeop/0.1.0", objectRef: { namespace: "other" } }),
        "{cut",
      ].join("\n"),
    );
    const c = await countRequests(path, "kubeop/", "ns");
    assert.deepEqual(
      { total: c.total, writes: c.writes, events: c.events, leases: c.leases, reads: c.reads },
      { total: 5, writes: 2, events: 1, leases: 1, reads: 1 },
    );
    assert.deepEqual(c.machineWrites, { "m-1": 1 });
    assert.equal(c.byVerb["patch machines/status"], 1);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("report: the latest non-smoke line per benchmark and peer, with its goal met or not", () => {
  const line = (ratio: number, mode: string, peerName = "controller-runtime") =>
    JSON.stringify({ name: "startup", params: { mode }, unit: "ms", kubeop: 1, peer: 1, peerName, ratio });
  const latest = latestResults([line(0.5, "quick"), line(1.2, "quick"), line(0.1, "smoke"), ""]);
  assert.equal(latest.size, 1);
  assert.equal(latest.get("startup|controller-runtime")?.ratio, 1.2);
  assert.match(resultsTable(latest), /\| startup \| controller-runtime \|.*\| 1\.2 \|.*\| yes \|/);
  assert.match(resultsTable(latestResults([line(0.5, "quick")])), /\*\*no\*\*/);
});
