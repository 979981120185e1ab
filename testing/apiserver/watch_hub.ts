/**
 * Fan-out of committed changes to open watches, indexed by bucket and namespace so a change only visits the
 * watches that could want it (all-namespace watches of that bucket plus those of its namespace).
 * @module
 */
import type { ObjectStore, StoredEvent } from "./object_storage.ts";

/** A receiver of changes of one bucket (and optionally one namespace). */
export interface WatchSink {
  readonly storageKey: string;
  /** Undefined: every namespace. */
  readonly namespace?: string;
  deliver(ev: StoredEvent): void;
  /** Closes the stream as if the server dropped it. */
  drop(): void;
  /** Keeps the socket open but sends nothing more. */
  stall(): void;
  /** A description for fault filters: the request path and query. */
  readonly description: string;
}

const ALL = "\u0000*";

/** The registry of open watches. */
export class WatchHub {
  #byKey = new Map<string, Map<string, Set<WatchSink>>>();
  #count = 0;

  constructor(objects: ObjectStore) {
    objects.onCommit((ev) => this.publish(ev));
  }

  /** Open watches. */
  get size(): number {
    return this.#count;
  }

  /** Registers a sink; returns its removal. */
  add(sink: WatchSink): () => void {
    let byNs = this.#byKey.get(sink.storageKey);
    if (!byNs) this.#byKey.set(sink.storageKey, byNs = new Map());
    const nsKey = sink.namespace ?? ALL;
    let set = byNs.get(nsKey);
    if (!set) byNs.set(nsKey, set = new Set());
    set.add(sink);
    this.#count++;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set!.delete(sink);
      this.#count--;
      if (set!.size === 0) byNs!.delete(nsKey);
    };
  }

  /** Delivers one change to every interested sink. */
  publish(ev: StoredEvent): void {
    const byNs = this.#byKey.get(ev.storageKey);
    if (!byNs) return;
    const all = byNs.get(ALL);
    // Set iteration tolerates the current sink removing itself (a stream closing while delivering): no copy needed.
    if (all) { for (const sink of all) sink.deliver(ev); }
    const ns = ev.record.namespace;
    if (ns) {
      const set = byNs.get(ns);
      if (set) { for (const sink of set) sink.deliver(ev); }
    }
  }

  /** Every open sink (fault hooks). */
  sinks(): WatchSink[] {
    const out: WatchSink[] = [];
    for (const byNs of this.#byKey.values()) for (const set of byNs.values()) out.push(...set);
    return out;
  }
}
