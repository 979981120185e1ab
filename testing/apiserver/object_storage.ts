/**
 * The fake server's storage: objects per bucket (`group/plural`) and namespace, one global monotonically increasing
 * resourceVersion, a bounded history of changes for watch resumption (older RVs are "compacted" → 410), and indexes
 * by uid and by owner uid for garbage collection. Objects are held as {@link StoredRecord}s (their JSON plus the
 * indexed fields) and parsed when read: what a reader gets is its own parse or one of a bounded number of recent
 * parses shared between readers, which nobody mutates.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";
import { recordOf, SharedStrings, StoredRecord } from "./stored_record.ts";
import { FirstFieldIndex } from "./field_index.ts";

/**
 * How many recent parses the store keeps: a commit's listeners and the next reads of an object just written share one.
 * Few, so they die young: 1 024 kept parses long enough to be promoted, and the old generation's churn grew RSS.
 */
const RECENT_PARSES = 64;

/** One committed change; `object` and `prev` are parsed from the records when read. */
export class StoredEvent {
  readonly #parse: (record: StoredRecord) => KubeObject;

  constructor(
    readonly rv: number,
    readonly storageKey: string,
    readonly type: "ADDED" | "MODIFIED" | "DELETED",
    /** The object after the change (for DELETED, its last state under this change's resourceVersion). */
    readonly record: StoredRecord,
    /** The object before the change (MODIFIED/DELETED). */
    readonly prevRecord: StoredRecord | undefined,
    parse: (record: StoredRecord) => KubeObject,
  ) {
    this.#parse = parse;
  }

  /** The object after the change (shared between readers: read it, never change it). */
  get object(): KubeObject {
    return this.#parse(this.record);
  }

  /** The object before the change (MODIFIED/DELETED). */
  get prev(): KubeObject | undefined {
    return this.prevRecord && this.#parse(this.prevRecord);
  }
}

/** Where an object lives. */
export interface ObjectRef {
  storageKey: string;
  namespace: string;
  name: string;
}

/** The store's content (persistence and restart with state): objects, or records read back from a snapshot. */
export interface StoreSnapshot {
  rv: number;
  buckets: Record<string, Array<KubeObject | StoredRecord>>;
}

type Bucket = Map<string, Map<string, StoredRecord>>;

/** The resourceVersion string for a counter value. */
export const rvString = (rv: number): string => String(rv);

/** Storage with RVs, history, and indexes. */
export class ObjectStore {
  #rv: number;
  #buckets = new Map<string, Bucket>();
  #uids = new Map<string, ObjectRef>();
  #dependents = new Map<string, Set<string>>();
  #firstField = new FirstFieldIndex();
  #history: StoredEvent[] = [];
  #historyStart = 0;
  #compactedRv: number;
  #window: number;
  #listeners: Array<(ev: StoredEvent) => void> = [];
  /** Sorted key caches, invalidated when names come or go (not on modification). */
  #sortedNamespaces = new Map<string, string[]>();
  /** Per namespace's name map (so no key string is built per write). */
  #sortedNames = new WeakMap<Map<string, StoredRecord>, string[]>();
  /** Per bucket, the resourceVersion of its last committed change. */
  #lastChangeRv = new Map<string, number>();
  #strings = new SharedStrings();
  /** Records whose `parsed` is set, oldest first (a ring: the next one to drop its parse is at #recentAt). */
  #recent: (StoredRecord | undefined)[] = new Array(RECENT_PARSES);
  #recentAt = 0;
  readonly #parseShared = (record: StoredRecord): KubeObject => this.#parsed(record);

  /**
   * @param opts.compactionWindow how many changes of history are kept for watches.
   * @param opts.startRv the resourceVersion an empty store starts at (default 1; ignored with a snapshot).
   */
  constructor(opts: { compactionWindow?: number; snapshot?: StoreSnapshot; startRv?: number } = {}) {
    this.#window = Math.max(1, opts.compactionWindow ?? 10_000);
    this.#rv = Math.max(1, opts.startRv ?? 1);
    if (opts.snapshot) {
      this.#rv = Math.max(1, opts.snapshot.rv);
      for (const [key, objects] of Object.entries(opts.snapshot.buckets)) {
        for (const obj of objects) {
          this.#insert(key, obj instanceof StoredRecord ? obj : recordOf(key, obj, this.#strings));
        }
      }
    }
    this.#compactedRv = this.#rv;
  }

  /** The current (latest committed) resourceVersion. */
  get rv(): number {
    return this.#rv;
  }

  /** Watches from an RV below this get 410 Expired. */
  get compactedRv(): number {
    return this.#compactedRv;
  }

