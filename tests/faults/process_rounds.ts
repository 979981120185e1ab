/**
 * The machinery the real-process fault rounds share (tests/faults/leader_processes.ts, tests/faults/shard_processes.ts
 * on the fake API server, tests/faults/shard_processes_real.ts on a real kube-apiserver): a pool of `kubeop run`
 * replicas as child processes (spawn, signal, replace, learn their identities from their logs), a churn loop that
 * keeps the operators writing, SIGSTOP-then-SIGCONT after a quiet spell, and the round loop — top the pool up, wait
 * until the replicas have settled (or count a stuck round), then let the runner inflict its fault.
 *
 * What a run observes (fake server hooks or an audit log) and which checker replays it stay with each runner.
 * @module
 */
import { eventually, EventuallyTimeoutError } from "../../testing/eventually.ts";
import { multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { type DenoChild, type FakeEnv, spawnDeno } from "../support/fake_env.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Resolves after `ms`: paces the harness's own actions (never used to wait for the system under test). */
export const sleep = (ms: number): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One `kubeop run` child process. */
export interface Replica {
  proc: DenoChild;
  /** Learnt from its log ({@link ReplicaPool.identify}); undefined until it logged it. */
  identity?: string;
  exited: boolean;
}

/** A signal the harness sent, when (performance.now) and to whom: explains a violation. */
export interface SignalEvent {
  at: number;
  identity?: string;
  sig: Deno.Signal;
}

/** What every process-round run counts (each runner adds its own faults and checks). */
export interface ProcessRoundCounts {
  rounds: number;
  sigkills: number;
  sigstops: number;
  /** SIGSTOPs not sent because the replica never settled (a SIGKILL went instead): see ReplicaPool.stopAndResume. */
  stopsSkippedBusy?: number;
  /** Replicas started, the first ones and every replacement. */
  spawned: number;
  /** Rounds that did not settle (no leader, buckets without a live holder) within the deadline. */
  stuckRounds: number;
  /** Wall time of the whole run. */
  seconds: number;
}

/** Lease timings every replica of a run gets (`--leader-elect-*` flags). */
export interface LeaseTimings {
  durationMs: number;
  renewDeadlineMs: number;
  retryMs: number;
}

/**
 * The identity a replica logged on the first JSON line of stderr that contains `marker` (e.g. "attempting to
 * acquire", "joining shard ring"); zap-shaped (fields at the top) or logtape's JSON lines (under `properties`).
 */
export function identityFromLog(stderr: string, marker: string): string | undefined {
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{") || !line.includes(marker)) continue;
    try {
      const rec = JSON.parse(line);
      return rec.identity ?? rec.properties?.identity;
    } catch {
      // a partial line
    }
  }
  return undefined;
}

/** The replica identity a request's User-Agent names (`kubeop/<version> (<identity>)`); undefined for the harness. */
export function identityFromUserAgent(userAgent: string): string | undefined {
  return userAgent.match(/\(([^)]+)\)$/)?.[1];
}

/**
 * `kubeop run` arguments for one replica of `--controllers multisecret`: `extra` selects leader election or shards
 * (and anything else a run needs); probes and metrics bind to ephemeral ports and the webhook server is off, so
 * replicas share one host.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { kubeopRunArgs } from "./process_rounds.ts";
 * const lease = { durationMs: 4_000, renewDeadlineMs: 3_000, retryMs: 500 };
 * const args = kubeopRunArgs({
 *   kubeconfig: "/tmp/kubeconfig",
 *   leaseNamespace: "default",
 *   lease,
 *   gracefulShutdownSeconds: 1,
 *   extra: ["--leader-elect"],
 * });
 * assert.deepEqual(args.slice(0, 5), ["run", "--kubeconfig", "/tmp/kubeconfig", "--controllers", "multisecret"]);
 * assert.ok(args.includes("--leader-elect"));
 * ```
 */
export function kubeopRunArgs(opts: {
  kubeconfig: string;
  leaseNamespace: string;
  lease: LeaseTimings;
  gracefulShutdownSeconds: number;
  extra: string[];
}): string[] {
  return [
    "run",
    "--kubeconfig",
    opts.kubeconfig,
    "--controllers",
    "multisecret",
    ...opts.extra,
    "--leader-election-namespace",
    opts.leaseNamespace,
    "--leader-elect-lease-duration",
    `${opts.lease.durationMs}ms`,
    "--leader-elect-renew-deadline",
    `${opts.lease.renewDeadlineMs}ms`,
    "--leader-elect-retry-period",
    `${opts.lease.retryMs}ms`,
    "--health-probe-bind-address",
    "0",
    "--metrics-bind-address",
    "0",
    // Several replicas on one host would contend for :9443, and the webhook server needs its CA Secret in
    // kubeop-system (absent here): multisecret's webhook is off, as it is not what these rounds test.
    "--webhook-bind-address",
    "0",
    "--graceful-shutdown-timeout-seconds",
    String(opts.gracefulShutdownSeconds),
  ];
}

