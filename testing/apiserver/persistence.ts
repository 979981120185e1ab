/**
 * `--data-dir` persistence for the fake server: every committed change is appended synchronously (before the HTTP
 * answer) to `objects.log` as one JSON line; a clean stop writes `snapshot.json` (atomically, via rename) and empties
 * the log. Start-up loads the snapshot and replays the log, so nothing acknowledged is lost. The directory is 0700 and
 * its files 0600: they hold every object, Secrets included.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { ObjectStore, StoredEvent, StoreSnapshot } from "./object_storage.ts";

const SNAPSHOT = "snapshot.json";
const LOG = "objects.log";

interface LogLine {
  rv: number;
  k: string;
  t: StoredEvent["type"];
  o: KubeObject;
}

/** Reads the persisted state of `dir` (undefined when there is none). Corrupt trailing lines are ignored. */
export function loadSnapshot(dir: string): StoreSnapshot | undefined {
  let snapshot: StoreSnapshot | undefined;
  try {
    snapshot = JSON.parse(Deno.readTextFileSync(`${dir}/${SNAPSHOT}`));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new Error(`reading ${dir}/${SNAPSHOT}: ${(err as Error).message}`);
    }
  }
  let log = "";
  try {
    log = Deno.readTextFileSync(`${dir}/${LOG}`);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (!snapshot && !log.trim()) return undefined;
  if (!log.trim()) return snapshot; // a clean stop: nothing to replay
  // Replay the log over the buckets it touches; the others stay the snapshot's arrays as they are.
  const buckets = new Map<string, Map<string, KubeObject>>();
  const bucketOf = (key: string) => {
    let bucket = buckets.get(key);
    if (!bucket) {
      const objects = snapshot?.buckets[key] ?? [];
      buckets.set(key, bucket = new Map(objects.map((o) => [`${o.metadata.namespace ?? ""}/${o.metadata.name}`, o])));
    }
    return bucket;
  };
  let rv = snapshot?.rv ?? 1;
  for (const text of log.split("\n")) {
    if (!text.trim()) continue;
    let line: LogLine;
    try {
      line = JSON.parse(text);
    } catch {
      break; // a torn last write: everything before it was acknowledged
    }
    rv = Math.max(rv, line.rv);
    const bucket = bucketOf(line.k);
    const id = `${line.o.metadata.namespace ?? ""}/${line.o.metadata.name}`;
    if (line.t === "DELETED") bucket.delete(id);
    else bucket.set(id, line.o);
  }
  const result: StoreSnapshot = { rv, buckets: { ...snapshot?.buckets } };
  for (const [key, bucket] of buckets) result.buckets[key] = [...bucket.values()];
  return result;
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
    this.#file = Deno.openSync(`${dir}/${LOG}`, { append: true, create: true, mode: 0o600 });
    Deno.chmodSync(`${dir}/${LOG}`, 0o600);
    this.#unsubscribe = objects.onCommit((ev) => {
      const line: LogLine = { rv: ev.rv, k: ev.storageKey, t: ev.type, o: ev.object };
      const bytes = this.#encoder.encode(JSON.stringify(line) + "\n");
      let written = 0;
      while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
    });
  }

  /** Writes the snapshot, empties the log and stops recording. */
  close(): void {
    this.#unsubscribe();
    const tmp = `${this.#dir}/${SNAPSHOT}.tmp`;
    Deno.writeTextFileSync(tmp, JSON.stringify(this.#objects.snapshot()), { mode: 0o600 });
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
