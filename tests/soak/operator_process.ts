/**
 * The operator under soak: `deno run main.ts run` as a child process (all four seed controllers, leader election on,
 * /metrics on a port of 127.0.0.1), its log appended to a file (not kept in the harness's memory over hours), and the
 * figures a sample takes from it: VmRSS from /proc/PID/status, the entries of /proc/PID/fd and the sockets among
 * them, the V8 heap from its own /metrics (prom-client's default collectors), and how many times a watch restarted
 * (kubeop_watch_restarts_total, by reason: the "watch for X restarting: <reason>" log lines counted).
 * @module
 */
import { CONTROLLER_NAMES } from "../../controllers/mod.ts";
import { freePort } from "../real/support_real.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** What one sample reads from the operator process. */
export interface ProcessFigures {
  rssBytes: number;
  heapUsedBytes?: number;
  fds: number;
  sockets: number;
  /** kubeop_watch_restarts_total summed by reason (timeouts, cuts, 410s, restarts); undefined: scrape failed. */
  watchRestarts?: Record<string, number>;
}

/** One running operator (restarted by {@link OperatorProcess.ensureRunning} when it exited). */
export class OperatorProcess {
  #child?: Deno.ChildProcess;
  #exited = false;
  #logDone: Promise<void> = Promise.resolve();
  /** Times the process exited on its own. */
  exits = 0;
  readonly metricsPort = freePort();

  /**
   * @param kubeconfigPath the operator's kubeconfig (through the target's fault proxies)
   * @param logPath where its stderr is appended
   */
  constructor(readonly kubeconfigPath: string, readonly logPath: string) {}

  /** The running process's pid. */
  get pid(): number {
    if (!this.#child) throw new Error("operator not started");
    return this.#child.pid;
  }

  /** Starts the process. */
  async start(): Promise<void> {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        MAIN,
        "run",
        "--kubeconfig",
        this.kubeconfigPath,
        "--controllers",
        CONTROLLER_NAMES.join(","),
        "--leader-elect",
        "--leader-election-namespace",
        "default",
        "--metrics-bind-address",
        `127.0.0.1:${this.metricsPort}`,
        "--health-probe-bind-address",
        "0",
        // The webhooks need their serving Secret in kubeop-system: not what a soak measures.
        "--webhook-bind-address",
        "0",
        "--log-format",
        "json",
      ],
      stdout: "null",
      stderr: "piped",
      env: { HOME: "/nonexistent", KUBECONFIG: "" },
    }).spawn();
    this.#child = child;
    this.#exited = false;
    child.status.then(() => this.#exited = true);
    const file = await Deno.open(this.logPath, { write: true, create: true, append: true });
    this.#logDone = child.stderr.pipeTo(file.writable).catch(() => {});
  }

  /** Whether the process has exited. */
  get exited(): boolean {
    return this.#exited;
  }

  /** Starts the process again when it exited (counted in {@link OperatorProcess.exits}); returns whether it did. */
  async ensureRunning(): Promise<boolean> {
    if (!this.#exited) return false;
    this.exits++;
    await this.#logDone;
    await this.start();
    return true;
  }

  /** RSS, heap, fds and sockets of the process now. */
  async figures(): Promise<ProcessFigures> {
    const pid = this.pid;
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const rssKiB = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN);
    let fds = 0;
    let sockets = 0;
    for await (const entry of Deno.readDir(`/proc/${pid}/fd`)) {
      fds++;
      try {
        if ((await Deno.readLink(`/proc/${pid}/fd/${entry.name}`)).startsWith("socket:")) sockets++;
      } catch {
        // closed meanwhile
      }
    }
    return { rssBytes: rssKiB * 1024, fds, sockets, ...await this.#scrape() };
  }

  /** The heap and the watch restarts from the operator's /metrics. */
  async #scrape(): Promise<Pick<ProcessFigures, "heapUsedBytes" | "watchRestarts">> {
    let text: string;
    try {
      const res = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`, { signal: AbortSignal.timeout(10_000) });
      text = await res.text();
    } catch {
      return {};
    }
    const heap = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text);
    const watchRestarts: Record<string, number> = {};
    for (const m of text.matchAll(/^kubeop_watch_restarts_total\{([^}]*)\} (\S+)$/gm)) {
      const reason = /reason="([^"]*)"/.exec(m[1])?.[1] ?? "unknown";
      watchRestarts[reason] = (watchRestarts[reason] ?? 0) + Number(m[2]);
    }
    return { heapUsedBytes: heap ? Number(heap[1]) : undefined, watchRestarts };
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; waits for the exit and the end of the log. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.#child;
    if (!child || this.#exited) return await this.#logDone;
    try {
      child.kill("SIGTERM");
    } catch {
      // exited meanwhile
    }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited meanwhile
      }
    }, graceMs);
    await child.status;
    clearTimeout(timer);
    await this.#logDone;
  }
}
