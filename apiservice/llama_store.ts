/**
 * The Llama store: every llama keyed `namespace/name`, one monotonically increasing resourceVersion counter, a
 * bounded history of changes so watches can resume from a resourceVersion (older → 410 Expired), and an optional
 * {@link LlamaPersistence} written before a change becomes visible. Mutations run one at a time; when the
 * persistence reports that someone else changed the backing object, the store reloads it and re-runs the change.
 * @module
 */
import { deepEqual } from "../runtime/apimachinery/equality.ts";
import { resourceId } from "../runtime/apimachinery/names.ts";
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { Clock } from "../runtime/clock.ts";
import type { WatchEventType } from "../runtime/types.ts";
import { FARM_API_VERSION, type Llama, LLAMAS, seedLlamas } from "./llama.ts";
import { copyJson } from "../runtime/apimachinery/json_copy.ts";

/** Everything persisted: the llamas and the counter, so resourceVersions survive a restart. */
export interface LlamaState {
  /** The counter: the last resourceVersion handed out. */
  resourceVersion: number;
  /** Every llama, each with its resourceVersion. */
  llamas: Llama[];
}

/** Raised by {@link LlamaPersistence.save} when the backing object changed since it was loaded. */
export class StorageConflictError extends Error {
  /** Creates the error; `message` says what changed and where. */
  constructor(message: string) {
    super(message);
    this.name = "StorageConflictError";
  }
}

/** Where the store keeps its state besides memory. */
export interface LlamaPersistence {
  /** The saved state, or undefined when nothing was saved yet. */
  load(): Promise<LlamaState | undefined>;
  /** Saves `state`; throws {@link StorageConflictError} on a lost optimistic-concurrency race. */
  save(state: LlamaState): Promise<void>;
  /** Optional: calls `onChange` when the saved state may have changed (another writer), until `signal` aborts. */
  watch?(onChange: () => void, signal: AbortSignal): Promise<void>;
}

/** One change, as delivered to watchers. */
export interface LlamaChange {
  /** Watch event type. */
  type: Exclude<WatchEventType, "BOOKMARK" | "ERROR">;
  /** The object after the change (before it, for DELETED). */
  object: Llama;
  /** For MODIFIED: the object before the change (watches use it to turn selector exits into DELETED). */
  previous?: Llama;
  /** The resourceVersion of this change. */
  resourceVersion: number;
}

