/**
 * One stored object in the fake server's smallest form: its JSON text (a one-byte string: non-ASCII characters are
 * written as `\uXXXX` escapes, equal as JSON) plus the few parsed fields the store's indexes and list filters read
 * (namespace, name, uid, owner uids, labels, the kind's selectable fields). Parts of the JSON that other records hold
 * too are one shared string (shared_text.ts: `fieldsV1` sets, a workload's tolerations, containers, conditions...), so
 * a record may hold its JSON in pieces. A Pod of 3.4 KB as JSON takes ~6.4 KB of heap parsed and ~2 KB as a record.
 * Sharing is of text only: every reader gets its own parse, so no two parts of one object (or of two) are one value.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { kindFieldValues } from "./selectors.ts";
import { asciiJson } from "./ascii_json.ts";
import { SharedParts } from "./shared_text.ts";

/** A stored object: its JSON and what the indexes need without parsing it. */
export class StoredRecord {
  /** A recent parse of {@link json} (the store keeps a bounded number of these; see `ObjectStore`). */
  parsed: KubeObject | undefined = undefined;
  /** The JSON, or its pieces (shared `fieldsV1` texts between the others). */
  readonly #text: string | readonly string[];

  constructor(
    /** The object as JSON (ASCII only), or pieces that joined are that JSON. */
    text: string | readonly string[],
    readonly namespace: string,
    readonly name: string,
    readonly uid: string | undefined,
    /** `metadata.ownerReferences[].uid`, when there are owners. */
    readonly ownerUids: readonly string[] | undefined,
    /** `metadata.labels` (a copy), when there are labels. */
    readonly labels: Readonly<Record<string, string>> | undefined,
    /** The values of the kind's selectable fields (selectors.ts `kindFieldValues`), for kinds that have them. */
    readonly fields?: readonly string[],
  ) {
    this.#text = text;
  }

  /** The object as JSON, ASCII only. */
  get json(): string {
    const text = this.#text;
    return typeof text === "string" ? text : text.join("");
  }

  /** A fresh parse of the object. */
  parse(): KubeObject {
    return JSON.parse(this.json) as KubeObject;
  }

  /** The index fields of this record as JSON (a snapshot or log line's head: restarts parse only these). */
  headJson(): string {
    const { namespace, name, uid, ownerUids, labels, fields } = this;
    return asciiJson([namespace, name, uid ?? null, ownerUids ?? null, labels ?? null, ...(fields ? [fields] : [])]);
  }
}

/** Values that recur across records (namespaces, labels, field values, parts of the JSON) kept once. */
export class SharedStrings {
  #names = new Map<string, string>();
  #values = new Map<string, string>();
  #labels = new Map<string, Readonly<Record<string, string>>>();
  /** Parts of objects' JSON shared between records. */
  readonly parts: SharedParts = new SharedParts();

  /** The one copy of `s` (a namespace). */
  intern(s: string): string {
    return shared(this.#names, s, 65_536);
  }

  /**
   * A frozen copy of `labels`, one for every record with equal labels (the pods of one ReplicaSet): records' labels
   * are an index, never part of an object a reader gets.
   */
  internLabels(labels: Record<string, string>): Readonly<Record<string, string>> {
    const key = JSON.stringify(labels);
    const known = this.#labels.get(key);
    if (known) return known;
    if (this.#labels.size >= 4096) this.#labels.clear();
    const copy = Object.freeze({ ...labels });
    this.#labels.set(key, copy);
    return copy;
  }

  /** The one copy of a selectable field's value (few kept: a table that fills up starts over). */
  internValue(s: string): string {
    return shared(this.#values, s, 4096);
  }
}

function shared(table: Map<string, string>, s: string, max: number): string {
  const known = table.get(s);
  if (known !== undefined) return known;
  if (table.size >= max) table.clear();
  table.set(s, s);
  return s;
}

/**
 * A record of `obj`, stored under `storageKey` (which is not kept: the record holds its JSON and copies of the
 * indexed fields, its kind's selectable fields included).
 */
export function recordOf(storageKey: string, obj: KubeObject, strings: SharedStrings): StoredRecord {
  const meta = obj.metadata ?? {};
  const owners = meta.ownerReferences as { uid?: unknown }[] | undefined;
  const ownerUids = Array.isArray(owners) && owners.length
    ? owners.map((o) => String(o?.uid ?? "")).filter((u) => u !== "")
    : undefined;
  const labels = meta.labels && typeof meta.labels === "object" && Object.keys(meta.labels).length
    ? strings.internLabels(meta.labels as Record<string, string>)
    : undefined;
  return new StoredRecord(
    strings.parts.textOf(obj),
    strings.intern(meta.namespace ?? ""),
    meta.name ?? "",
    meta.uid || undefined,
    ownerUids?.length ? ownerUids : undefined,
    labels,
    kindFieldValues(storageKey, obj)?.map((v) => strings.internValue(v)),
  );
}

/** A record from a line's head (see {@link StoredRecord.headJson}) and its JSON text; undefined when malformed. */
export function recordFromHead(head: string, json: string, strings: SharedStrings): StoredRecord | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(head);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length < 5 || fields.length > 6) return undefined;
  const [ns, name, uid, owners, labels, values] = fields as [
    string,
    string,
    string | null,
    string[] | null,
    Record<string, string> | null,
    string[] | undefined,
  ];
  if (typeof ns !== "string" || typeof name !== "string") return undefined;
  return new StoredRecord(
    json,
    strings.intern(ns),
    name,
    uid ?? undefined,
    owners ?? undefined,
    labels ? strings.internLabels(labels) : undefined,
    values?.map((v) => strings.internValue(v)),
  );
}
