/**
 * tests/faults/reconcile_overlap.ts: the runtime logs where each reconcile begins and ends (at trace level), and the
 * replay counts overlapping reconciles of one key within a replica and across replicas, leaving out reconciles the
 * harness froze or killed.
 */
import assert from "node:assert/strict";
import { type MultiSecret, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { captureSink, configureLogging } from "../../runtime/observe/log.ts";
import { startEnv, waitFor } from "../controllers_env.ts";
import { reconcileOverlaps, reconcileSpans } from "./reconcile_overlap.ts";

const line = (ts: number, msg: string, id: string, name = "a") =>
  JSON.stringify({ ts: new Date(ts).toISOString(), msg, namespace: "ns", name, reconcileID: id });
const log = (...lines: string[]) => lines.join("\n") + "\n";

Deno.test("reconcile overlaps: one replica's terms in log order, two replicas by time, frozen and killed ones left out", () => {
  // Replica a: a second reconcile of ns/a starts before the first ended (a new term that did not wait for the drain).
  const a = log(
    line(0, "reconcile started", "a1"),
    line(10, "reconcile started", "a2"),
    line(20, "reconcile ended", "a1"),
    line(30, "reconcile ended", "a2"),
    line(40, "reconcile started", "a3", "b"),
    line(50, "reconcile ended", "a3", "b"),
  );
  assert.equal(reconcileSpans(a, "a").sameReplica, 1);
  // Replica b reconciles ns/b while a does (40–50): a cross-replica overlap.
  const b = log(line(45, "reconcile started", "b1", "b"), line(48, "reconcile ended", "b1", "b"));
  const both = reconcileOverlaps(new Map([["a", a], ["b", b]]), []);
  assert.equal(both.reconciles, 4);
  assert.equal(both.sameReplica, 1);
  assert.equal(both.crossReplica, 1, both.examples.join("\n"));
  // The same overlap while the harness held a (SIGSTOP 35–60) is not counted: a did nothing meanwhile.
  assert.equal(reconcileOverlaps(new Map([["a", a], ["b", b]]), [{ replica: "a", from: 35, to: 60 }]).crossReplica, 0);
  // A reconcile that never ended (its replica was SIGKILLed) is not counted either.
  const killed = log(line(0, "reconcile started", "k1", "b"));
  assert.equal(reconcileOverlaps(new Map([["k", killed], ["b", b]]), []).crossReplica, 0);
  // Back to back (one ends as the next starts) is no overlap.
  const c = log(line(48, "reconcile started", "c1", "b"), line(49, "reconcile ended", "c1", "b"));
  assert.equal(reconcileOverlaps(new Map([["b", b], ["c", c]]), []).crossReplica, 0);
});

Deno.test("the runtime logs each reconcile's start and end at trace level, with its key and id", async () => {
  const capture = captureSink();
  await configureLogging({ sink: capture.sink, level: "trace" });
  const env = await startEnv({ controllers: ["multisecret"] });
  try {
    await env.client.create<MultiSecret>(MultiSecretType, {
      metadata: { name: "traced" },
      spec: { stringData: { v: "1" } },
    }, { namespace: "default" });
    await waitFor("a reconcile of default/traced logged from start to end", () => {
      const { spans } = reconcileSpans(capture.lines().join(""), "me");
      return spans.some((s) => s.key === "default/traced" && s.end !== undefined && s.end >= s.start);
    });
  } finally {
    await env.close();
    await configureLogging({});
  }
});
