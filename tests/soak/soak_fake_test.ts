/**
 * The default tier's soak (issue 25 item 3): `deno task soak --duration 3m --target fake` in short — the four seed
 * operators as a `kubeop run` child process under churn, every periodic fault at least once (watch cut, 410, 429,
 * server restart), a check every 30 s. Nothing may be lost or missed, the operator may not exit, and its fds and
 * sockets may not grow past the bound. No timed assertion: how long a check took to settle is recorded, not judged.
 * The long runs (docs/soak.md) judge the RSS slope too.
 */
import assert from "node:assert/strict";
import { runSoak } from "./run.ts";
import { DEFAULT_BOUNDS } from "./summary.ts";

Deno.test("a 3-minute soak on the fake loses nothing, misses nothing and leaks no fds or sockets", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-soak-" });
  const lines: string[] = [];
  try {
    const summary = await runSoak({
      target: "fake",
      durationMs: 3 * 60_000,
      checkEveryMs: 30_000,
      faultEveryMs: 20_000,
      churnEveryMs: 500,
      sizes: { multiSecrets: 30, machines: 10, ats: 10, netperfs: 5 },
      bounds: { ...DEFAULT_BOUNDS, warmupMs: 30_000 },
      out: `${dir}/soak.jsonl`,
      dir: `${dir}/run`,
      seed: 25,
      log: (line) => lines.push(line),
    });
    const context = `${JSON.stringify(summary)}\n${lines.slice(-20).join("\n")}`;
    assert.ok(summary.checks >= 5, `a check every 30 s over 3 min: ${context}`);
    assert.equal(summary.lost, 0, context);
    assert.equal(summary.missedEvents, 0, context);
    assert.equal(summary.operatorExits, 0, context);
    for (const fault of ["watch-cut", "gone-410", "throttle-429", "restart"]) {
      assert.ok((summary.faults[fault] ?? 0) >= 1, `fault ${fault} injected: ${context}`);
    }
    assert.ok(Object.values(summary.watchRestarts).reduce((a, b) => a + b, 0) > 0, `watches restarted: ${context}`);
    assert.ok(summary.fds && summary.sockets, context);
    assert.ok(summary.fds.last - summary.fds.first <= DEFAULT_BOUNDS.fdGrowth, `fds grew: ${context}`);
    assert.ok(summary.sockets.last - summary.sockets.first <= DEFAULT_BOUNDS.fdGrowth, `sockets grew: ${context}`);
    assert.deepEqual(summary.failures, [], context);
    const written = (await Deno.readTextFile(`${dir}/soak.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(written.length, summary.checks + 1, "one line per sample, then the summary");
    assert.equal(written.at(-1).summary, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
