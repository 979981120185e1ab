/**
 * The fault matrix on target `fake`: the MultiSecret operator runs in-process (a Manager, 4 workers, real HTTP and
 * watches through a TCP fault proxy) against a fresh fake API server per scenario while the harness churns
 * MultiSecrets directly in the server's store (so faults hit only the operator). Each scenario: create the objects
 * and let them converge; churn; inject the fault while churning; clear it; measure the time until the cluster is
 * in the desired state again (every MultiSecret's last change in both target namespaces' child Secrets, status at
 * the object's generation, no orphaned child). API calls are counted by the server (the operator's User-Agent) and
 * compared with a no-fault baseline run with the same seed.
 * @module
 */
import { KubeClient } from "../../runtime/client.ts";
import { Controller } from "../../runtime/controller.ts";
import { parseKubeconfig } from "../../runtime/kubeconfig.ts";
import { Manager } from "../../runtime/manager.ts";
import { CoreTypes, objectKey } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "../../testing/unstructured.ts";
import {
  CHILD_SELECTOR,
  desiredChild,
  OWNER_UID,
  ownerOfSecret,
  reconcileMultiSecret,
} from "../../controllers/multisecret/controller.ts";
import { type MultiSecret, multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { type FakeApiServer, startFakeApiServer } from "../../testing/mod.ts";
import { seeded } from "./leader_model.ts";
import { FaultProxy } from "./tcp_proxy.ts";

/** The faults, by id (issue 11). */
export const FAULT_IDS = [
  "restart",
  "restart-state-loss",
  "watch-cut-midframe",
  "watch-stall",
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
}

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
}

/** Quick (default tier) and full (`deno task faults -- --full`) sizes. */
export const QUICK: MatrixOptions = { objects: 200, holdMs: 3_000, settleMs: 120_000, seed: 11 };
export const FULL: MatrixOptions = { objects: 1_000, holdMs: 10_000, settleMs: 300_000, seed: 11 };

const NS = "faults";
const TARGETS = ["faults-t1", "faults-t2"];
const TARGET_LABEL = { "kubeop-faults/target": "yes" };
const OPERATOR_UA = "kubeop-faults-operator";
const CRD_REF = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" };
const NS_REF = { group: "", version: "v1", plural: "namespaces" };

/** Bookmarks arm the client's read-idle deadline; short here so a stall comes after one. */
const BOOKMARK_INTERVAL_MS = 2_000;

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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Counts reconciles of one key that overlap (the queue must never let that happen). */
class ConcurrencyProbe {
  #active = new Set<string>();
  duplicates = 0;
  reconciles = 0;

  wrap<A extends { key: string }, R>(fn: (ctx: A) => Promise<R>): (ctx: A) => Promise<R> {
    return async (ctx) => {
      this.reconciles++;
      if (this.#active.has(ctx.key)) this.duplicates++;
      this.#active.add(ctx.key);
      try {
        return await fn(ctx);
      } finally {
        this.#active.delete(ctx.key);
      }
    };
  }
}

/** The harness's side: the desired MultiSecrets and direct store writes (no HTTP, so no fault touches them). */
class Desired {
  readonly values = new Map<string, string>();
  events = 0;
  constructor(readonly server: FakeApiServer) {}

  install(): void {
    for (const crd of multiSecretCrds()) this.server.store.create(CRD_REF, crd);
    for (const name of [NS, ...TARGETS]) {
      if (this.#exists(NS_REF, name)) continue;
      this.server.store.create(NS_REF, { metadata: { name, labels: name === NS ? {} : { ...TARGET_LABEL } } });
    }
  }

  #exists(ref: typeof NS_REF, name: string, namespace?: string): boolean {
    try {
      this.server.store.get(ref, name, { namespace });
      return true;
    } catch {
      return false;
    }
  }

  /** Creates (or re-creates) `name` with its desired value. */
  apply(name: string): void {
    this.events++;
    const body: KubeObject = {
      apiVersion: `${MultiSecretType.group}/${MultiSecretType.version}`,
      kind: "MultiSecret",
      metadata: { name, namespace: NS },
      spec: { namespaceSelector: { matchLabels: { ...TARGET_LABEL } }, stringData: { v: this.values.get(name)! } },
    };
    this.server.store.create(MultiSecretType, body, { namespace: NS });
  }

  create(name: string): void {
    this.values.set(name, "0");
    this.apply(name);
  }

  /** A spec change (the generation moves). Returns false when the object is absent (mid state loss). */
  change(name: string, value: string): boolean {
    let current: KubeObject;
    try {
      current = this.server.store.get(MultiSecretType, name, { namespace: NS });
    } catch {
      return false;
    }
    this.values.set(name, value);
    this.events++;
    const next = structuredClone(current);
    next.spec = { ...next.spec, stringData: { v: value } };
    this.server.store.update(MultiSecretType, next, { namespace: NS, name });
    return true;
  }

