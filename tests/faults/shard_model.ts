/**
 * An in-process model of shard safety: up to four replicas of {@link ShardRing} on one shared {@link VirtualClock},
 * each seeing it through its own {@link ReplicaClock} (tests/faults/leader_model.ts: own monotonic origin, SIGSTOP-like
 * pauses, crashes), contending for the bucket Leases of one {@link MemoryLeaseDirectory} over a network with random
 * latency. Each replica runs a simulated controller: at random moments it picks an object name (one at a time per
 * name, as the work queue does), takes the uid its own lagging cache shows for it, asks the gate for a ticket, and —
 * when it gets one — runs a reconcile of one to three writes spaced out in time, each checked against the ticket's
 * fence before it leaves; a write that passes reaches the "server" after a random transport delay and lands on the
 * name's current uid, unless the reconcile's uid precondition fails there (the name guard). Random joins, graceful
 * leaves, crashes and pauses move the buckets around; random deletes + re-creates give names new uids. The store's record of bucket Lease changes and
 * the write arrivals are replayed by tests/faults/shard_checker.ts.
 *
 * As for the leader fence, the model states the fence's assumption: check → arrival stays below
 * `leaseDuration − renewDeadline`; pauses anywhere else are unbounded.
 * @module
 */
import { bucketRanges } from "../../runtime/apimachinery/shard_selector.ts";
import { VirtualClock } from "../../runtime/clock.ts";
import type { LeaseLock } from "../../runtime/leader/lease_lock.ts";
import { seededRandom } from "../../runtime/random.ts";
import { type LeaseDirectory, MemoryLeaseDirectory } from "../../runtime/shard/shard_leases.ts";
import { ShardRing } from "../../runtime/shard/shard_ring.ts";
import { ReplicaClock } from "./leader_model.ts";
import { checkShardSafety, type ShardObservation, type ShardSafetyReport } from "./shard_checker.ts";

/** Timings of the model, in ms. */
export interface ShardModelTimings {
  leaseMs: number;
  renewDeadlineMs: number;
  retryMs: number;
  /** Upper bound of one network leg of a Lease call. */
  lockLatencyMs: number;
  /** Upper bound of check → arrival of a fenced write (must stay below lease − renew deadline). */
  writeTransitMs: number;
  /** Upper bound of the gap between two writes of one reconcile. */
  reconcileGapMs: number;
  /** Bound of a bucket's drain on handover. */
  drainTimeoutMs: number;
}

/** Options of {@link runShardModel}. */
export interface ShardModelOptions {
  seed: number;
  steps: number;
  buckets?: number;
  /** Object names (default 48). */
  objects?: number;
  maxReplicas?: number;
  timings?: Partial<ShardModelTimings>;
  /** The bug the bucket fence fixes, for the checker's self-test: write whenever the gate admitted, unfenced. */
  bypassFence?: boolean;
  /** The bug the name guard fixes: writes address the name only, without the dispatch uid as a precondition. */
  bypassNameGuard?: boolean;
  /** Receives the observations (debugging a violation). */
  trace?: (observations: readonly ShardObservation[]) => void;
}

/** What {@link runShardModel} measured, with the checker's verdict. */
export interface ShardModelResult extends ShardSafetyReport {
  steps: number;
  joins: number;
  leaves: number;
  crashes: number;
  pauses: number;
  reconciles: number;
  /** Writes the fence refused. */
  refused: number;
  /** Objects deleted and re-created under the same name (a new uid, usually in another bucket). */
  recreates: number;
  /** Writes the server refused because the object under that name had another uid than the reconcile's. */
  uidPreconditionFailed: number;
  /** Reconciles admitted for a bucket whose range the replica had not synced (must be 0). */
  admittedBeforeSync: number;
  /** After the faults stop and the ring settles: uids no live replica admits (must be 0). */
  unownedAtEnd: number;
  /** After settling: uids two live replicas admit (must be 0). */
  doublyOwnedAtEnd: number;
  /** After settling: buckets held, summed over live replicas (must equal the bucket count). */
  bucketsHeldAtEnd: number;
  /** Live replicas at the end. */
  liveAtEnd: number;
}

interface Replica {
  identity: string;
  clock: ReplicaClock;
  ring: ShardRing;
  stop: AbortController;
  done: Promise<void>;
  leaving: boolean;
  /** Buckets included in the last completed onBucketsChanged call. */
  synced: Set<number>;
  /** The replica's cache: name → uid, updated by watch events that arrive late (and not while it is paused). */
  view: Map<string, string>;
  /** Names being reconciled (the work queue's single flight per key). */
  inflightNames: Set<string>;
}

/**
 * Runs `steps` steps: each picks an event (join, graceful leave, crash, pause past the renew deadline, or nothing)
 * and lets up to 300 ms of virtual time pass. Then the faults stop, paused replicas resume, at least one replica
 * runs, and the ring gets ten lease durations to settle before ownership is checked.
 */
