/**
 * The two Machine operators as processes, started with the same flags: kubeop as the bundle (dist/kubeop.js under
 * `deno run`, the way it ships here) and the controller-runtime peer built by bench/real/build_peer.sh. Both are
 * unthrottled unless `qps` is given, watch one namespace, run `maxConcurrentReconciles` workers and serve /readyz.
 * @module
 */
import { openInspector } from "./inspector.ts";

/** Which operator. */
export type OperatorKind = "kubeop" | "controller-runtime";

/** The User-Agent prefix of each operator's requests (how the audit log tells them apart). */
export const USER_AGENT_PREFIX: Record<OperatorKind, string> = {
  "kubeop": "kubeop/",
  "controller-runtime": "machine-go",
};

/** Where the artefacts are. */
export interface OperatorArtefacts {
  /** dist/kubeop.js */
  bundle: string;
  /** The directory bench/real/build_peer.sh printed (machine-go, rawwrite), or undefined when not built. */
  peerDir?: string;
}

/** How to start one replica. */
export interface OperatorOptions {
  /** Admin kubeconfig path. */
  kubeconfig: string;
  /** The one namespace it watches. */
  namespace: string;
  /** Workers of the machine controller (both sides). */
  maxConcurrentReconciles: number;
  /** Client-side QPS (absent: unthrottled on both sides). */
  qps?: number;
  /** Client-side burst with qps. */
  burst?: number;
  /** Lease name when electing a leader (Lease in `namespace`). */
  leaderElectionId?: string;
  /** Expose a forced-GC hook: kubeop's V8 inspector port, the peer's pprof port. */
  gcPort?: number;
  /** Where stderr goes. */
  logPath: string;
  /** kubeop only: a `--v8-flags=` value for `deno run`, after the shipped ones (bench/real/ab.ts tries V8 settings). */
  v8Flags?: string;
  /** Extra environment variables of the process (bench/real/ab.ts tries allocator settings with it). */
  env?: Record<string, string>;
  /** Also write stdout to `logPath` (V8's `--trace-gc` prints there; bench/real/footprint.ts). */
  stdoutToLog?: boolean;
  /** kubeop only: without the shipped V8 flags and environment ({@link shippedRuntime}), for before/after runs. */
  asIs?: boolean;
}

/** A running replica. */
export interface OperatorProcess {
  /** Which operator. */
  kind: OperatorKind;
  /** Process id (for /proc reads and signals). */
  pid: number;
  /** performance.now() when it was spawned. */
  startedAt: number;
  /** `http://127.0.0.1:<port>` of /readyz. */
  probeUrl: string;
  /** Exit status, once it exits. */
  status: Promise<Deno.CommandStatus>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * What the shipped kubeop runs with, applied to the bundle here too: the V8 flags `deno task compile:in-cluster` embeds
 * in the binary (deno.json) and the allocator setting of the image (Containerfile `ENV`). docs/performance.md has
 * what each saves.
 */
export function shippedRuntime(): { v8Flags?: string; env: Record<string, string> } {
  const tasks = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks as Record<string, string>;
  const v8Flags = /--v8-flags=(\S+)/.exec(tasks["compile:in-cluster"])?.[1];
  const env: Record<string, string> = {};
  for (const m of Deno.readTextFileSync(`${ROOT}Containerfile`).matchAll(/^ENV (MALLOC_\w+)=(\S+)$/gm)) {
    env[m[1]] = m[2];
  }
  return { v8Flags, env };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Spawns one replica of `kind`. */
export function startOperator(kind: OperatorKind, art: OperatorArtefacts, opts: OperatorOptions): OperatorProcess {
  const probePort = freePort();
  const common = [
    "--kubeconfig",
    opts.kubeconfig,
    "--namespace",
    opts.namespace,
    "--max-concurrent-reconciles",
    String(opts.maxConcurrentReconciles),
    "--metrics-bind-address",
    "0",
    "--health-probe-bind-address",
    `127.0.0.1:${probePort}`,
    ...(opts.qps ? ["--kube-api-qps", String(opts.qps), "--kube-api-burst", String(opts.burst ?? opts.qps)] : []),
    ...(opts.leaderElectionId
      ? ["--leader-elect", "--leader-election-id", opts.leaderElectionId, "--leader-election-namespace", opts.namespace]
      : []),
  ];
  const cpuProfDir = Deno.env.get("KUBEOP_BENCH_CPU_PROF"); // kubeop only: V8 CPU profiles, written on exit
  let cmd: string;
  let args: string[];
  const shipped = kind === "kubeop" && !opts.asIs ? shippedRuntime() : { env: {} };
  const v8Flags = [shipped.v8Flags, opts.v8Flags].filter(Boolean).join(",");
  if (kind === "kubeop") {
    cmd = Deno.execPath();
    args = [
      "run",
      "--allow-all",
      ...(opts.gcPort ? [`--inspect=127.0.0.1:${opts.gcPort}`] : []),
      ...(v8Flags ? [`--v8-flags=${v8Flags}`] : []),
      ...(cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : []),
      art.bundle,
      "run",
      "--controllers",
      "machine",
      "--log-level",
      "warning",
      ...common,
    ];
  } else {
    if (!art.peerDir) throw new Error("controller-runtime peer not built: run bench/real/build_peer.sh");
    cmd = `${art.peerDir}/machine-go`;
    args = [
      ...common,
      "--zap-log-level=error",
      ...(opts.gcPort ? ["--pprof-bind-address", `127.0.0.1:${opts.gcPort}`] : []),
    ];
  }
  const file = Deno.openSync(opts.logPath, { write: true, create: true, append: true });
  const child = new Deno.Command(cmd, {
    args,
    stdin: "null",
    stdout: opts.stdoutToLog ? "piped" : "null",
    stderr: "piped",
    env: { NO_COLOR: "1", ...shipped.env, ...opts.env },
  })
    .spawn();
  const startedAt = performance.now();
  if (opts.stdoutToLog) {
    const out = Deno.openSync(opts.logPath, { write: true, create: true, append: true });
    child.stdout.pipeTo(out.writable).catch(() => {});
  }
  child.stderr.pipeTo(file.writable).catch(() => {});
  const status = child.status;
  running.add(child);
  status.finally(() => running.delete(child));
  return {
    kind,
    pid: child.pid,
    startedAt,
    probeUrl: `http://127.0.0.1:${probePort}`,
    status,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      return await status;
    },
  };
}

const running = new Set<Deno.ChildProcess>();

/** SIGKILLs every replica still running (the runner's signal handler). */
export function killAll(): void {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }
}