/** Options of {@link LlamaStore}. */
export interface LlamaStoreOptions {
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
  /** Where state is saved besides memory (default: nowhere). */
  persistence?: LlamaPersistence;
  /** Changes kept for watch resumption (default 1000). */
  historySize?: number;
  /** Seed the tutorial's llamas when nothing was persisted (default true). */
  seed?: boolean;
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;
const MAX_CONFLICT_RETRIES = 5;

function call(verb: string, namespace?: string, name?: string) {
  return { verb, resource: resourceId(LLAMAS), namespace, name };
}

/** 404 for a llama. */
export function llamaNotFound(namespace: string, name: string, verb = "get"): ApiError {
  return new ApiError(
    failureStatus(404, "NotFound", `${resourceId(LLAMAS)} "${name}" not found`, {
      name,
      group: LLAMAS.group,
      kind: LLAMAS.plural,
    }),
    call(verb, namespace, name),
  );
}

function conflict(namespace: string, name: string, verb: string): ApiError {
  return new ApiError(
    failureStatus(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${resourceId(LLAMAS)} "${name}": the object has been modified; ` +
        "please apply your changes to the latest version and try again",
      { name, group: LLAMAS.group, kind: LLAMAS.plural },
    ),
    call(verb, namespace, name),
  );
}

/** A change requested by a caller: what the store should hold for one key afterwards. */
type Mutation = (current: Llama | undefined) => { next: Llama | undefined; type: LlamaChange["type"] };

/** Options of every write. */
export interface WriteOptions {
  /** dryRun=All: validate and answer as the write would, but persist nothing and tell no watcher. */
  dryRun?: boolean;
}

/**
 * In-memory llamas with resourceVersions, history and optional persistence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RealClock } from "../runtime/clock.ts";
 * import { LlamaStore } from "./llama_store.ts";
 * const store = await LlamaStore.open({ clock: new RealClock() });
 * assert.ok(store.get("default", "dolly").spec.weight === 31.4);
 * ```
 */
export class LlamaStore {
  readonly #clock: Clock;
  readonly #persistence?: LlamaPersistence;
  readonly #historySize: number;
  #items = new Map<string, Llama>();
  #rv = 0;
  /** Changes with resourceVersion > #compactedRV are in #history. */
  #compactedRV = 0;
  #history: LlamaChange[] = [];
  #listeners = new Set<(change: LlamaChange) => void>();
  #chain: Promise<unknown> = Promise.resolve();

  private constructor(opts: LlamaStoreOptions) {
    this.#clock = opts.clock;
    this.#persistence = opts.persistence;
    this.#historySize = opts.historySize ?? 1000;
  }

  /** Loads persisted state (or seeds the tutorial's llamas) and returns the ready store. */
  static async open(opts: LlamaStoreOptions): Promise<LlamaStore> {
    const store = new LlamaStore(opts);
    const saved = await opts.persistence?.load();
    if (saved) {
      store.#adopt(saved);
    } else {
      // Memory (or first start): begin at the wall clock so RVs from an earlier process are older and get 410.
      store.#rv = Math.max(1, Math.floor(opts.clock.now()));
      if (opts.seed ?? true) {
        for (const seed of seedLlamas()) {
          const llama = store.#stamp({ apiVersion: FARM_API_VERSION, kind: "Llama", ...copyJson(seed) });
          store.#items.set(key(llama.metadata.namespace!, llama.metadata.name!), llama);
        }
      }
      await opts.persistence?.save(store.#snapshot());
    }
    store.#compactedRV = store.#rv;
    return store;
  }

  /**
   * Follows the persistence's other writers until `signal` aborts: on each change the saved state is reloaded (in
   * turn with this store's own writes) and, when it is newer than memory, adopted and sent to watchers — so replicas
   * sharing a ConfigMap see each other's writes on their watches. Resolves at once without such a persistence.
   */
  async follow(signal: AbortSignal, onError: (err: unknown) => void = () => {}): Promise<void> {
    const persistence = this.#persistence;
    if (!persistence?.watch) return;
    const reload = async () => {
      const latest = await persistence.load();
      if (latest && latest.resourceVersion > this.#rv) this.#adopt(latest);
    };
    await persistence.watch(() => {
      if (signal.aborted) return;
      const next = this.#chain.then(reload, reload);
      this.#chain = next.catch(onError);
    }, signal);
  }

  /** The current resourceVersion (of the whole collection). */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** The oldest resourceVersion a watch can resume from. */
  get oldestResumableRV(): number {
    return this.#compactedRV;
  }

  /** One llama (a copy); throws 404. */
  get(namespace: string, name: string): Llama {
    const found = this.#items.get(key(namespace, name));
    if (!found) throw llamaNotFound(namespace, name);
    return copyJson(found);
  }

  /** Llamas of one namespace (or all), sorted by namespace/name, with the collection's resourceVersion. */
  list(namespace: string | undefined, match: (l: Llama) => boolean = () => true): { items: Llama[]; rv: string } {
    const items = [...this.#items.values()]
      .filter((l) => (namespace === undefined || l.metadata.namespace === namespace) && match(l))
      .sort((a, b) =>
        key(a.metadata.namespace!, a.metadata.name!) < key(b.metadata.namespace!, b.metadata.name!) ? -1 : 1
      )
      .map((l) => copyJson(l));
    return { items, rv: this.resourceVersion };
  }

  /**
   * The llamas of one namespace (or all) as they were at resourceVersion `rv` (a paged list's consistent snapshot),
   * rebuilt from the change history; 410 Expired when `rv` is older than the history reaches.
   */
  listAt(
    rv: number,
    namespace: string | undefined,
    match: (l: Llama) => boolean = () => true,
  ): Llama[] {
    if (rv < this.#compactedRV || rv > this.#rv) {
      throw new ApiError(
        failureStatus(
          410,
          "Expired",
          "The provided continue parameter is too old to display a consistent list result. You can start a new list " +
            "without the continue parameter.",
        ),
        call("list", namespace),
      );
    }
    const items = new Map(this.#items);
    for (const change of [...this.#history].reverse()) {
      if (change.resourceVersion <= rv) break;
      const k = key(change.object.metadata.namespace!, change.object.metadata.name!);
      if (change.type === "ADDED") items.delete(k);
      else if (change.type === "MODIFIED") items.set(k, change.previous ?? change.object);
      else items.set(k, change.object);
    }
    return [...items.values()]
      .filter((l) => (namespace === undefined || l.metadata.namespace === namespace) && match(l))
      .sort((a, b) =>
        key(a.metadata.namespace!, a.metadata.name!) < key(b.metadata.namespace!, b.metadata.name!) ? -1 : 1
      )
      .map((l) => copyJson(l));
  }

  /** Creates a llama (409 AlreadyExists when the name is taken). `obj` must be validated already. */
  create(obj: Llama, opts: WriteOptions = {}): Promise<Llama> {
    const { namespace, name } = obj.metadata as { namespace: string; name: string };
    return this.#mutate(namespace, name, (current) => {
      if (current) {
        throw new ApiError(
          failureStatus(409, "AlreadyExists", `${resourceId(LLAMAS)} "${name}" already exists`, {
            name,
            group: LLAMAS.group,
            kind: LLAMAS.plural,
          }),
          call("create", namespace, name),
        );
      }
      const next = copyJson(obj);
      next.metadata.uid = crypto.randomUUID();
      next.metadata.creationTimestamp = new Date(this.#clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
      next.metadata.generation = 1;
      delete next.metadata.deletionTimestamp;
      return { next, type: "ADDED" };
    }, opts);
  }

  /**
   * Replaces a llama through `change(current) → desired`; a desired metadata.resourceVersion must equal the current
   * one (409 Conflict otherwise). uid and creationTimestamp are kept; generation grows when the spec changes.
   */
  update(
    namespace: string,
    name: string,
    change: (current: Llama) => Llama,
    verb = "update",
    opts: WriteOptions = {},
  ): Promise<Llama> {
    return this.#mutate(namespace, name, (current) => {
      if (!current) throw llamaNotFound(namespace, name, verb);
      const desired = change(copyJson(current));
      const wanted = desired.metadata.resourceVersion;
      if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(namespace, name, verb);
      const next = copyJson(desired);
      next.metadata = {
        ...next.metadata,
        name,
        namespace,
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
        generation: (current.metadata.generation ?? 1) +
          (deepEqual(current.spec, next.spec) ? 0 : 1),
      };
      return { next, type: "MODIFIED" };
    }, opts);
  }

  /** Deletes a llama (404 when absent; 409 when a resourceVersion/uid precondition fails); returns its last state. */
  delete(
    namespace: string,
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
    opts: WriteOptions = {},
  ): Promise<Llama> {
    return this.#mutate(namespace, name, (current) => {
      if (!current) throw llamaNotFound(namespace, name, "delete");
      if (preconditions?.uid && preconditions.uid !== current.metadata.uid) throw conflict(namespace, name, "delete");
      if (preconditions?.resourceVersion && preconditions.resourceVersion !== current.metadata.resourceVersion) {
        throw conflict(namespace, name, "delete");
      }
      return { next: undefined, type: "DELETED" };
    }, opts);
  }

  /**
   * deletecollection: deletes every llama of `namespace` (or all) that `match`es, one at a time as kube-apiserver's
   * registry does (each a DELETED event); answers the deleted objects. One already gone meanwhile is skipped.
   */
  async deleteCollection(
    namespace: string | undefined,
    match: (l: Llama) => boolean,
    opts: WriteOptions = {},
  ): Promise<Llama[]> {
    const deleted: Llama[] = [];
    for (const l of this.list(namespace, match).items) {
      try {
        deleted.push(await this.delete(l.metadata.namespace!, l.metadata.name!, undefined, opts));
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    return deleted;
  }

  /**
   * Subscribes to changes after `sinceRV` (replayed from history first). Returns the replayed changes and an
   * unsubscribe function; throws 410 Expired when `sinceRV` is older than the history.
   */
  subscribe(
    sinceRV: number,
    listener: (change: LlamaChange) => void,
  ): { replay: LlamaChange[]; unsubscribe: () => void } {
    if (sinceRV < this.#compactedRV) {
      throw new ApiError(
        failureStatus(410, "Expired", `too old resource version: ${sinceRV} (${this.#compactedRV})`),
        call("watch"),
      );
    }
    const replay = this.#history.filter((c) => c.resourceVersion > sinceRV).map((c) => copyJson(c));
    this.#listeners.add(listener);
    return { replay, unsubscribe: () => this.#listeners.delete(listener) };
  }

  #stamp(llama: Llama): Llama {
    llama.metadata.resourceVersion = String(++this.#rv);
    llama.metadata.uid ??= crypto.randomUUID();
    llama.metadata.creationTimestamp ??= new Date(this.#clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    llama.metadata.generation ??= 1;
    return llama;
  }

  #snapshot(): LlamaState {
    return { resourceVersion: this.#rv, llamas: [...this.#items.values()] };
  }

  /** Replaces memory with a loaded state and tells watchers what changed. */
  #adopt(state: LlamaState): void {
    const before = this.#items;
    this.#items = new Map(state.llamas.map((l) => [key(l.metadata.namespace!, l.metadata.name!), l]));
    this.#rv = Math.max(this.#rv, state.resourceVersion);
    const changes: LlamaChange[] = [];
    for (const [k, l] of this.#items) {
      const old = before.get(k);
      const resourceVersion = Number(l.metadata.resourceVersion);
      if (!old) changes.push({ type: "ADDED", object: l, resourceVersion });
      else if (old.metadata.resourceVersion !== l.metadata.resourceVersion) {
        changes.push({ type: "MODIFIED", object: l, previous: old, resourceVersion });
      }
    }
    for (const [k, l] of before) {
      if (!this.#items.has(k)) changes.push({ type: "DELETED", object: l, resourceVersion: this.#rv });
    }
    // In resourceVersion order, as the writer made them (history and paging rely on it).
    for (const change of changes.sort((a, b) => a.resourceVersion - b.resourceVersion)) this.#emit(change);
  }

  #emit(change: LlamaChange): void {
    this.#history.push(change);
    while (this.#history.length > this.#historySize) this.#compactedRV = this.#history.shift()!.resourceVersion;
    for (const listener of [...this.#listeners]) listener(copyJson(change));
  }

  #mutate(namespace: string, name: string, mutation: Mutation, opts: WriteOptions): Promise<Llama> {
    const run = async (): Promise<Llama> => {
      for (let attempt = 0;; attempt++) {
        const k = key(namespace, name);
        const current = this.#items.get(k);
        const { next, type } = mutation(current ? copyJson(current) : undefined);
        const rvBefore = this.#rv;
        const nextRV = rvBefore + 1;
        const object = next ?? copyJson(current!);
        object.apiVersion = FARM_API_VERSION;
        object.kind = "Llama";
        if (opts.dryRun) {
          // As kube's dry-run storage: nothing is versioned; a new object has no resourceVersion, others keep theirs.
          if (type === "ADDED") delete object.metadata.resourceVersion;
          else object.metadata.resourceVersion = current!.metadata.resourceVersion;
          return copyJson(object);
        }
        object.metadata.resourceVersion = String(nextRV);
        const items = new Map(this.#items);
        if (next) items.set(k, object);
        else items.delete(k);
        if (this.#persistence) {
          try {
            await this.#persistence.save({ resourceVersion: nextRV, llamas: [...items.values()] });
          } catch (err) {
            if (!(err instanceof StorageConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw err;
            const latest = await this.#persistence.load();
            if (latest) this.#adopt(latest);
            continue;
          }
        }
        this.#rv = nextRV;
        this.#items = items;
        this.#emit({ type, object, previous: type === "MODIFIED" ? current : undefined, resourceVersion: nextRV });
        return copyJson(object);
      }
    };
    const result = this.#chain.then(run, run);
    this.#chain = result.catch(() => undefined);
    return result;
  }
}