export async function runShardModel(opts: ShardModelOptions): Promise<ShardModelResult> {
  const t: ShardModelTimings = {
    leaseMs: 1_000,
    renewDeadlineMs: 600,
    retryMs: 200,
    lockLatencyMs: 30,
    writeTransitMs: 350,
    reconcileGapMs: 250,
    drainTimeoutMs: 300,
    ...opts.timings,
  };
  if (t.writeTransitMs >= t.leaseMs - t.renewDeadlineMs) {
    throw new RangeError("writeTransitMs must stay below leaseMs − renewDeadlineMs: the fence's stated assumption");
  }
  const buckets = opts.buckets ?? 8;
  // The server's objects: a name and its current uid; a re-create gives the name a new uid.
  const names = Array.from({ length: opts.objects ?? 48 }, (_, i) => `obj-${i}`);
  const serverUid = new Map(names.map((n) => [n, `${n}.0`]));
  const maxReplicas = opts.maxReplicas ?? 4;
  const rand = seededRandom(opts.seed);
  const base = new VirtualClock(Date.UTC(2026, 0, 1));
  const leases = new MemoryLeaseDirectory();
  const observations: ShardObservation[] = [];
  let seq = 0;
  leases.onWrite((name, record) => {
    const m = /-bucket-(\d+)$/.exec(name);
    if (!m) return;
    observations.push({
      kind: "lease",
      seq: seq++,
      at: base.nowMonotonic(),
      bucket: Number(m[1]),
      holder: record.spec.holderIdentity ?? "",
    });
  });
  const result = {
    steps: opts.steps,
    joins: 0,
    leaves: 0,
    crashes: 0,
    pauses: 0,
    reconciles: 0,
    refused: 0,
    recreates: 0,
    uidPreconditionFailed: 0,
    admittedBeforeSync: 0,
  };

  /** A network leg: delivered after random latency; the answer reaches the replica only when it runs. */
  const leg = () => base.sleep(Math.floor(rand() * t.lockLatencyMs));
  const call = <T>(clock: ReplicaClock, fn: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      leg().then(fn).then(
        (v) => leg().then(() => clock.gate(() => resolve(v))),
        (err) => leg().then(() => clock.gate(() => reject(err))),
      );
    });
  const directoryFor = (clock: ReplicaClock): LeaseDirectory => {
    const inner = leases.directory();
    return {
      lock: (name): LeaseLock => {
        const lock = inner.lock(name);
        return {
          get: () => call(clock, () => lock.get()),
          create: (spec) => call(clock, () => lock.create(spec)),
          update: (spec, rv) => call(clock, () => lock.update(spec, rv)),
          describe: () => lock.describe(),
        };
      },
      list: () => call(clock, () => inner.list()),
      remove: (name) => call(clock, () => inner.remove(name)),
      describe: () => inner.describe(),
    };
  };

  const bucketOfStart = new Map(bucketRanges(buckets).map((range, b) => [range.start, b]));
  const replicas: Replica[] = [];
  let incarnation = 0;
  const live = () => replicas.filter((r) => !r.clock.dead);

  const reconcileLoop = (r: Replica) => {
    const next = () =>
      r.clock.setTimer(10 + rand() * 60, () => {
        if (r.stop.signal.aborted) return;
        reconcile(r);
        next();
      });
    next();
  };
  const reconcile = (r: Replica) => {
    const name = names[Math.floor(rand() * names.length)];
    if (r.inflightNames.has(name)) return; // the queue's single flight per key
    // Dispatch decides the uid: the one this replica's cache shows for the name now (it may lag the server).
    const uid = r.view.get(name)!;
    const ticket = r.ring.gate.admit(uid);
    if (!ticket) return;
    r.inflightNames.add(name);
    result.reconciles++;
    if (!r.synced.has(ticket.bucket)) result.admittedBeforeSync++;
    const id = `${r.identity}/${result.reconciles}`;
    let writesLeft = 1 + Math.floor(rand() * 3);
    let onWire = 0;
    let finished = false;
    const finish = () => {
      if (finished || onWire > 0) return;
      finished = true;
      r.inflightNames.delete(name);
      ticket.done();
    };
    const write = () => {
      if (!opts.bypassFence) {
        try {
          ticket.fence.check({ verb: "update", resource: "things", name: uid });
        } catch {
          result.refused++;
          writesLeft = 0;
          return finish();
        }
      }
      onWire++;
      base.setTimer(rand() * t.writeTransitMs, () => {
        // The server applies a write by name to whatever uid the name has now — unless it carries the reconcile's
        // uid as a precondition (runtime/controller/write_path.ts `guardUid`), which fails once the name was re-created.
        const current = serverUid.get(name)!;
        if (!opts.bypassNameGuard && current !== uid) {
          result.uidPreconditionFailed++;
        } else {
          observations.push({
            kind: "write",
            seq: seq++,
            at: base.nowMonotonic(),
            uid: current,
            identity: r.identity,
            reconcile: id,
          });
        }
        // The answer comes back; the reconcile goes on (or ends) only when the replica runs.
        leg().then(() =>
          r.clock.gate(() => {
            onWire--;
            if (--writesLeft > 0) r.clock.setTimer(rand() * t.reconcileGapMs, write);
            else finish();
          })
        );
      });
    };
    write();
  };

  const join = () => {
    const clock = new ReplicaClock(base, { monoOffsetMs: Math.floor(rand() * 1e9) });
    const identity = `r${incarnation++}`;
    const stop = new AbortController();
    const r: Replica = {
      identity,
      clock,
      stop,
      leaving: false,
      synced: new Set(),
      view: new Map(serverUid),
      inflightNames: new Set(),
      done: Promise.resolve(),
      ring: undefined as unknown as ShardRing,
    };
    r.ring = new ShardRing({
      directory: directoryFor(clock),
      ring: "kubeop",
      buckets,
      identity,
      clock,
      random: seededRandom(opts.seed * 31 + incarnation),
      leaseSeconds: t.leaseMs / 1000,
      renewDeadlineSeconds: t.renewDeadlineMs / 1000,
      retryPeriodSeconds: t.retryMs / 1000,
      drainTimeoutMs: t.drainTimeoutMs,
      onBucketsChanged: (held) => {
        const now = new Set(held.map((h) => bucketOfStart.get(h.start)!));
        // The informers restart with the new selector and list: a short random delay on the replica's clock.
        return clock.sleep(rand() * 100).then(() => void (r.synced = now));
      },
    });
    replicas.push(r);
    r.done = r.ring.run(stop.signal);
    reconcileLoop(r);
    result.joins++;
  };

  join();
  join();
  for (let step = 0; step < opts.steps; step++) {
    const running = live().filter((r) => !r.clock.paused && !r.leaving);
    const event = rand();
    const pick = running[Math.floor(rand() * running.length)];
    if (event < 0.04 && live().length < maxReplicas) {
      join();
    } else if (pick && event < 0.07 && running.length > 1) {
      // SIGTERM: the ring hands every bucket over (drain, release), then the process exits.
      result.leaves++;
      pick.leaving = true;
      pick.stop.abort();
      pick.done.then(() => pick.clock.kill());
    } else if (pick && event < 0.09 && running.length > 1) {
      // SIGKILL: nothing of it runs again; its Leases expire.
      result.crashes++;
      pick.clock.kill();
      pick.stop.abort();
    } else if (event < 0.11) {
      // Delete and re-create under the same name: a new uid; each replica's cache learns it a little later.
      result.recreates++;
      const name = names[Math.floor(rand() * names.length)];
      const uid = `${name}.${result.recreates}`;
      serverUid.set(name, uid);
      for (const r of live()) base.setTimer(rand() * 200, () => r.clock.gate(() => r.view.set(name, uid)));
    } else if (pick && event < 0.15) {
      // SIGSTOP past the renew deadline (sometimes past the whole lease), then SIGCONT.
      result.pauses++;
      pick.clock.pause();
      const clock = pick.clock;
      base.setTimer(t.renewDeadlineMs * (0.3 + rand() * 2.5), () => clock.resume());
    }
    if (live().filter((r) => !r.leaving).length === 0) join();
    await base.advance(rand() * 300);
  }

  // Settle: every pause ends, nothing new happens, the ring rebalances.
  for (const r of replicas) r.clock.resume();
  if (live().filter((r) => !r.leaving).length === 0) join();
  await base.advance(t.leaseMs * 10);
  const owners = live().filter((r) => !r.leaving);
  let unownedAtEnd = 0;
  let doublyOwnedAtEnd = 0;
  for (const uid of serverUid.values()) {
    let n = 0;
    for (const r of owners) {
      const ticket = r.ring.gate.admit(uid);
      if (ticket) {
        n++;
        ticket.done();
      }
    }
    if (n === 0) unownedAtEnd++;
    if (n > 1) doublyOwnedAtEnd++;
  }
  const bucketsHeldAtEnd = owners.reduce((sum, r) => sum + r.ring.gate.active().length, 0);
  const liveAtEnd = owners.length;
  for (const r of replicas) r.stop.abort();
  await base.advance(t.leaseMs * 3);
  opts.trace?.(observations);
  return {
    ...result,
    unownedAtEnd,
    doublyOwnedAtEnd,
    bucketsHeldAtEnd,
    liveAtEnd,
    ...checkShardSafety(observations, buckets),
  };
}