  /** Deletes `name` (its finalizer keeps it until the operator removed the children). */
  remove(name: string): void {
    try {
      this.server.store.delete(MultiSecretType, name, { namespace: NS });
      this.events++;
    } catch {
      // already gone
    }
  }

  /** Re-applies what the server lost: namespaces, CRD, every MultiSecret with its last desired value. */
  reapply(): void {
    this.install();
    for (const name of this.values.keys()) {
      if (!this.#exists(MultiSecretType, name, NS)) this.apply(name);
    }
  }

  /** Objects not (yet) in their desired state, and orphaned children. */
  check(): { lost: number; orphans: number } {
    const store = this.server.store;
    const uids = new Set<string>();
    const children = new Map<string, KubeObject>();
    for (const ns of TARGETS) {
      for (const s of store.list(CoreTypes.Secret, { namespace: ns }).items) children.set(objectKey(s), s);
    }
    let lost = 0;
    for (const [name, value] of this.values) {
      let ms: MultiSecret;
      try {
        ms = store.get(MultiSecretType, name, { namespace: NS }) as MultiSecret;
      } catch {
        lost++;
        continue;
      }
      uids.add(ms.metadata.uid!);
      const wantData = desiredChild({ ...ms, spec: { ...ms.spec, stringData: { v: value } } }, "x").data as Record<
        string,
        string
      >;
      const ok = ms.status?.observedGeneration === ms.metadata.generation &&
        TARGETS.every((ns) => {
          const child = children.get(`${ns}/${name}`);
          return child?.metadata.labels?.[OWNER_UID] === ms.metadata.uid && child?.data?.v === wantData.v;
        });
      if (!ok) lost++;
    }
    let orphans = 0;
    for (const child of children.values()) {
      const owner = child.metadata.labels?.[OWNER_UID];
      if (owner && !uids.has(owner)) orphans++;
    }
    return { lost, orphans };
  }
}

/** Runs one scenario on a fresh fake server; `baselineApiCalls` fills the row (0 for the baseline itself). */
export async function runFakeScenario(
  fault: FaultId | "none",
  opts: MatrixOptions,
  baseline?: { apiCalls: number; events: number },
): Promise<ScenarioResult> {
  const rand = seeded(opts.seed);
  const server = await startFakeApiServer({ bookmarkIntervalMs: BOOKMARK_INTERVAL_MS });
  const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: Number(new URL(server.url).port) } });
  let apiCalls = 0;
  const callsByVerb = new Map<string, number>();
  server.faults.onRequest((req) => {
    if (req.userAgent !== OPERATOR_UA) return;
    apiCalls++;
    callsByVerb.set(req.verb, (callsByVerb.get(req.verb) ?? 0) + 1);
  });
  const desired = new Desired(server);
  desired.install();
  const config = await parseKubeconfig(server.kubeconfig.replace(server.url, `http://127.0.0.1:${proxy.port}`));
  const client = new KubeClient({ config, userAgent: OPERATOR_UA });
  const probe = new ConcurrencyProbe();
  const manager = new Manager({ client, maxConcurrentReconciles: 4 });
  const allKeys = () => manager.informers.get<MultiSecret>(MultiSecretType).store.list().map(objectKey);
  manager.add(
    new Controller<MultiSecret>({
      name: "multisecret",
      for: MultiSecretType,
      reconcile: probe.wrap(reconcileMultiSecret),
    })
      .watchesOpts(CoreTypes.Secret, { labelSelector: CHILD_SELECTOR }, ownerOfSecret)
      .watches(CoreTypes.Namespace, () => allKeys()) as unknown as Controller<KubeObject>,
  );
  const stop = new AbortController();
  const running = manager.start(stop.signal).catch((err) => err);
  const names = Array.from({ length: opts.objects }, (_, i) => `ms-${String(i).padStart(4, "0")}`);
  let step = 0;
  const churn = async (count: number, overMs: number) => {
    for (let i = 0; i < count; i++) {
      desired.change(names[Math.floor(rand() * names.length)], String(++step));
      if (i % 10 === 9) await sleep((overMs * 10) / count);
    }
  };
  const converge = async (deadlineMs: number): Promise<number | null> => {
    const start = performance.now();
    while (performance.now() - start < deadlineMs) {
      const { lost, orphans } = desired.check();
      if (lost === 0 && orphans === 0) return (performance.now() - start) / 1000;
      await sleep(50);
    }
    return null;
  };
  try {
    for (const name of names) desired.create(name);
    if ((await converge(opts.settleMs)) === null) throw new Error(`${fault}: the initial objects never converged`);
    await churn(Math.floor(opts.objects / 4), 500);
    const calls = (verbs?: string[]) => verbs ? verbs.reduce((n, v) => n + (callsByVerb.get(v) ?? 0), 0) : apiCalls;
    const clear = await injectFault(fault, { server, proxy, desired, opts, churn, calls });
    await clear();
    const recoverySeconds = await converge(opts.settleMs);
    const { lost, orphans } = desired.check();
    return {
      fault,
      target: "fake",
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
  } finally {
    stop.abort();
    await running;
    client.close();
    await proxy.close();
    await server.stop();
  }
}