  /** Subscribes to every committed change, in commit order. */
  onCommit(listener: (ev: StoredEvent) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** The stored object, or undefined (shared with other readers: read it, never change it). */
  get(storageKey: string, namespace: string, name: string): KubeObject | undefined {
    const record = this.record(storageKey, namespace, name);
    return record && this.#parsed(record);
  }

  /** The stored record (JSON and index fields), or undefined. */
  record(storageKey: string, namespace: string, name: string): StoredRecord | undefined {
    return this.#buckets.get(storageKey)?.get(namespace)?.get(name);
  }

  /**
   * Records whose kind's first selectable field is `value` (pods on node `value`), unordered; undefined when the
   * bucket holds records without field values.
   */
  withFirstField(storageKey: string, value: string): Iterable<StoredRecord> | undefined {
    return this.#firstField.get(storageKey, value);
  }

  /** The buckets that hold objects. */
  storageKeys(): string[] {
    return [...this.#buckets.keys()];
  }

  /** A parse of `record`, kept among the recent ones. */
  #parsed(record: StoredRecord): KubeObject {
    if (record.parsed) return record.parsed;
    const dropped = this.#recent[this.#recentAt];
    if (dropped) dropped.parsed = undefined;
    this.#recent[this.#recentAt] = record;
    this.#recentAt = (this.#recentAt + 1) % RECENT_PARSES;
    return record.parsed = record.parse();
  }

  /** Where the object with this uid lives. */
  byUid(uid: string): ObjectRef | undefined {
    return this.#uids.get(uid);
  }

  /** Objects whose ownerReferences name this uid. */
  dependentsOf(uid: string): ObjectRef[] {
    return [...(this.#dependents.get(uid) ?? [])].map(parseRef);
  }

  /** Objects of a bucket sorted by namespace then name; all namespaces when `namespace` is undefined. */
  list(storageKey: string, namespace?: string): KubeObject[] {
    return [...this.iterate(storageKey, namespace)];
  }

  /** How many objects a bucket holds (in one namespace, or in all). */
  count(storageKey: string, namespace?: string): number {
    const bucket = this.#buckets.get(storageKey);
    if (!bucket) return 0;
    if (namespace !== undefined) return bucket.get(namespace)?.size ?? 0;
    let n = 0;
    for (const names of bucket.values()) n += names.size;
    return n;
  }

  /**
   * How many objects come strictly after `after` in {@link iterate}'s order (all of them without `after`), as the
   * bucket is now or, with `atRv`, as it was then (the changes since undone). Binary search in the sorted names: costs
   * the number of namespaces plus the changes since `atRv`, not the objects.
   */
  countAfter(
    storageKey: string,
    namespace: string | undefined,
    after?: { ns: string; name: string },
    atRv?: number,
  ): number {
    let n = 0;
    const bucket = this.#buckets.get(storageKey);
    if (bucket) {
      for (const ns of namespace !== undefined ? [namespace] : this.#namespacesOf(storageKey, bucket)) {
        if (after && ns < after.ns) continue;
        const names = bucket.get(ns);
        if (!names) continue;
        n += after && ns === after.ns ? names.size - upperBound(this.#namesOf(names), after.name) : names.size;
      }
    }
    if (atRv === undefined || this.lastChangeRv(storageKey) <= atRv) return n;
    const changes = this.since(storageKey, atRv);
    if (typeof changes === "string") return n;
    const start = after ? `${after.ns}\u0000${after.name}` : undefined;
    const seen = new Set<string>();
    for (const ev of changes) {
      const key = positionKey(ev.record);
      if (seen.has(key)) continue;
      seen.add(key);
      if ((start !== undefined && key <= start) || !inNamespace(ev.record, namespace)) continue;
      // Undo the net effect: the first change's `prev` is the state then; the object present now is counted above.
      if (ev.type !== "ADDED" && ev.prevRecord) n++;
      if (this.record(storageKey, ev.record.namespace, ev.record.name)) n--;
    }
    return n;
  }

  /** The resourceVersion of the last change to a bucket (0 when it never changed since the store was created). */
  lastChangeRv(storageKey: string): number {
    return this.#lastChangeRv.get(storageKey) ?? 0;
  }

  #namespacesOf(storageKey: string, bucket: Bucket): string[] {
    let namespaces = this.#sortedNamespaces.get(storageKey);
    if (!namespaces) this.#sortedNamespaces.set(storageKey, namespaces = [...bucket.keys()].sort());
    return namespaces;
  }

  #namesOf(names: Map<string, StoredRecord>): string[] {
    let sorted = this.#sortedNames.get(names);
    if (!sorted) this.#sortedNames.set(names, sorted = [...names.keys()].sort());
    return sorted;
  }

  /** Objects in key order, starting strictly after `after` (a continue position) when given. */
  *iterate(storageKey: string, namespace?: string, after?: { ns: string; name: string }): Generator<KubeObject> {
    for (const record of this.iterateRecords(storageKey, namespace, after)) yield record.parsed ?? record.parse();
  }

  /** {@link iterate}'s records (nothing parsed). */
  *iterateRecords(
    storageKey: string,
    namespace?: string,
    after?: { ns: string; name: string },
  ): Generator<StoredRecord> {
    const bucket = this.#buckets.get(storageKey);
    if (!bucket) return;
    const namespaces = namespace !== undefined ? [namespace] : this.#namespacesOf(storageKey, bucket);
    for (const ns of namespaces) {
      if (after && ns < after.ns) continue;
      const names = bucket.get(ns);
      if (!names) continue;
      const sorted = this.#namesOf(names);
      const start = after && ns === after.ns ? upperBound(sorted, after.name) : 0;
      for (let i = start; i < sorted.length; i++) {
        const record = names.get(sorted[i]);
        if (record) yield record;
      }
    }
  }

  /**
   * Objects of a bucket as they were at `atRv` (in {@link iterate}'s order, after `after` when given): the current
   * objects merged with the earlier states of those changed since `atRv`, undone from the history; "expired" when the
   * history no longer reaches back. Costs the page plus the changes, not the bucket.
   */
  iterateAt(
    storageKey: string,
    namespace: string | undefined,
    atRv: number,
    after?: { ns: string; name: string },
  ): Iterable<KubeObject> | "expired" {
    const records = this.iterateRecordsAt(storageKey, namespace, atRv, after);
    if (records === "expired") return "expired";
    return (function* () {
      for (const record of records) yield record.parsed ?? record.parse();
    })();
  }

  /** {@link iterateAt}'s records (nothing parsed). */
  iterateRecordsAt(
    storageKey: string,
    namespace: string | undefined,
    atRv: number,
    after?: { ns: string; name: string },
  ): Iterable<StoredRecord> | "expired" {
    if (atRv < this.#compactedRv) return "expired";
    // Nothing changed in this bucket since atRv (the usual case between pages): the current state is the state then.
    if (this.lastChangeRv(storageKey) <= atRv) return this.iterateRecords(storageKey, namespace, after);
    const changes = this.since(storageKey, atRv);
    if (changes === "expired") return "expired";
    if (changes === "too-large" || changes.length === 0) return this.iterateRecords(storageKey, namespace, after);
    const then = new Map<string, StoredRecord | undefined>();
    for (const ev of changes) {
      const key = positionKey(ev.record);
      if (!then.has(key)) then.set(key, ev.type === "ADDED" ? undefined : ev.prevRecord);
    }
    const start = after ? `${after.ns}\u0000${after.name}` : undefined;
    const restored = [...then.entries()]
      .filter(([key, record]) =>
        record && inNamespace(record, namespace) &&
        (start === undefined || key > start)
      )
      .sort(([a], [b]) => compareStrings(a, b));
    const current = this.iterateRecords(storageKey, namespace, after);
    return (function* () {
      let i = 0;
      for (const record of current) {
        const key = positionKey(record);
        while (i < restored.length && restored[i][0] < key) yield restored[i++][1]!;
        if (!then.has(key)) yield record;
      }
      while (i < restored.length) yield restored[i++][1]!;
    })();
  }

  /** Number of objects in a namespace across every bucket (namespace deletion waits for 0). */
  countInNamespace(namespace: string): number {
    let n = 0;
    for (const bucket of this.#buckets.values()) n += bucket.get(namespace)?.size ?? 0;
    return n;
  }

  /** Every bucket that has objects in `namespace`. */
  bucketsWithNamespace(namespace: string): string[] {
    return [...this.#buckets.entries()].filter(([, b]) => (b.get(namespace)?.size ?? 0) > 0).map(([k]) => k);
  }

  /**
   * Stores a new or changed object under a fresh resourceVersion (set on `obj`) and notifies. What is stored is a
   * record of `obj` as JSON; `obj` stays the caller's.
   */
  put(storageKey: string, obj: KubeObject): StoredEvent {
    const { namespace = "", name = "" } = obj.metadata;
    const prev = this.record(storageKey, namespace, name);
    const rv = ++this.#rv;
    obj.metadata.resourceVersion = rvString(rv);
    const stored = recordOf(storageKey, obj, this.#strings);
    if (prev) this.#unindex(storageKey, prev);
    this.#insert(storageKey, stored);
    return this.#commit(
      new StoredEvent(rv, storageKey, prev ? "MODIFIED" : "ADDED", stored, prev, this.#parseShared),
    );
  }

  /** Removes an object; the DELETED event carries `final` (the last state) under a fresh resourceVersion. */
  remove(storageKey: string, namespace: string, name: string, final?: KubeObject): StoredEvent | undefined {
    const prev = this.record(storageKey, namespace, name);
    if (!prev) return undefined;
    const rv = ++this.#rv;
    this.#unindex(storageKey, prev);
    const names = this.#buckets.get(storageKey)!.get(namespace)!;
    names.delete(name);
    this.#sortedNames.delete(names);
    if (names.size === 0) {
      this.#buckets.get(storageKey)!.delete(namespace);
      this.#sortedNamespaces.delete(storageKey);
    }
    const object = final ?? prev.parse();
    object.metadata.resourceVersion = rvString(rv);
    const record = recordOf(storageKey, object, this.#strings);
    return this.#commit(new StoredEvent(rv, storageKey, "DELETED", record, prev, this.#parseShared));
  }

  /** Removes a whole bucket without events (a CRD's kind going away is announced by the CRD's own deletion). */
  dropBucket(storageKey: string): void {
    const bucket = this.#buckets.get(storageKey);
    if (!bucket) return;
    for (const names of bucket.values()) {
      for (const record of names.values()) this.#unindex(storageKey, record);
      this.#sortedNames.delete(names);
    }
    this.#buckets.delete(storageKey);
    this.#sortedNamespaces.delete(storageKey);
  }

  /**
   * Changes to `storageKey` after `sinceRv`, or "expired" when some were compacted away, or "too-large" when
   * `sinceRv` is ahead of the store.
   */
  since(storageKey: string, sinceRv: number): StoredEvent[] | "expired" | "too-large" {
    if (sinceRv > this.#rv) return "too-large";
    if (sinceRv < this.#compactedRv) return "expired";
    const out: StoredEvent[] = [];
    // Binary search for the first entry with rv > sinceRv.
    let lo = this.#historyStart;
    let hi = this.#history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#history[mid].rv <= sinceRv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.#history.length; i++) {
      const ev = this.#history[i];
      if (ev.storageKey === storageKey) out.push(ev);
    }
    return out;
  }

  /** Forgets all history: any watch from an RV older than now gets 410. */
  compact(): void {
    this.#history = [];
    this.#historyStart = 0;
    this.#compactedRv = this.#rv;
  }

  #insert(storageKey: string, record: StoredRecord): void {
    let bucket = this.#buckets.get(storageKey);
    if (!bucket) this.#buckets.set(storageKey, bucket = new Map());
    const ns = record.namespace;
    let names = bucket.get(ns);
    if (!names) {
      bucket.set(ns, names = new Map());
      this.#sortedNamespaces.delete(storageKey);
    }
    const name = record.name;
    if (!names.has(name)) this.#sortedNames.delete(names);
    names.set(name, record);
    this.#firstField.add(storageKey, record);
    if (record.uid) this.#uids.set(record.uid, { storageKey, namespace: ns, name });
    const owners = record.ownerUids;
    if (!owners) return;
    const ref = formatRef({ storageKey, namespace: ns, name });
    for (const owner of owners) {
      let set = this.#dependents.get(owner);
      if (!set) this.#dependents.set(owner, set = new Set());
      set.add(ref);
    }
  }

  #unindex(storageKey: string, record: StoredRecord): void {
    const ref = formatRef({ storageKey, namespace: record.namespace, name: record.name });
    this.#firstField.delete(storageKey, record);
    if (record.uid) this.#uids.delete(record.uid);
    for (const owner of record.ownerUids ?? []) {
      const set = this.#dependents.get(owner);
      set?.delete(ref);
      if (set?.size === 0) this.#dependents.delete(owner);
    }
  }

  #commit(ev: StoredEvent): StoredEvent {
    this.#lastChangeRv.set(ev.storageKey, ev.rv);
    this.#history.push(ev);
    if (this.#history.length - this.#historyStart > this.#window) {
      this.#compactedRv = this.#history[this.#historyStart].rv;
      this.#historyStart++;
      if (this.#historyStart > 1024 && this.#historyStart * 2 > this.#history.length) {
        this.#history = this.#history.slice(this.#historyStart);
        this.#historyStart = 0;
      }
    }
    for (const l of this.#listeners) l(ev);
    return ev;
  }
}

/** Index of the first entry of `sorted` greater than `name`. */
function upperBound(sorted: string[], name: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether a record is in `namespace` (every record when undefined). */
function inNamespace(record: StoredRecord, namespace: string | undefined): boolean {
  return namespace === undefined || record.namespace === namespace;
}

/** `namespace NUL name`: sorts like {@link ObjectStore.iterate} (namespace, then name). */
function positionKey(record: StoredRecord): string {
  return `${record.namespace}\u0000${record.name}`;
}

function formatRef(ref: ObjectRef): string {
  return `${ref.storageKey}\u0000${ref.namespace}\u0000${ref.name}`;
}

function parseRef(s: string): ObjectRef {
  const [storageKey, namespace, name] = s.split("\u0000");
  return { storageKey, namespace, name };
}
