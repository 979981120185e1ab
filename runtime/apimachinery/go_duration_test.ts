import assert from "node:assert/strict";
import { parseGoDuration } from "./go_duration.ts";

Deno.test("parses Go durations as time.ParseDuration does, in milliseconds", () => {
  const cases: [string, number][] = [
    ["0", 0],
    ["15s", 15_000],
    ["500ms", 500],
    ["1m", 60_000],
    ["1.5h", 5_400_000],
    ["2h45m", 9_900_000],
    ["1m30.5s", 90_500],
    [".5s", 500],
    ["1.s", 1_000],
    ["-1m", -60_000],
    ["+2s", 2_000],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["1500μs", 1.5],
    ["2000000ns", 2],
  ];
  for (const [text, ms] of cases) assert.equal(parseGoDuration(text), ms, text);
});

Deno.test("refuses what time.ParseDuration refuses, quoting the input", () => {
  for (const text of ["", "15", "s", ".s", "1d", "1 s", "1s ", "1S", "--1s", "1s2", "ten seconds", "-"]) {
    assert.throws(() => parseGoDuration(text), (err) => err instanceof RangeError && err.message.includes(`"${text}"`));
  }
});
