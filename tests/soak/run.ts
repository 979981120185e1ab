/**
 * One soak: the target up, the workload installed and seeded, the operator started as a child process; then, until
 * the duration has passed, churn (one change every `churnEveryMs`, the target's kubelet ticking), a fault from
 * {@link SOAK_FAULTS} every `faultEveryMs`, and every `checkEveryMs` a check — the churn paused, one probe change per
 * kind, then polling until every object is in its desired state or the target's settle deadline passed — followed
 * by a sample of the operator process. Each sample is one JSON line of the results file; the summary
 * (tests/soak/summary.ts) is its last line.
 * @module
 */
import { type SoakBounds, type SoakSample, type SoakSummary, summarize } from "./summary.ts";
import { OperatorProcess } from "./operator_process.ts";
import { SOAK_FAULTS, type SoakTarget, startFakeTarget, startRealTarget } from "./targets.ts";
import { Workload, type WorkloadSizes } from "./workload.ts";
import { seededRandom } from "../../runtime/random.ts";

/** Options of {@link runSoak}. */
export interface SoakOptions {
  target: "fake" | "real";
  durationMs: number;
  checkEveryMs: number;
  faultEveryMs: number;
  churnEveryMs: number;
  sizes: WorkloadSizes;
  bounds: SoakBounds;
  /** Results file: one JSON line per sample, then the summary's. */
  out: string;
  /** Directory for the operator's kubeconfig and log. */
  dir: string;
  seed: number;
  /** Progress lines. */
  log: (line: string) => void;
  /** Ends the soak early (after the current step), with its summary: `deno task soak` aborts it on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** Waits `ms` (pacing of churn, never synchronisation). */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs a soak to its end and returns its summary (already appended to `opts.out`). */
export async function runSoak(opts: SoakOptions): Promise<SoakSummary> {
  await Deno.mkdir(opts.dir, { recursive: true });
  const target: SoakTarget = opts.target === "fake" ? await startFakeTarget(opts.dir) : await startRealTarget(opts.dir);
  const operator = new OperatorProcess(target.kubeconfigPath, `${opts.dir}/operator.log`);
  const samples: SoakSample[] = [];
  const faults: Record<string, number> = {};
  try {
    const workload = new Workload(target.store, opts.sizes, seededRandom(opts.seed));
    await workload.install();
    await workload.seed();
    await operator.start();
    opts.log(`soak on ${opts.target}: operator pid ${operator.pid}, log ${opts.dir}/operator.log, results ${opts.out}`);
    const start = performance.now();
    const elapsed = () => performance.now() - start;
    let nextFault = opts.faultEveryMs;
    let faultIndex = 0;
    const over = () => opts.signal?.aborted === true;
    for (let check = 1; elapsed() < opts.durationMs && !over(); check++) {
      const checkAt = Math.min(check * opts.checkEveryMs, opts.durationMs);
      while (elapsed() < checkAt && !over()) {
        await target.tick();
        await workload.churn().catch((err) => opts.log(`churn step failed (the server restarting?): ${err}`));
        if (await operator.ensureRunning()) opts.log(`operator exited; restarted as pid ${operator.pid}`);
        if (elapsed() >= nextFault) {
          const fault = SOAK_FAULTS[faultIndex++ % SOAK_FAULTS.length];
          faults[fault] = (faults[fault] ?? 0) + 1;
          opts.log(`${Math.round(elapsed() / 1000)} s: fault ${fault}`);
          await target.inject(fault);
          nextFault = elapsed() + opts.faultEveryMs;
        }
        await sleep(opts.churnEveryMs);
      }
      const sample = await checkAndSample(opts, target, workload, operator, check, elapsed, faults);
      samples.push(sample);
      await Deno.writeTextFile(opts.out, JSON.stringify(sample) + "\n", { append: true });
      opts.log(
        `check ${check} at ${
          Math.round(sample.elapsedMs / 1000)
        } s: lost ${sample.lost}, missed ${sample.missedEvents}` +
          `, settled in ${Math.round(sample.settleMs / 1000)} s, RSS ${Math.round(sample.rssBytes / 2 ** 20)} MiB` +
          `, heap ${Math.round((sample.heapUsedBytes ?? NaN) / 2 ** 20)} MiB, fds ${sample.fds}` +
          `, sockets ${sample.sockets}, watch restarts ${JSON.stringify(sample.watchRestarts)}` +
          (sample.notConverged ? `; not converged: ${sample.notConverged.join("; ")}` : ""),
      );
    }
  } finally {
    await operator.stop();
    await target.stop();
  }
  const ranMs = samples.at(-1)?.elapsedMs ?? 0;
  const summary = summarize(opts.target, opts.signal?.aborted ? ranMs : opts.durationMs, samples, opts.bounds);
  await Deno.writeTextFile(opts.out, JSON.stringify({ summary: true, ...summary }) + "\n", { append: true });
  return summary;
}

/** One check: probes, then polls until converged or the settle deadline; then the operator's figures. */
async function checkAndSample(
  opts: SoakOptions,
  target: SoakTarget,
  workload: Workload,
  operator: OperatorProcess,
  check: number,
  elapsed: () => number,
  faults: Record<string, number>,
): Promise<SoakSample> {
  const probes = await workload.probe().catch(() => [] as string[]);
  const began = performance.now();
  let result = await workload.check();
  while (result.notConverged.size > 0 && performance.now() - began < target.settleMs) {
    await target.tick();
    if (await operator.ensureRunning()) opts.log(`operator exited; restarted as pid ${operator.pid}`);
    await sleep(500);
    result = await workload.check().catch(() => result); // a read failed: poll again
  }
  const settleMs = performance.now() - began;
  const figures = await operator.figures();
  const notConverged = [...result.notConverged].slice(0, 10).map(([key, finding]) => `${key}: ${finding}`);
  return {
    time: new Date().toISOString(),
    elapsedMs: Math.round(elapsed()),
    check,
    objects: workload.counts(),
    lost: result.notConverged.size,
    missedEvents: probes.filter((key) => result.notConverged.has(key)).length,
    settleMs: Math.round(settleMs),
    ...(notConverged.length > 0 ? { notConverged } : {}),
    orphans: result.orphans,
    ...figures,
    changes: workload.changes,
    faults: { ...faults },
    operatorExits: operator.exits,
  };
}
