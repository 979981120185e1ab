/**
 * The soak's verdict from its samples (one per check, tests/soak/run.ts): lost objects and missed events summed over
 * the checks, the RSS and heap slopes after warm-up (least-squares line through the samples taken after the first
 * `warmupMs`), fds and sockets first/last/max after warm-up, and whether any of it crossed its bound. Pure: the
 * summary of a results file can be recomputed from its JSON lines.
 *
 * The bounds (also in docs/soak.md):
 * - lost 0 and missed events 0 and no operator exit;
 * - RSS slope after warm-up ≤ {@link SoakBounds.rssSlopeMiBPerHour} (default 16 MiB/h), judged only when the
 *   post-warm-up window spans at least {@link SoakBounds.minSlopeWindowMs} (default 20 min: over a few minutes the
 *   garbage collector's sawtooth is larger than any leak);
 * - fds and sockets after warm-up: last ≤ first + {@link SoakBounds.fdGrowth} (default 32).
 * @module
 */

/** One sample: one JSON line of the results file. */
export interface SoakSample {
  /** ISO-8601. */
  time: string;
  /** Milliseconds since the soak started. */
  elapsedMs: number;
  /** Which check this is (1, 2, …). */
  check: number;
  /** Objects the harness keeps, by kind, at this check. */
  objects: Record<string, number>;
  /** Objects not in their desired state when the check's settle deadline passed. */
  lost: number;
  /** Of the check's probe changes (one per kind, made just before it), those not acted on by the deadline. */
  missedEvents: number;
  /** How long the check waited for convergence. */
  settleMs: number;
  /** Up to 10 objects not converged, each with the check's finding. */
  notConverged?: string[];
  /** Child objects whose owner is gone (informational: the garbage collector removes them in its own time). */
  orphans: number;
  /** The operator process: VmRSS from /proc/PID/status. */
  rssBytes: number;
  /** nodejs_heap_size_used_bytes from the operator's /metrics (undefined when the scrape failed). */
  heapUsedBytes?: number;
  /** Entries of /proc/PID/fd. */
  fds: number;
  /** Those of them that are sockets. */
  sockets: number;
  /** Harness changes since the start (creates, updates, relabels, deletes). */
  changes: number;
  /** Faults injected since the start, by id. */
  faults: Record<string, number>;
  /**
   * The operator's kubeop_watch_restarts_total by reason ("watch for X restarting: <reason>"): server timeouts
   * (stream-ended), cuts, 410s, restarts. Counted since the operator process started.
   */
  watchRestarts?: Record<string, number>;
  /** Times the operator process exited (each one is restarted and fails the soak). */
  operatorExits: number;
}

/** The bounds a soak is judged by. */
export interface SoakBounds {
  /** Samples taken before this are warm-up (caches filling, JIT, pools): left out of slopes and growth. */
  warmupMs: number;
  /** Largest acceptable RSS slope after warm-up, MiB per hour. */
  rssSlopeMiBPerHour: number;
  /** The RSS slope is judged only over a post-warm-up window at least this long. */
  minSlopeWindowMs: number;
  /** Largest acceptable growth of fds (and of sockets) from the first to the last post-warm-up sample. */
  fdGrowth: number;
}

/** Default bounds (see the module doc). */
export const DEFAULT_BOUNDS: Omit<SoakBounds, "warmupMs"> = {
  rssSlopeMiBPerHour: 16,
  minSlopeWindowMs: 20 * 60_000,
  fdGrowth: 32,
};

/** first/last/max of a series after warm-up. */
export interface Span {
  first: number;
  last: number;
  max: number;
}

/** What `deno task soak` prints at the end (and appends as the results file's last line, `summary: true`). */
export interface SoakSummary {
  target: string;
  durationMs: number;
  checks: number;
  lost: number;
  missedEvents: number;
  operatorExits: number;
  changes: number;
  faults: Record<string, number>;
  watchRestarts: Record<string, number>;
  /** Least-squares slope of RSS over the post-warm-up samples, MiB/h (null: fewer than 2 such samples). */
  rssSlopeMiBPerHour: number | null;
  heapSlopeMiBPerHour: number | null;
  /** The post-warm-up window the slopes span. */
  slopeWindowMs: number;
  rssMiB: Span | null;
  fds: Span | null;
  sockets: Span | null;
  bounds: SoakBounds;
  /** Why the soak failed; empty: it passed. */
  failures: string[];
  /** Bounds not judged (window too short). */
  notJudged: string[];
}