/** Resolves with performance.now() when `op` answers /readyz 200; rejects when it exits or after `deadlineMs`. */
export async function waitReady(op: OperatorProcess, deadlineMs = 60_000): Promise<number> {
  let exited: Deno.CommandStatus | undefined;
  op.status.then((s) => exited = s);
  const deadline = performance.now() + deadlineMs;
  while (performance.now() < deadline) {
    if (exited) throw new Error(`${op.kind} exited with ${exited.code} before /readyz`);
    try {
      const res = await fetch(`${op.probeUrl}/readyz`);
      await res.body?.cancel();
      if (res.ok) return performance.now();
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 10)); // polling a subprocess's readiness, bounded by the deadline
  }
  throw new Error(`${op.kind} not ready within ${deadlineMs} ms`);
}

/** A memory figure of `pid` in bytes from /proc/<pid>/status: `VmRSS` (now) or `VmHWM` (peak). */
function statusBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Resident set size of `pid` in bytes (/proc/<pid>/status VmRSS). */
export function rssBytes(pid: number): number {
  return statusBytes(pid, "VmRSS");
}

/** Peak resident set size of `pid` in bytes (/proc/<pid>/status VmHWM). */
export function peakRssBytes(pid: number): number {
  return statusBytes(pid, "VmHWM");
}

/** User + system CPU seconds `pid` has used (/proc/<pid>/stat, clock ticks of 100 Hz). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Forces a full garbage collection in `op` and returns its heap in use afterwards (bytes): kubeop through the V8
 * inspector (HeapProfiler.collectGarbage, Runtime.getHeapUsage), the peer through pprof (`heap?gc=1` runs
 * runtime.GC; HeapAlloc from its debug text).
 */
export async function forceGc(op: OperatorProcess, gcPort: number): Promise<number> {
  if (op.kind === "controller-runtime") {
    const res = await fetch(`http://127.0.0.1:${gcPort}/debug/pprof/heap?gc=1&debug=1`);
    const text = await res.text();
    const m = /# HeapAlloc = (\d+)/.exec(text);
    return m ? Number(m[1]) : NaN;
  }
  const session = await openInspector(gcPort);
  try {
    await session.call("HeapProfiler.collectGarbage");
    await session.call("HeapProfiler.collectGarbage");
    const usage = await session.call("Runtime.getHeapUsage");
    return Number(usage.usedSize);
  } finally {
    session.close();
  }
}

/**
 * Resident bytes of `pid` by mapping kind (/proc/<pid>/smaps): `[heap]` (glibc's main arena), `[anon]` (anonymous
 * mappings: V8's heap pages, glibc's thread arenas, thread stacks), `file` (the binary and libraries).
 */
export function smapsSummary(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  let kind = "";
  for (const line of Deno.readTextFileSync(`/proc/${pid}/smaps`).split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1].trim();
      kind = name === "" ? "[anon]" : name.startsWith("[") ? name.replace(/:.*$/, "]") : "file";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] = (out[kind] ?? 0) + Number(rss[1]) * 1024;
  }
  return out;
}
