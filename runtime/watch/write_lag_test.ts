import assert from "node:assert/strict";
import { WriteLag } from "./write_lag.ts";

Deno.test("WriteLag: nothing written or nothing comparable measures nothing", () => {
  const lag = new WriteLag();
  assert.equal(lag.measure("5", 0), undefined);
  lag.noteWrite("abc", 0); // opaque versions are not compared
  assert.equal(lag.measure("5", 0), undefined);
  lag.noteWrite("10", 0);
  assert.equal(lag.measure("opaque", 0), undefined);
});

Deno.test("WriteLag: the lag counts from the oldest write the cache has not shown, and restarts once caught up", () => {
  const lag = new WriteLag();
  lag.noteWrite("10", 1_000, "9");
  lag.noteWrite("12", 2_000, "9"); // still behind the first write: the lag still counts from 1 000
  assert.deepEqual(lag.measure("9", 3_000), { resourceVersions: 3, behindMs: 2_000 });
  lag.noteWrite("11", 3_500, "9"); // older than the newest write: changes nothing
  assert.deepEqual(lag.measure("12", 4_000), { resourceVersions: 0, behindMs: 0 });
  // Caught up (seen 12) when the next write comes, even without a measure in between: it counts from that write.
  lag.noteWrite("20", 10_000, "12");
  assert.deepEqual(lag.measure("15", 10_500), { resourceVersions: 5, behindMs: 500 });
});
