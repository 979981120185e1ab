/**
 * `--data-dir` persistence for the fake server: every committed change is appended synchronously (before the HTTP
 * answer) to `objects.log` as one line; a clean stop writes `snapshot.json` (atomically, via rename) and empties the
 * log. Start-up loads the snapshot and replays the log, so nothing acknowledged is lost. The directory is 0700 and its
 * files 0600: they hold every object, Secrets included.
 *
 * Both files hold each object as its stored JSON behind a short head of the fields the store indexes
 * ({@link StoredRecord.headJson}), so a restart parses the heads only and keeps the objects' text as read (100 000
 * ConfigMaps: ~0.3 s instead of ~1.5 s). Lines: snapshot `#kubeop-store 2 <rv>`, then per bucket `@<key as JSON>`
 * and per object `<head>\t<object>`; log `<rv>\t<type>\t<key as JSON>\t<head>\t<object>`. The earlier format (one
 * JSON document; log lines `{"rv","k","t","o"}`) is still read.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { ObjectStore, StoredEvent, StoreSnapshot } from "./object_storage.ts";
import { recordFromHead, recordOf, SharedStrings, type StoredRecord } from "./stored_record.ts";

const SNAPSHOT = "snapshot.json";
const LOG = "objects.log";
const SNAPSHOT_MAGIC = "#kubeop-store 2 ";
/** Files are read and decoded in pieces of about this size (cut at line ends): no string near V8's length limit. */
const PIECE_BYTES = 8 << 20;

/** A legacy log line. */
interface LegacyLogLine {
  rv: number;
  k: string;
  t: StoredEvent["type"];
  o: KubeObject;
}

/** Reads the persisted state of `dir` (undefined when there is none). A torn last line is ignored. */
export function loadSnapshot(dir: string): StoreSnapshot | undefined {
  const strings = new SharedStrings();
  const snapshotLines = readLines(`${dir}/${SNAPSHOT}`);
  const logLines = readLines(`${dir}/${LOG}`, { wholeOnly: true });
  if (!snapshotLines && !logLines?.some((l) => l.trim())) return undefined;
  const buckets = new Map<string, Map<string, StoredRecord>>();
  const bucketOf = (key: string) => {
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, bucket = new Map());
    return bucket;
  };
  const keyOf = (r: StoredRecord) => `${r.namespace}/${r.name}`;
  let rv = 1;
  if (snapshotLines) rv = readSnapshot(`${dir}/${SNAPSHOT}`, snapshotLines, bucketOf, strings);
  const keys = new Map<string, string>();
  for (const text of logLines ?? []) {
    if (!text.trim()) continue;
    const change = parseLogLine(text, strings, keys);
    if (!change) break; // a damaged line: everything before it was acknowledged
    rv = Math.max(rv, change.rv);
    const bucket = bucketOf(change.key);
    if (change.type === "DELETED") bucket.delete(keyOf(change.record));
    else bucket.set(keyOf(change.record), change.record);
  }
  const result: StoreSnapshot = { rv, buckets: {} };
  for (const [key, bucket] of buckets) result.buckets[key] = [...bucket.values()];
  return result;
}

/** Fills the buckets from a snapshot's lines; returns its resourceVersion. */
function readSnapshot(
  path: string,
  lines: string[],
  bucketOf: (key: string) => Map<string, StoredRecord>,
  strings: SharedStrings,
): number {
  if (!lines[0]?.startsWith(SNAPSHOT_MAGIC)) {
    // The earlier format: one JSON document.
    let legacy: { rv: number; buckets: Record<string, KubeObject[]> };
    try {
      legacy = JSON.parse(lines.join("\n"));
    } catch (err) {
      throw new Error(`reading ${path}: ${(err as Error).message}`);
    }
    for (const [key, objects] of Object.entries(legacy.buckets)) {
      const bucket = bucketOf(key);
      for (const o of objects) {
        bucket.set(`${o.metadata.namespace ?? ""}/${o.metadata.name}`, recordOf(key, o, strings));
      }
    }
    return legacy.rv;
  }
  const rv = Number(lines[0].slice(SNAPSHOT_MAGIC.length));
  let bucket: Map<string, StoredRecord> | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line === "") continue;
    if (line[0] === "@") {
      bucket = bucketOf(JSON.parse(line.slice(1)));
      continue;
    }
    const tab = line.indexOf("\t");
    const record = tab > 0 ? recordFromHead(line.slice(0, tab), line.slice(tab + 1), strings) : undefined;
    if (!record || !bucket) throw new Error(`reading ${path}: line ${i + 1} is not a stored object`);
    bucket.set(`${record.namespace}/${record.name}`, record);
  }
  if (!Number.isSafeInteger(rv)) throw new Error(`reading ${path}: no resourceVersion in its first line`);
  return rv;
}