/** The replicas of one run: all it ever spawned (exited ones included, for their logs). */
export class ReplicaPool {
  readonly replicas: Replica[] = [];
  /** Every signal sent through {@link ReplicaPool.signal}. */
  readonly timeline: SignalEvent[] = [];
  spawned = 0;
  readonly #killed = new Set<Replica>();

  /**
   * @param args `main.ts` arguments of every replica ({@link kubeopRunArgs})
   * @param identityMarker what the log line naming a replica's identity contains ({@link identityFromLog})
   */
  constructor(private readonly args: string[], private readonly identityMarker: string) {}

  /** Starts one more replica. */
  spawn(): Replica {
    this.spawned++;
    const r: Replica = { proc: spawnDeno(MAIN, this.args), exited: false };
    r.proc.child.status.then(() => r.exited = true);
    this.replicas.push(r);
    return r;
  }

  /** Replicas that have not exited. */
  live(): Replica[] {
    return this.replicas.filter((r) => !r.exited);
  }

  /** Spawns replicas until `n` are live (replaces those that exited: an add). */
  fill(n: number): void {
    while (this.live().length < n) this.spawn();
  }

  /** Reads the identities replicas have logged since the last call. */
  identify(): void {
    for (const r of this.replicas) r.identity ??= identityFromLog(r.proc.stderr(), this.identityMarker);
  }

  /** Identities of the live replicas that logged one. */
  liveIdentities(): Set<string> {
    this.identify();
    return new Set(this.live().map((r) => r.identity).filter((id): id is string => id !== undefined));
  }

  /** The live replica with this identity. */
  byIdentity(identity: string): Replica | undefined {
    this.identify();
    return this.live().find((r) => r.identity === identity);
  }

  /** Sends `sig` (ignored once the replica exited) and records it in {@link ReplicaPool.timeline}. */
  signal(r: Replica, sig: Deno.Signal): void {
    this.timeline.push({ at: performance.now(), identity: r.identity, sig });
    if (sig === "SIGKILL") this.#killed.add(r);
    kill(r, sig);
  }

