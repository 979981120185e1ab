/**
 * An independent checker for leader safety: given what the server (or the in-memory Lease store) recorded — every
 * Lease change with its holder, and every fenced write with the identity of the replica that sent it, both in the
 * order the server received them — it counts the writes that arrived while the Lease named someone else. It knows
 * nothing of electors or fences: only the store's own record decides who held the Lease when a write arrived.
 * @module
 */

/** One observation, in server-arrival order (`seq` breaks ties of `at`). */
export type LeaderObservation =
  /** The Lease was written (created, renewed, taken over, released): from now on `holder` holds it ("" = nobody). */
  | { kind: "lease"; seq: number; at: number; holder: string }
  /** A write (not a Lease write) sent by replica `identity` arrived; `what` says which call, for the report. */
  | { kind: "write"; seq: number; at: number; identity: string; what?: string };

/** What {@link checkLeaderSafety} found. */
export interface LeaderSafetyReport {
  /** Writes checked. */
  writes: number;
  /** Writes that arrived while the Lease did not name their sender. Must be 0. */
  writesWhileNotLeader: number;
  /** Most distinct replicas whose writes arrived within one holder's term (1 when safe and anyone wrote). */
  maxConcurrentLeaders: number;
  /** Lease changes that moved it to another holder. */
  leaderChanges: number;
  /** The first few offending writes, readable. */
  violations: string[];
}

/**
 * Replays `observations` in arrival order and counts writes whose sender was not the Lease holder at that moment.
 *
 * @example
 * ```ts
 * import { checkLeaderSafety } from "./leader_checker.ts";
 * const report = checkLeaderSafety([
 *   { kind: "lease", seq: 1, at: 0, holder: "a" },
 *   { kind: "write", seq: 2, at: 5, identity: "a" },
 *   { kind: "lease", seq: 3, at: 9, holder: "b" },
 *   { kind: "write", seq: 4, at: 10, identity: "a" }, // a deposed leader's write
 * ]);
 * console.assert(report.writesWhileNotLeader === 1);
 * ```
 */
export function checkLeaderSafety(observations: Iterable<LeaderObservation>): LeaderSafetyReport {
  const sorted = [...observations].sort((a, b) => a.at - b.at || a.seq - b.seq);
  let holder = "";
  let termWriters = new Set<string>();
  const report: LeaderSafetyReport = {
    writes: 0,
    writesWhileNotLeader: 0,
    maxConcurrentLeaders: 0,
    leaderChanges: 0,
    violations: [],
  };
  for (const ob of sorted) {
    if (ob.kind === "lease") {
      if (ob.holder !== holder) {
        if (ob.holder !== "") report.leaderChanges++;
        holder = ob.holder;
        termWriters = new Set();
      }
      continue;
    }
    report.writes++;
    termWriters.add(ob.identity);
    report.maxConcurrentLeaders = Math.max(report.maxConcurrentLeaders, termWriters.size);
    if (ob.identity !== holder) {
      report.writesWhileNotLeader++;
      if (report.violations.length < 10) {
        report.violations.push(
          `at ${ob.at} (#${ob.seq}) ${ob.identity} wrote${ob.what ? ` ${ob.what}` : ""} while the Lease named ` +
            `${holder === "" ? "nobody" : holder}`,
        );
      }
    }
  }
  return report;
}