interface FaultEnv {
  server: FakeApiServer;
  proxy: FaultProxy;
  desired: Desired;
  opts: MatrixOptions;
  churn(count: number, overMs: number): Promise<void>;
  /** Operator requests received so far (of `verbs`, else all). */
  calls(verbs?: string[]): number;
}

/** Throws unless the fault touched the operator: a scenario whose fault never bit would measure nothing. */
function bit(fault: FaultId, what: string, count: number): void {
  if (count <= 0) throw new Error(`${fault}: the fault never bit (${what} = 0)`);
}

/** Starts `fault` while churning half the objects over the hold time; returns what ends it. */
async function injectFault(fault: FaultId | "none", env: FaultEnv): Promise<() => Promise<void>> {
  const { server, proxy, desired, opts } = env;
  const hold = opts.holdMs;
  const churn = () => env.churn(Math.floor(opts.objects / 2), hold);
  const nothing = () => Promise.resolve();
  /** Holds a request-level fault while churning; it must have met `verbs` requests of the operator. */
  const held = async (verbs: string[] | undefined, end: () => void) => {
    const before = env.calls(verbs);
    await churn();
    bit(fault as FaultId, `operator ${verbs?.join("/") ?? "requests"} during the fault`, env.calls(verbs) - before);
    return () => Promise.resolve(end());
  };
  const repeatedly = async (times: number, action: () => unknown | Promise<unknown>) => {
    const churning = churn();
    for (let i = 0; i < times; i++) {
      await sleep(hold / times);
      await action();
    }
    await churning;
  };
  switch (fault) {
    case "none":
      await churn();
      return nothing;
    case "restart":
      await repeatedly(1, () => server.restart({ keepState: true }));
      return nothing;
    case "restart-state-loss":
      await repeatedly(1, async () => {
        await server.restart({ keepState: false });
        desired.reapply(); // what a GitOps tool does after the cluster lost its state
      });
      return nothing;
    case "watch-cut-midframe":
      await repeatedly(3, () => proxy.cutMidFrame());
      bit(fault, "connections cut inside a server write", proxy.cuts);
      return nothing;
    case "watch-stall":
      await sleep(BOOKMARK_INTERVAL_MS * 1.5); // every watch has seen a bookmark: its idle deadline is armed
      bit(fault, "watches stalled", server.faults.stallWatches());
      await churn();
      return nothing; // stalled watches stay stalled: the client must notice on its own
    case "gone-410-storm": {
      let dropped = 0;
      await repeatedly(10, () => {
        server.faults.compact();
        dropped += server.faults.dropWatches();
      });
      bit(fault, "watches dropped after a compaction", dropped);
      return nothing;
    }
    case "throttle-429":
      server.faults.inject({ code: 429, retryAfterSeconds: 1 });
      return await held(undefined, () => server.faults.clear());
    case "error-500":
      server.faults.inject({ code: 500 });
      return await held(undefined, () => server.faults.clear());
    case "latency-50-2000ms":
      proxy.latency([50, 2_000]);
      return await held(undefined, () => proxy.latency(undefined));
    case "conflict-409-storm":
      for (const verb of ["update", "patch"]) server.faults.inject({ verb, code: 409 });
      return await held(["update", "patch"], () => server.faults.clear());
    case "crd-delete-recreate":
      await repeatedly(1, async () => {
        // kube-apiserver deletes a CRD's objects first, honouring their finalizers; the fake drops them at once,
        // so the harness deletes them first and waits, as kube would, then deletes the CRD and re-creates it.
        for (const name of desired.values.keys()) desired.remove(name);
        const start = performance.now();
        while (server.store.list(MultiSecretType, { namespace: NS }).items.length > 0) {
          if (performance.now() - start > opts.settleMs) throw new Error("crd-delete-recreate: finalizers never ran");
          await sleep(50);
        }
        const crd = multiSecretCrds()[0];
        server.store.delete(CRD_REF, crd.metadata.name!);
        await sleep(hold / 3);
        desired.reapply();
      });
      return nothing;
  }
}

/** Runs the no-fault baseline, then each fault; calls `onRow` with each row as it is measured. */
export async function runFakeMatrix(
  faults: readonly FaultId[],
  opts: MatrixOptions,
  onRow: (row: ScenarioResult) => void | Promise<void>,
): Promise<ScenarioResult[]> {
  const rows: ScenarioResult[] = [];
  const baseline = await runFakeScenario("none", opts);
  opts.log?.(JSON.stringify(baseline));
  rows.push(baseline);
  await onRow(baseline);
  for (const fault of faults) {
    const row = await runFakeScenario(fault, opts, baseline);
    opts.log?.(JSON.stringify(row));
    rows.push(row);
    await onRow(row);
  }
  return rows;
}
