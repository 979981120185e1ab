/**
 * What explains a failed fault-matrix row, kept by the harness itself: the in-process operator's log (debug), the
 * operator's requests as the target saw them, and per object why it was not converged (the check's finding and the
 * last error its reconcile threw). A passing row keeps nothing; a failing one is written under one directory whose
 * path the row carries (`evidence`).
 * @module
 */

/** Lines kept at least before the oldest are dropped (a row's operator log is a few thousand lines). */
const MAX_LINES = 200_000;

/** A bounded line buffer: at least the newest {@link MAX_LINES} lines. */
export class LineLog {
  #lines: string[] = [];
  #dropped = false;

  /** Appends one line (the oldest go, in batches, past twice the bound). */
  readonly push = (line: string): void => {
    this.#lines.push(line);
    if (this.#lines.length > 2 * MAX_LINES) {
      this.#lines = this.#lines.slice(-MAX_LINES);
      this.#dropped = true;
    }
  };

  /** Forgets every line. */
  clear(): void {
    this.#lines = [];
    this.#dropped = false;
  }

  /** The lines, oldest first, with a note when older ones were dropped. */
  text(): string {
    const head = this.#dropped ? ["(older lines dropped)"] : [];
    return [...head, ...this.#lines].join("\n") + "\n";
  }
}

/**
 * Where failed rows' evidence goes, and the operator's log for the row under way: pass {@link RowEvidence.log}'s
 * `push` as the logging `write` (configureLogging({ level: "debug", write })) and the evidence as
 * `MatrixOptions.evidence`.
 */
export class RowEvidence {
  /** The operator's log lines of the row under way (the runner clears it when a row starts). */
  readonly log = new LineLog();

  /** `dir`: the parent of each failed row's directory (created on demand). */
  constructor(readonly dir: string) {}

  /**
   * Writes a failed row's evidence to `<dir>/<target>-<fault>-<time>/`: operator.log, requests.log,
   * not-converged.txt and row.json. Returns the directory.
   */
  async keep(
    row: { target: string; fault: string; time: string },
    files: { requests: string[]; notConverged: string[]; row: unknown },
  ): Promise<string> {
    const dir = `${this.dir}/${row.target}-${row.fault}-${row.time.replace(/[:.]/g, "-")}`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(`${dir}/operator.log`, this.log.text());
    await Deno.writeTextFile(`${dir}/requests.log`, files.requests.join("\n") + "\n");
    await Deno.writeTextFile(`${dir}/not-converged.txt`, files.notConverged.join("\n") + "\n");
    await Deno.writeTextFile(`${dir}/row.json`, JSON.stringify(files.row, null, 2) + "\n");
    return dir;
  }
}