/** One change read back from the log, or undefined when the line is damaged. */
function parseLogLine(
  text: string,
  strings: SharedStrings,
  keys: Map<string, string>,
): { rv: number; key: string; type: StoredEvent["type"]; record: StoredRecord } | undefined {
  if (text[0] === "{") {
    try {
      const line = JSON.parse(text) as LegacyLogLine;
      return { rv: line.rv, key: line.k, type: line.t, record: recordOf(line.k, line.o, strings) };
    } catch {
      return undefined;
    }
  }
  const t1 = text.indexOf("\t");
  const t2 = t1 < 0 ? -1 : text.indexOf("\t", t1 + 1);
  const t3 = t2 < 0 ? -1 : text.indexOf("\t", t2 + 1);
  const t4 = t3 < 0 ? -1 : text.indexOf("\t", t3 + 1);
  if (t4 < 0) return undefined;
  const rvText = text.slice(0, t1), type = text.slice(t1 + 1, t2), keyJson = text.slice(t2 + 1, t3);
  const head = text.slice(t3 + 1, t4), at = t4 + 1;
  // The few storage keys repeat on every line: each is parsed once.
  let key: unknown = keys.get(keyJson);
  if (key === undefined) {
    try {
      key = JSON.parse(keyJson);
    } catch {
      return undefined;
    }
    if (typeof key === "string") keys.set(keyJson, key);
  }
  const rv = Number(rvText);
  const record = recordFromHead(head, text.slice(at), strings);
  if (!record || typeof key !== "string" || !Number.isSafeInteger(rv)) return undefined;
  if (type !== "ADDED" && type !== "MODIFIED" && type !== "DELETED") return undefined;
  return { rv, key, type, record };
}

/**
 * The lines of a file (undefined when it does not exist). With `wholeOnly`, text after the last newline (a torn
 * append) is left out; without, it is the last line (the earlier snapshot has no final newline). Read into one reused
 * buffer of {@link PIECE_BYTES} (grown only for a longer line) and decoded up to its last newline: no buffer the size
 * of the file (reading a 144 MB log whole cost ~0.2 s of CPU more, mostly its fresh pages).
 */
function readLines(path: string, opts: { wholeOnly?: boolean } = {}): string[] | undefined {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`reading ${path}: ${(err as Error).message}`);
  }
  try {
    const decoder = new TextDecoder();
    const lines: string[] = [];
    let buf = new Uint8Array(PIECE_BYTES);
    let filled = 0;
    for (;;) {
      if (filled === buf.length) {
        const bigger = new Uint8Array(buf.length * 2);
        bigger.set(buf);
        buf = bigger;
      }
      const n = file.readSync(buf.subarray(filled));
      const eof = !n;
      if (n) filled += n;
      const end = eof ? filled : buf.lastIndexOf(0x0a, filled - 1) + 1;
      if (end > 0) {
        const piece = decoder.decode(buf.subarray(0, end));
        let at = 0;
        for (let nl = piece.indexOf("\n"); nl >= 0; nl = piece.indexOf("\n", at)) {
          lines.push(piece.slice(at, nl));
          at = nl + 1;
        }
        if (at < piece.length && !opts.wholeOnly) lines.push(piece.slice(at));
        buf.copyWithin(0, end, filled);
        filled -= end;
      }
      if (eof) return lines;
    }
  } catch (err) {
    throw new Error(`reading ${path}: ${(err as Error).message}`);
  } finally {
    file.close();
  }
}

