/**
 * Duplicate-concurrent reconciles across leader transitions, from the replicas' own logs: run with `--log-level trace`,
 * a replica logs `reconcile started` and `reconcile ended` around every reconcile (runtime/controller/
 * controller_workers.ts), with the key's namespace and name and the reconcile's id. Two counts:
 *
 * - within one replica, replayed in log order: a reconcile of a key that starts while another reconcile of that key
 *   in the same process has not ended — across a lost and regained Lease, a new term's reconcile that started before
 *   the previous term's had drained;
 * - across replicas, by the log timestamps (one host clock): a reconcile of a key that overlaps another replica's
 *   reconcile of that key. A reconcile frozen by the harness (its replica SIGSTOPped while it ran) or cut off by a
 *   SIGKILL (no end line) is left out: its process did nothing meanwhile, and the fence refuses its writes once it
 *   resumes (tests/faults/leader_checker.ts counts those).
 * @module
 */

/** One reconcile of one key by one replica (epoch ms; `end` absent when the replica died first). */
export interface ReconcileSpan {
  replica: string;
  key: string;
  id: string;
  start: number;
  end?: number;
}

/** A stretch during which the harness held a replica (SIGSTOP to SIGCONT), epoch ms. */
export interface HeldStretch {
  replica: string;
  from: number;
  to: number;
}

/** What {@link reconcileOverlaps} found. */
export interface ReconcileOverlapReport {
  /** Reconciles read from the logs. */
  reconciles: number;
  /** Overlapping reconciles of one key within one replica. Must be 0. */
  sameReplica: number;
  /** Overlapping reconciles of one key by two replicas, neither held nor killed meanwhile. Must be 0. */
  crossReplica: number;
  /** The first few overlaps, readable. */
  examples: string[];
}

interface TraceLine {
  ts?: string;
  msg?: string;
  namespace?: string;
  name?: string;
  reconcileID?: string;
}

/** The spans in one replica's stderr (zap JSON lines), plus its in-order same-key overlaps. */
export function reconcileSpans(
  stderr: string,
  replica: string,
): { spans: ReconcileSpan[]; sameReplica: number; examples: string[] } {
  const spans = new Map<string, ReconcileSpan>();
  const running = new Map<string, string>(); // key → reconcile id
  let sameReplica = 0;
  const examples: string[] = [];
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{") || !line.includes('"reconcile ')) continue;
    let rec: TraceLine;
    try {
      rec = JSON.parse(line);
    } catch {
      continue; // a partial line
    }
    if (rec.msg !== "reconcile started" && rec.msg !== "reconcile ended") continue;
    if (!rec.reconcileID || !rec.name || !rec.ts) continue;
    const key = rec.namespace ? `${rec.namespace}/${rec.name}` : rec.name;
    const at = Date.parse(rec.ts);
    if (rec.msg === "reconcile started") {
      const other = running.get(key);
      if (other !== undefined) {
        sameReplica++;
        if (examples.length < 5) examples.push(`${replica}: ${key} started at ${rec.ts} while ${other} ran`);
      }
      running.set(key, rec.reconcileID);
      spans.set(rec.reconcileID, { replica, key, id: rec.reconcileID, start: at });
    } else {
      const span = spans.get(rec.reconcileID);
      if (span) span.end = at;
      if (running.get(key) === rec.reconcileID) running.delete(key);
    }
  }
  return { spans: [...spans.values()], sameReplica, examples };
}

/**
 * Counts overlapping reconciles of one key in the replicas' logs (`logs`: replica → stderr); `held` are the
 * harness's SIGSTOP–SIGCONT stretches.
 *
 * @example
 * ```ts
 * import { reconcileOverlaps } from "./reconcile_overlap.ts";
 * const line = (ts: string, msg: string, id: string) =>
 *   JSON.stringify({ ts, msg, namespace: "ns", name: "a", reconcileID: id });
 * const a = [line("2026-01-01T00:00:00.000Z", "reconcile started", "1"),
 *   line("2026-01-01T00:00:00.100Z", "reconcile ended", "1")].join("\n");
 * const b = [line("2026-01-01T00:00:00.050Z", "reconcile started", "2"),
 *   line("2026-01-01T00:00:00.060Z", "reconcile ended", "2")].join("\n");
 * console.assert(reconcileOverlaps(new Map([["a", a], ["b", b]]), []).crossReplica === 1);
 * ```
 */
export function reconcileOverlaps(logs: Map<string, string>, held: HeldStretch[]): ReconcileOverlapReport {
  const report: ReconcileOverlapReport = { reconciles: 0, sameReplica: 0, crossReplica: 0, examples: [] };
  const byKey = new Map<string, ReconcileSpan[]>();
  for (const [replica, stderr] of logs) {
    const found = reconcileSpans(stderr, replica);
    report.reconciles += found.spans.length;
    report.sameReplica += found.sameReplica;
    report.examples.push(...found.examples);
    for (const span of found.spans) {
      if (span.end === undefined) continue; // cut off by a SIGKILL
      if (held.some((h) => h.replica === replica && h.from < span.end! && span.start < h.to)) continue; // frozen
      byKey.set(span.key, [...byKey.get(span.key) ?? [], span]);
    }
  }
  for (const spans of byKey.values()) {
    spans.sort((x, y) => x.start - y.start);
    for (let i = 0; i < spans.length; i++) {
      for (let j = i + 1; j < spans.length && spans[j].start < spans[i].end!; j++) {
        if (spans[j].replica === spans[i].replica) continue; // counted in log order above
        report.crossReplica++;
        if (report.examples.length < 10) {
          const iso = (ms: number) => new Date(ms).toISOString();
          report.examples.push(
            `${spans[i].key}: ${spans[i].replica} ${iso(spans[i].start)}–${iso(spans[i].end!)} overlaps ` +
              `${spans[j].replica} from ${iso(spans[j].start)}`,
          );
        }
      }
    }
  }
  return report;
}
