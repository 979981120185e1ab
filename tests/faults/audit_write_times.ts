/**
 * The last write each replica sent, read from a growing kube-apiserver audit log: the real-server runs' stand-in for
 * the fake server's per-request hook, so that a SIGSTOP can wait for a quiet replica there too
 * (tests/faults/process_rounds.ts, ReplicaPool.stopAndResume).
 * @module
 */
import { auditMillis, completedAuditEvents } from "./shard_audit.ts";

/**
 * Tails an audit log and keeps, per replica identity (the `(identity)` at the end of its User-Agent), the
 * `performance.now()` time at which its latest non-Lease write completed. A write is seen only once complete, a few
 * milliseconds after it was sent: a quiet period measured from it is the longer for that.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AuditWriteTimes } from "./audit_write_times.ts";
 * const path = await Deno.makeTempFile();
 * const line = JSON.stringify({
 *   auditID: "a",
 *   stage: "ResponseComplete",
 *   verb: "patch",
 *   userAgent: "kubeop (replica-1)",
 *   objectRef: { resource: "multisecrets" },
 *   requestReceivedTimestamp: new Date().toISOString(),
 *   stageTimestamp: new Date().toISOString(),
 * });
 * await Deno.writeTextFile(path, line + "\n");
 * const times = new AuditWriteTimes(path);
 * await times.refresh();
 * assert.ok(times.lastWriteAt.has("replica-1"));
 * await Deno.remove(path);
 * ```
 */
export class AuditWriteTimes {
  /** Identity → `performance.now()` of its latest completed write. */
  readonly lastWriteAt = new Map<string, number>();
  #offset = 0;
  #partial = "";

  /** @param path the audit log (JSON lines) kube-apiserver appends to */
  constructor(readonly path: string) {}

  /** Reads what the log gained since the last call (from the start again when it was truncated or replaced). */
  async refresh(): Promise<void> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.path, { read: true });
    } catch {
      return; // not written yet
    }
    try {
      const size = (await file.stat()).size;
      if (size < this.#offset) {
        this.#offset = 0;
        this.#partial = "";
      }
      if (size === this.#offset) return;
      await file.seek(this.#offset, Deno.SeekMode.Start);
      const buf = new Uint8Array(size - this.#offset);
      let read = 0;
      while (read < buf.length) {
        const n = await file.read(buf.subarray(read));
        if (n === null) break;
        read += n;
      }
      this.#offset += read;
      const text = this.#partial + new TextDecoder().decode(buf.subarray(0, read));
      const cut = text.lastIndexOf("\n");
      this.#partial = text.slice(cut + 1);
      this.#record(text.slice(0, cut + 1));
    } finally {
      file.close();
    }
  }

  #record(lines: string): void {
    for (const ev of completedAuditEvents(lines)) {
      const identity = ev.userAgent?.match(/\(([^)]+)\)$/)?.[1];
      if (!identity || ev.objectRef?.resource === "leases") continue;
      const done = auditMillis(ev.stageTimestamp ?? ev.requestReceivedTimestamp) - performance.timeOrigin;
      if (done > (this.lastWriteAt.get(identity) ?? -Infinity)) this.lastWriteAt.set(identity, done);
    }
  }
}
