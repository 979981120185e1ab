/**
 * The fault matrix's scenario runner, common to its targets (`fake`: tests/faults/fake_target.ts, `real`:
 * tests/faults/real_target.ts): the MultiSecret operator runs in-process (a Manager, 4 workers, real HTTP and watches
 * through the target's fault proxies) while the harness churns MultiSecrets around the proxies (so faults hit only
 * the operator). Each scenario: create the objects
 * and let them converge; churn; inject the fault while churning; clear it; measure the time until the cluster is
 * in the desired state again (every MultiSecret's last change in both target namespaces' child Secrets, status at
 * the object's generation, no orphaned child). API calls are counted by the server (the operator's User-Agent) and
 * compared with a no-fault baseline run with the same seed.
 * @module
 */
import { KubeClient } from "../../runtime/client/client.ts";
import { Controller } from "../../runtime/controller/controller.ts";
import { parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { Manager } from "../../runtime/manager/manager.ts";
import { CoreTypes, type KubeObject, objectKey } from "../../runtime/types.ts";
import { CHILD_SELECTOR, ownerOfSecret, reconcileMultiSecret } from "../../controllers/multisecret/controller.ts";
import { type MultiSecret, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import type { Desired } from "./desired.ts";
import type { RowEvidence } from "./evidence.ts";
import { seeded } from "./leader_model.ts";

/** The faults, by id (issue 11). */
export const FAULT_IDS = [
  "restart",
  "restart-state-loss",
  "watch-cut-midframe",
  "watch-stall",
  "dead-connection",
  "gone-410-storm",
  "throttle-429",
  "error-500",
  "latency-50-2000ms",
  "conflict-409-storm",
  "crd-delete-recreate",
] as const;
/** One fault id. */
export type FaultId = typeof FAULT_IDS[number];

/** One row of tests/faults/results.jsonl (and .cache/faults.jsonl). */
export interface ScenarioResult {
  fault: FaultId | "none";
  target: "fake" | "real";
  /** MultiSecrets (each with a child Secret in two namespaces). */
  objects: number;
  /** Changes the harness made: creates, spec updates, re-applies. */
  events: number;
  /** Objects whose last change had not reached the cluster when the settle deadline passed. */
  lost: number;
  /** Orphaned child Secrets (their owner uid names no MultiSecret) at the end. */
  orphans: number;
  /** Times a reconcile of a key started while another reconcile of the same key ran. */
  duplicateConcurrent: number;
  /** Requests the operator sent (the server counted them). */
  apiCalls: number;
  baselineApiCalls: number;
  /** The baseline's events: a scenario that re-creates every object has more work to do (see {@link apiBudget}). */
  baselineEvents: number;
  /** From the fault's end until the desired state held (undefined: never, within the deadline). */
  recoverySeconds: number | null;
  /** Not measured here (one replica, no election): see the leader rows. */
  maxConcurrentLeaders: number | null;
  writesWhileNotLeader: number | null;
  /** ISO-8601. */
  time: string;
  /** Failed rows only: up to {@link NAMED_MAX} objects not converged, each with the check's finding and last error. */
  notConverged?: string[];
  /** Failed rows only: the directory holding the operator's log and requests (see {@link MatrixOptions.evidence}). */
  evidence?: string;
}

/** How many unconverged objects a failed row names. */
export const NAMED_MAX = 10;

/** Sizes of a run. */
export interface MatrixOptions {
  objects: number;
  /** How long a held fault lasts (and the churn during it), ms. */
  holdMs: number;
  /** Longest wait for convergence after the fault, ms. */
  settleMs: number;
  seed: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Where a failed row's evidence is kept (tests/faults/evidence.ts); without it a failed row only names objects. */
  evidence?: RowEvidence;
}

/** Quick (default tier) and full (`deno task faults -- --full`) sizes. */
export const QUICK: MatrixOptions = { objects: 200, holdMs: 3_000, settleMs: 120_000, seed: 11 };
export const FULL: MatrixOptions = { objects: 1_000, holdMs: 10_000, settleMs: 300_000, seed: 11 };

/** The operator's User-Agent: the API calls counted are the requests that carry it. */
export const OPERATOR_UA = "kubeop-faults-operator";

/**
 * The API-call budget of a row: 2× the baseline, scaled up by the harness's changes when the scenario made more than
 * the baseline did (state loss and CRD re-creation re-create every object: that work is not the fault's overhead).
 */
export function apiBudget(row: ScenarioResult): number {
  return 2 * row.baselineApiCalls * Math.max(1, row.events / row.baselineEvents);
}

/** Whether a row meets the matrix's checks (and what failed). */
export function rowFailures(row: ScenarioResult): string[] {
  const failures: string[] = [];
  if (row.lost !== 0) failures.push(`lost ${row.lost}`);
  if (row.orphans !== 0) failures.push(`orphans ${row.orphans}`);
  if (row.duplicateConcurrent !== 0) failures.push(`duplicateConcurrent ${row.duplicateConcurrent}`);
  if (row.recoverySeconds === null) failures.push("never recovered");
  if (row.apiCalls > apiBudget(row)) failures.push(`apiCalls ${row.apiCalls} > budget ${Math.round(apiBudget(row))}`);
  return failures;
}

/** Waits `ms` (pacing of churn and faults, never synchronisation). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Counts reconciles of one key that overlap (the queue must never let that happen); keeps each key's last error. */
export class ConcurrencyProbe {
  #active = new Set<string>();
  duplicates = 0;
  reconciles = 0;
  /** The last error a reconcile of each key threw (kept after later successes: it explains a failed row). */
  readonly lastError = new Map<string, string>();

  wrap<A extends { key: string }, R>(fn: (ctx: A) => Promise<R>): (ctx: A) => Promise<R> {
    return async (ctx) => {
      this.reconciles++;
      if (this.#active.has(ctx.key)) this.duplicates++;
      this.#active.add(ctx.key);
      try {
        return await fn(ctx);
      } catch (err) {
        this.lastError.set(ctx.key, `${new Date().toISOString()} ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      } finally {
        this.#active.delete(ctx.key);
      }
    };
  }
}

/** One scenario's cluster as the runner sees it; each target opens one per scenario. */
export interface TargetSession {
  target: "fake" | "real";
  desired: Desired;
  /** Kubeconfig YAML for the operator (its server is the fault proxy). */
  kubeconfig: string;
  /** Operator requests the target received so far (of `verbs`, else all). */
  calls(verbs?: string[]): number;
  /** The operator's requests so far, one line each (kept for a failed row). */
  requestLog(): string[];
  /** Starts `fault` while churning (see {@link FaultEnv}); returns what ends it. */
  inject(fault: FaultId | "none", env: FaultEnv): Promise<() => Promise<void>>;
  /** How often the runner checks for the desired state, ms. */
  checkEveryMs: number;
  /** Ends the scenario (and removes what it left on a shared cluster). */
  close(): Promise<void>;
}

/** What a fault injection may use. */
export interface FaultEnv {
  fault: FaultId;
  opts: MatrixOptions;
  desired: Desired;
  /** Changes half the objects over the hold time (the churn during the fault). */
  churn(): Promise<void>;
  /** Operator requests so far (of `verbs`, else all). */
  calls(verbs?: string[]): number;
}

/** Throws unless the fault touched the operator: a scenario whose fault never bit would measure nothing. */
export function bit(fault: FaultId, what: string, count: number): void {
  if (count <= 0) throw new Error(`${fault}: the fault never bit (${what} = 0)`);
}

/** Holds a request-level fault while churning; it must have met `verbs` requests of the operator. */
export async function held(env: FaultEnv, verbs: string[] | undefined, end: () => void): Promise<() => Promise<void>> {
  const before = env.calls(verbs);
  await env.churn();
  bit(env.fault, `operator ${verbs?.join("/") ?? "requests"} during the fault`, env.calls(verbs) - before);
  return () => Promise.resolve(end());
}

/** Runs `action` `times` times, evenly over the hold, while churning. */
export async function repeatedly(
  env: FaultEnv,
  times: number,
  action: () => unknown | Promise<unknown>,
): Promise<void> {
  const churning = env.churn();
  for (let i = 0; i < times; i++) {
    await sleep(env.opts.holdMs / times);
    await action();
  }
  await churning;
}

/** Nothing to end (the fault ended itself). */
export const nothing = (): Promise<void> => Promise.resolve();

/** Runs one scenario on a session `open` returns; `baseline` fills the row (undefined: this is the baseline). */
export async function runScenario(
  open: () => Promise<TargetSession>,
  fault: FaultId | "none",
  opts: MatrixOptions,
  baseline?: { apiCalls: number; events: number },
): Promise<ScenarioResult> {
  const rand = seeded(opts.seed);
  opts.evidence?.log.clear();
  const session = await open();
  const { desired } = session;
  const client = new KubeClient({ config: await parseKubeconfig(session.kubeconfig), userAgent: OPERATOR_UA });
  const probe = new ConcurrencyProbe();
  const manager = new Manager({ client, maxConcurrentReconciles: 4 });
  const allKeys = () => manager.informers.get<MultiSecret>(MultiSecretType).store.list().map(objectKey);
  manager.add(
    new Controller<MultiSecret>({
      name: "multisecret",
      for: MultiSecretType,
      reconcile: probe.wrap(reconcileMultiSecret),
    })
      .watches(CoreTypes.Secret, ownerOfSecret, { labelSelector: CHILD_SELECTOR })
      .watches(CoreTypes.Namespace, () => allKeys()) as unknown as Controller<KubeObject>,
  );
  const stop = new AbortController();
  let running: Promise<unknown> | undefined;
  const names = Array.from({ length: opts.objects }, (_, i) => `ms-${String(i).padStart(4, "0")}`);
  let step = 0;
  const churn = async (count: number, overMs: number) => {
    for (let i = 0; i < count; i++) {
      await desired.change(names[Math.floor(rand() * names.length)], String(++step));
      if (i % 10 === 9) await sleep((overMs * 10) / count);
    }
  };
  const converge = async (deadlineMs: number): Promise<number | null> => {
    const start = performance.now();
    while (performance.now() - start < deadlineMs) {
      const { lost, orphans } = await desired.check().catch(() => ({ lost: -1, orphans: -1 }));
      if (lost === 0 && orphans === 0) return (performance.now() - start) / 1000;
      await sleep(session.checkEveryMs);
    }
    return null;
  };
  try {
    await desired.install();
    running = manager.start(stop.signal).catch((err) => err);
    for (const name of names) await desired.create(name);
    if ((await converge(opts.settleMs)) === null) throw new Error(`${fault}: the initial objects never converged`);
    await churn(Math.floor(opts.objects / 4), 500);
    const env: FaultEnv = {
      fault: fault as FaultId,
      opts,
      desired,
      churn: () => churn(Math.floor(opts.objects / 2), opts.holdMs),
      calls: (verbs) => session.calls(verbs),
    };
    const clear = await session.inject(fault, env);
    await clear();
    const recoverySeconds = await converge(opts.settleMs);
    const { lost, orphans, notConverged } = await desired.check();
    const apiCalls = session.calls();
    const row: ScenarioResult = {
      fault,
      target: session.target,
      objects: opts.objects,
      events: desired.events,
      lost,
      orphans,
      duplicateConcurrent: probe.duplicates,
      apiCalls,
      baselineApiCalls: baseline?.apiCalls ?? apiCalls,
      baselineEvents: baseline?.events ?? desired.events,
      recoverySeconds: recoverySeconds === null ? null : Math.round(recoverySeconds * 100) / 100,
      maxConcurrentLeaders: null,
      writesWhileNotLeader: null,
      time: new Date().toISOString(),
    };
    if (rowFailures(row).length > 0) await explain(row, notConverged, probe, session, opts);
    return row;
  } finally {
    stop.abort();
    await running;
    client.close();
    await session.close();
  }
}

/** Fills a failed row's `notConverged` and, with {@link MatrixOptions.evidence}, keeps its evidence. */
async function explain(
  row: ScenarioResult,
  notConverged: Map<string, string>,
  probe: ConcurrencyProbe,
  session: TargetSession,
  opts: MatrixOptions,
): Promise<void> {
  const namespace = session.desired.scope.namespace;
  const lines = [...notConverged].map(([name, finding]) => {
    const err = probe.lastError.get(`${namespace}/${name}`);
    return `${name}: ${finding}; last reconcile error: ${err ?? "none"}`;
  });
  row.notConverged = lines.slice(0, NAMED_MAX);
  if (!opts.evidence) return;
  row.evidence = await opts.evidence.keep(row, { requests: session.requestLog(), notConverged: lines, row });
  opts.log?.(`${row.fault} (${row.target}) failed: evidence in ${row.evidence}`);
}

/** Runs the no-fault baseline, then each fault; calls `onRow` with each row as it is measured. */
export async function runMatrix(
  open: () => Promise<TargetSession>,
  faults: readonly FaultId[],
  opts: MatrixOptions,
  onRow: (row: ScenarioResult) => void | Promise<void>,
): Promise<ScenarioResult[]> {
  const rows: ScenarioResult[] = [];
  const baseline = await runScenario(open, "none", opts);
  opts.log?.(JSON.stringify(baseline));
  rows.push(baseline);
  await onRow(baseline);
  for (const fault of faults) {
    const row = await runScenario(open, fault, opts, baseline);
    opts.log?.(JSON.stringify(row));
    rows.push(row);
    await onRow(row);
  }
  return rows;
}