/** Length of the part of `path` that ends with its last newline (0 when none, or no file). */
function wholeLinesLength(path: string): number {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
  try {
    let end = file.statSync().size;
    const buf = new Uint8Array(64 * 1024);
    while (end > 0) {
      const from = Math.max(0, end - buf.length);
      file.seekSync(from, Deno.SeekMode.Start);
      let got = 0;
      while (got < end - from) got += file.readSync(buf.subarray(got, end - from)) ?? end - from;
      const nl = buf.subarray(0, end - from).lastIndexOf(0x0a);
      if (nl >= 0) return from + nl + 1;
      end = from;
    }
    return 0;
  } finally {
    file.close();
  }
}

/** Appends commits of a store to the log of `dir`. */
export class Persistence {
  #dir: string;
  #file: Deno.FsFile;
  #encoder = new TextEncoder();
  #unsubscribe: () => void;
  #objects: ObjectStore;

  constructor(dir: string, objects: ObjectStore) {
    this.#dir = dir;
    this.#objects = objects;
    // Every object is here, Secrets included: owner-only, like the kubeconfig. A directory that exists keeps its mode
    // (it may be the user's own); the files are made owner-only either way.
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const log = `${dir}/${LOG}`;
    // A torn last line (a crash mid-write) is cut off: a line appended after it would be read as damaged too.
    const whole = wholeLinesLength(log);
    this.#file = Deno.openSync(log, { append: true, create: true, mode: 0o600 });
    if (this.#file.statSync().size > whole) this.#file.truncateSync(whole);
    Deno.chmodSync(log, 0o600);
    this.#unsubscribe = objects.onCommit((ev) => {
      const r = ev.record;
      const line = `${ev.rv}\t${ev.type}\t${JSON.stringify(ev.storageKey)}\t${r.headJson()}\t${r.json}\n`;
      const bytes = this.#encoder.encode(line);
      let written = 0;
      while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
    });
  }

  /** Writes the snapshot, empties the log and stops recording. */
  close(): void {
    this.#unsubscribe();
    const tmp = `${this.#dir}/${SNAPSHOT}.tmp`;
    const file = Deno.openSync(tmp, { write: true, create: true, truncate: true, mode: 0o600 });
    try {
      const out = new BufferedWriter(file);
      out.write(`${SNAPSHOT_MAGIC}${this.#objects.rv}\n`);
      for (const key of this.#objects.storageKeys()) {
        out.write(`@${JSON.stringify(key)}\n`);
        for (const r of this.#objects.iterateRecords(key)) out.write(`${r.headJson()}\t${r.json}\n`);
      }
      out.flush();
    } finally {
      file.close();
    }
    Deno.renameSync(tmp, `${this.#dir}/${SNAPSHOT}`);
    this.#file.close();
    Deno.writeTextFileSync(`${this.#dir}/${LOG}`, "", { mode: 0o600 });
  }

  /** Stops recording and deletes the persisted state. */
  discard(): void {
    this.#unsubscribe();
    this.#file.close();
    for (const f of [SNAPSHOT, LOG]) {
      try {
        Deno.removeSync(`${this.#dir}/${f}`);
      } catch { /* absent */ }
    }
  }
}

/** Text written to a file in pieces of ~1 MiB (one write per piece, not per line). */
class BufferedWriter {
  #file: Deno.FsFile;
  #parts: string[] = [];
  #size = 0;
  #encoder = new TextEncoder();

  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  write(text: string): void {
    this.#parts.push(text);
    this.#size += text.length;
    if (this.#size >= 1 << 20) this.flush();
  }

  flush(): void {
    if (this.#parts.length === 0) return;
    const bytes = this.#encoder.encode(this.#parts.join(""));
    this.#parts = [];
    this.#size = 0;
    let written = 0;
    while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
  }
}
