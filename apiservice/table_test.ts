import assert from "node:assert/strict";
import { toTable } from "./table.ts";
import { humanDuration } from "../runtime/apimachinery/durations.ts";
import { FARMPODS } from "./llama.ts";

Deno.test("humanDuration matches apimachinery's HumanDuration", () => {
  const s = 1000;
  const cases: Array<[number, string]> = [
    [59 * s, "59s"],
    [119 * s, "119s"],
    [123 * s, "2m3s"],
    [45 * 60 * s, "45m"],
    [(3 * 60 + 5) * 60 * s, "3h5m"],
    [23 * 3600 * s, "23h"],
    [(3 * 24 + 4) * 3600 * s, "3d4h"],
    [400 * 86400 * s, "400d"],
    [(2 * 365 + 10) * 86400 * s, "2y10d"],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, want);
});

Deno.test("watch tables carry column definitions only on the first event; includeObject=Object keeps the object", () => {
  const fp = { metadata: { name: "farm-a", creationTimestamp: "2026-01-01T00:00:00Z" }, spec: { containers: 2 } };
  const first = toTable([fp], FARMPODS, { nowMs: Date.UTC(2026, 0, 1, 0, 0, 5) });
  const later = toTable([fp], FARMPODS, { nowMs: 0, noHeaders: true, includeObject: "Object" });
  assert.equal(first.columnDefinitions.length, 3);
  assert.deepEqual(first.rows[0].cells, ["farm-a", 2, "5s"]);
  assert.deepEqual(later.columnDefinitions, []);
  assert.equal(later.rows[0].object, fp);
});
