import assert from "node:assert/strict";
import { renderTable } from "./render.ts";

Deno.test("render: latest row per fault and target, baseline first per target, leader rows last, nulls as dashes", () => {
  const rows = [
    { fault: "restart", target: "fake", lost: 1, time: "2026-01-01T00:00:00Z" },
    { fault: "none", target: "fake", lost: 0, time: "2026-01-01T00:00:00Z" },
    { fault: "restart", target: "fake", lost: 0, recoverySeconds: null, time: "2026-01-02T00:00:00Z" },
    { fault: "leader-sigkill-sigstop", target: "fake", writesWhileNotLeader: 0, time: "2026-01-02T00:00:00Z" },
    { fault: "restart", target: "real", lost: 0, time: "2026-01-03T00:00:00Z" },
    { fault: "none", target: "real", lost: 0, time: "2026-01-03T00:00:00Z" },
  ];
  const lines = renderTable(rows.map((r) => JSON.stringify(r)).join("\n")).split("\n");
  assert.equal(lines.length, 7);
  assert.match(lines[2], /^\| none \| fake \|/);
  assert.match(lines[3], /^\| restart \| fake \| – \| – \| 0 \|.*\| 2026-01-02 \|$/);
  assert.match(lines[4], /^\| none \| real \|/);
  assert.match(lines[5], /^\| restart \| real \|/);
  assert.match(lines[6], /^\| leader-sigkill-sigstop \|.*\| 0 \| 2026-01-02 \|$/);
});