/**
 * Least-squares slope of `ys` over `xs` (per unit of x); null with fewer than two points or no spread in x.
 * @example
 * ```ts
 * import { slope } from "./summary.ts";
 * console.assert(slope([0, 1, 2], [1, 3, 5]) === 2);
 * console.assert(slope([5], [1]) === null);
 * ```
 */
export function slope(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 2) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

function span(values: number[]): Span | null {
  return values.length === 0 ? null : { first: values[0], last: values.at(-1)!, max: Math.max(...values) };
}

const MiB = 1024 * 1024;
const HOUR = 3_600_000;

/**
 * The summary and verdict of `samples` (in order) under `bounds`.
 * @example
 * ```ts
 * import { summarize } from "./summary.ts";
 * const s = summarize("fake", 120_000, [], { warmupMs: 0, rssSlopeMiBPerHour: 16, minSlopeWindowMs: 0, fdGrowth: 32 });
 * console.assert(s.failures.length === 1); // no samples: nothing was checked
 * ```
 */
export function summarize(
  target: string,
  durationMs: number,
  samples: readonly SoakSample[],
  bounds: SoakBounds,
): SoakSummary {
  const warm = samples.filter((s) => s.elapsedMs >= bounds.warmupMs);
  const hours = warm.map((s) => s.elapsedMs / HOUR);
  const perHour = (ys: number[]) => {
    const k = slope(hours, ys);
    return k === null ? null : Math.round(k * 100) / 100;
  };
  const rssSlope = perHour(warm.map((s) => s.rssBytes / MiB));
  const heapWarm = warm.filter((s) => s.heapUsedBytes !== undefined);
  const heapSlope = slope(heapWarm.map((s) => s.elapsedMs / HOUR), heapWarm.map((s) => s.heapUsedBytes! / MiB));
  const window = warm.length > 1 ? warm.at(-1)!.elapsedMs - warm[0].elapsedMs : 0;
  const last = samples.at(-1);
  const summary: SoakSummary = {
    target,
    durationMs,
    checks: samples.length,
    lost: samples.reduce((n, s) => n + s.lost, 0),
    missedEvents: samples.reduce((n, s) => n + s.missedEvents, 0),
    operatorExits: last?.operatorExits ?? 0,
    changes: last?.changes ?? 0,
    faults: last?.faults ?? {},
    watchRestarts: [...samples].reverse().find((s) => s.watchRestarts)?.watchRestarts ?? {},
    rssSlopeMiBPerHour: rssSlope,
    heapSlopeMiBPerHour: heapSlope === null ? null : Math.round(heapSlope * 100) / 100,
    slopeWindowMs: window,
    rssMiB: span(warm.map((s) => Math.round(s.rssBytes / MiB * 10) / 10)),
    fds: span(warm.map((s) => s.fds)),
    sockets: span(warm.map((s) => s.sockets)),
    bounds,
    failures: [],
    notJudged: [],
  };
  const f = summary.failures;
  if (samples.length === 0) f.push("no check completed");
  if (summary.lost > 0) f.push(`lost ${summary.lost}`);
  if (summary.missedEvents > 0) f.push(`missed events ${summary.missedEvents}`);
  if (summary.operatorExits > 0) f.push(`operator exited ${summary.operatorExits} time(s)`);
  if (window < bounds.minSlopeWindowMs || rssSlope === null) {
    summary.notJudged.push(
      `RSS slope: post-warm-up window ${Math.round(window / 1000)} s < ${Math.round(bounds.minSlopeWindowMs / 1000)} s`,
    );
  } else if (rssSlope > bounds.rssSlopeMiBPerHour) {
    f.push(`RSS slope ${rssSlope} MiB/h > ${bounds.rssSlopeMiBPerHour} MiB/h`);
  }
  for (const [name, s] of [["fds", summary.fds], ["sockets", summary.sockets]] as const) {
    if (s && s.last - s.first > bounds.fdGrowth) f.push(`${name} grew ${s.first} → ${s.last} (> +${bounds.fdGrowth})`);
  }
  return summary;
}