  /** Replicas that exited on their own (no SIGKILL from the pool): e.g. on a lost Lease. */
  exitedOnTheirOwn(): Replica[] {
    return this.replicas.filter((r) => r.exited && !this.#killed.has(r));
  }

  /**
   * SIGKILLs `r` and waits for its exit: until the exit is seen the pool still counts `r` live, so a round that
   * follows at once would pick the dead replica.
   */
  async killAndWait(r: Replica): Promise<void> {
    this.signal(r, "SIGKILL");
    await r.proc.child.status;
  }

  /**
   * SIGSTOPs `r` for `stoppedMs`, then SIGCONTs it, and says whether it did. With `quiet`, the stop waits (up to
   * 10 s, the churn paused) until no churn step is running, `settled` (when given) says the replicas have nothing left
   * to do, and `r` has sent nothing for `quietMs`: a stop between a passed fence check and that request's socket write
   * is the one window the fence documents (it holds only while such a pause stays below leaseDuration −
   * renewDeadline), and a replica with work in hand can be anywhere in it. One that never settles in that time (a
   * loaded machine, a backlog) is not stopped at all — the caller injects another fault — rather than stopped
   * mid-write. The churn resumes during the stop, so the resumed replica finds work waiting.
   */
  async stopAndResume(
    r: Replica,
    stoppedMs: number,
    quiet?: {
      churn: Churn;
      lastWriteAt: Map<string, number>;
      quietMs: number;
      settled?: () => Promise<boolean>;
    },
  ): Promise<boolean> {
    if (quiet) {
      quiet.churn.paused = true;
      const by = performance.now() + 10_000;
      // Quiet is checked again after `settled`, which may take a while: the stop must follow a quiet moment at once.
      const ready = async () =>
        !quiet.churn.stepping &&
        performance.now() - (quiet.lastWriteAt.get(r.identity!) ?? 0) >= quiet.quietMs &&
        (await quiet.settled?.() ?? true) &&
        performance.now() - (quiet.lastWriteAt.get(r.identity!) ?? 0) >= quiet.quietMs;
      let isReady = await ready();
      while (!isReady && performance.now() < by) {
        await sleep(10);
        isReady = await ready();
      }
      if (!isReady) {
        quiet.churn.paused = false;
        return false;
      }
    }
    this.signal(r, "SIGSTOP");
    if (quiet) quiet.churn.paused = false;
    await sleep(stoppedMs);
    this.signal(r, "SIGCONT");
    return true;
  }

  /** Resumes every replica, SIGKILLs those still running and reaps them all (not recorded in the timeline). */
  async close(): Promise<void> {
    for (const r of this.replicas) kill(r, "SIGCONT");
    await Promise.all(this.replicas.map((r) => r.proc.killAndReap()));
  }

  /** The stderr tails of replicas that logged an error and never their identity (they failed to start). */
  failedEarly(): string[] {
    return this.replicas.filter((r) => !r.identity && r.proc.stderr().includes("error"))
      .map((r) => r.proc.stderr().slice(-2000));
  }
}

function kill(r: Replica, sig: Deno.Signal): void {
  try {
    r.proc.child.kill(sig);
  } catch {
    // exited meanwhile
  }
}

/**
 * How long a replica must have sent no write before a SIGSTOP may hit it (with the churn paused and nothing left to
 * do): a request that passed the fence check is on the wire well within this (see {@link ReplicaPool.stopAndResume}).
 */
export const STOP_QUIET_MS = 150;

/** A running churn loop ({@link startChurn}). */
export interface Churn {
  /** While true the loop makes no changes. */
  paused: boolean;
  /** A step is running (pausing lets it finish). */
  readonly stepping: boolean;
  /** Ends the loop once its current step finished. */
  stop(): Promise<void>;
}

/** Calls `step(1)`, `step(2)`, … every `intervalMs` until stopped (skipping steps while paused). */
export function startChurn(step: (n: number) => void | Promise<void>, intervalMs: number): Churn {
  let running = true;
  let stepping = false;
  const churn: Churn = {
    paused: false,
    get stepping() {
      return stepping;
    },
    stop: async () => {
      running = false;
      await loop;
    },
  };
  const loop = (async () => {
    for (let n = 1; running; n++) {
      if (churn.paused) {
        await sleep(10);
        continue;
      }
      stepping = true;
      try {
        await step(n);
      } finally {
        stepping = false;
      }
      await sleep(intervalMs);
    }
  })();
  return churn;
}

/** Polls `probe` every `pollMs` (testing/eventually.ts) until it returns a value, or undefined after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  opts: { timeoutMs: number; pollMs: number },
): Promise<T | undefined> {
  try {
    return await eventually("the probe to answer", probe, { timeoutMs: opts.timeoutMs, intervalMs: opts.pollMs });
  } catch (err) {
    if (err instanceof EventuallyTimeoutError) return undefined;
    throw err;
  }
}

/**
 * The round loop: before each round, top the pool up to `size` live replicas and wait up to 60 s (polling every
 * `pollMs`) for `settle` to return a value — the leader, the bucket holders; then `round` inflicts its fault. Returns
 * how many rounds never settled (those are skipped, and `onStuck` hears of them).
 */
export async function runProcessRounds<T>(opts: {
  pool: ReplicaPool;
  size: number;
  rounds: number;
  pollMs: number;
  settle: () => T | undefined | Promise<T | undefined>;
  round: (round: number, settled: T) => Promise<void>;
  onStuck?: (round: number) => void;
}): Promise<number> {
  let stuckRounds = 0;
  for (let i = 0; i < opts.size; i++) opts.pool.spawn();
  for (let round = 0; round < opts.rounds; round++) {
    opts.pool.fill(opts.size);
    const settled = await waitFor(opts.settle, { timeoutMs: 60_000, pollMs: opts.pollMs }); // spawning under load is slow
    if (settled === undefined) {
      stuckRounds++;
      opts.onStuck?.(round);
      continue;
    }
    await opts.round(round, settled);
  }
  return stuckRounds;
}

const CRD_REF = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" };
const NS_REF = { group: "", version: "v1", plural: "namespaces" };

/**
 * The fake-server workload: MultiSecret's CRDs, namespace `ns` and `count` MultiSecrets `ms-0`… selecting it.
 * Returns each MultiSecret's uid by name.
 */
export function seedFakeMultiSecrets(server: FakeEnv["server"], ns: string, count: number): Map<string, string> {
  const uids = new Map<string, string>();
  for (const crd of multiSecretCrds()) server.store.create(CRD_REF, crd);
  server.store.create(NS_REF, { metadata: { name: ns } });
  for (let i = 0; i < count; i++) {
    const created = server.store.create(MultiSecretType, {
      apiVersion: `${MultiSecretType.group}/${MultiSecretType.version}`,
      kind: "MultiSecret",
      metadata: { name: `ms-${i}`, namespace: ns },
      spec: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } }, stringData: { v: "0" } },
    }, { namespace: ns }) as KubeObject;
    uids.set(`ms-${i}`, created.metadata.uid!);
  }
  return uids;
}

/** A churn step for {@link startChurn} on the fake server: sets a random MultiSecret's data to the step number. */
export function fakeMultiSecretChange(
  server: FakeEnv["server"],
  ns: string,
  count: number,
  rand: () => number,
): (step: number) => void {
  return (step) => {
    const name = `ms-${Math.floor(rand() * count)}`;
    const current = server.store.get(MultiSecretType, name, { namespace: ns });
    server.store.update(MultiSecretType, { ...current, spec: { ...current.spec, stringData: { v: String(step) } } }, {
      namespace: ns,
      name,
    });
  };
}
