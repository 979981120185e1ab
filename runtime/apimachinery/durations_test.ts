import assert from "node:assert/strict";
import { ageOf, formatGoDuration, humanDuration } from "./durations.ts";

Deno.test("humanDuration matches apimachinery HumanDuration at each boundary", () => {
  const s = 1000, m = 60 * s, h = 60 * m, d = 24 * h;
  const cases: [number, string][] = [
    [-5 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [59 * s, "59s"],
    [119 * s, "119s"],
    [2 * m, "2m"],
    [2 * m + 3 * s, "2m3s"],
    [9 * m + 59 * s, "9m59s"],
    [10 * m + 30 * s, "10m"],
    [45 * m, "45m"],
    [179 * m, "179m"],
    [3 * h + 5 * m, "3h5m"],
    [7 * h, "7h"],
    [23 * h + 59 * m, "23h"],
    [47 * h, "47h"],
    [3 * d + 4 * h, "3d4h"],
    [5 * d, "5d"],
    [400 * d, "400d"],
    [2 * 365 * d + 10 * d, "2y10d"],
    [3 * 365 * d, "3y"],
    [9 * 365 * d + 40 * d, "9y"],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}ms`);
});

Deno.test("ageOf handles missing and bad timestamps", () => {
  const now = Date.parse("2025-01-01T00:05:00Z");
  assert.equal(ageOf("2025-01-01T00:00:00Z", now), "5m");
  assert.equal(ageOf(undefined, now), "<unknown>");
  assert.equal(ageOf("yesterday", now), "<invalid>");
});

Deno.test("formatGoDuration: time.Duration.String() forms", () => {
  assert.equal(formatGoDuration(0), "0s");
  assert.equal(formatGoDuration(1.5e9), "1.5s");
  assert.equal(formatGoDuration(90e9), "1m30s");
  assert.equal(formatGoDuration(3600e9), "1h0m0s");
  assert.equal(formatGoDuration(-2e9), "-2s");
});
