/**
 * One stored object in the fake server's smallest form: its JSON text (a one-byte string: non-ASCII characters are
 * written as `\uXXXX` escapes, equal as JSON) plus the few parsed fields the store's indexes and list filters read
 * (namespace, name, uid, owner uids, labels). The text of each managedFields entry's `fieldsV1` is one string shared
 * by every record with the same set (the objects of a kind written by one manager), so a record holds its JSON in
 * pieces. A Pod of 3.4 KB as JSON takes ~6.4 KB of heap parsed and ~2.5 KB as a record. Sharing is of text only: every
 * reader gets its own parse, so no two parts of one object (or of two objects) are ever one value.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { kindFieldValues } from "./selectors.ts";

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

/** Strings that recur across records (namespaces, `fieldsV1` texts) kept once. */
export class SharedStrings {
  #names = new Map<string, string>();
  #fieldSets = new Map<string, string>();
  #values = new Map<string, string>();
  #labels = new Map<string, Readonly<Record<string, string>>>();
  /** Stands in for a `fieldsV1` value while an object is serialised (a nonce: no object's data holds it). */
  readonly fieldsMark = `\u0000kubeop-fieldsV1-${crypto.randomUUID()}`;

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

  /** The one copy of a `fieldsV1` text (fewer kept: a table that fills up starts over). */
  internFieldSet(s: string): string {
    return shared(this.#fieldSets, s, 4096);
  }
}

function shared(table: Map<string, string>, s: string, max: number): string {
  const known = table.get(s);
  if (known !== undefined) return known;
  if (table.size >= max) table.clear();
  table.set(s, s);
  return s;
}

const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * JSON text of `obj` in ASCII: characters past U+007F as `\uXXXX` (JSON.parse reads them back the same), so the text
 * is a one-byte string (half the memory of a two-byte one) in memory and in a snapshot read back.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asciiJson } from "./stored_record.ts";
 * assert.equal(asciiJson({ a: "é" }), '{"a":"\\u00e9"}');
 * assert.deepEqual(JSON.parse(asciiJson({ a: "é😀" })), { a: "é😀" });
 * ```
 */
export function asciiJson(obj: unknown): string {
  const text = JSON.stringify(obj);
  NON_ASCII.lastIndex = 0;
  if (!NON_ASCII.test(text)) return text;
  return text.replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
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
    textOf(obj, strings),
    strings.intern(meta.namespace ?? ""),
    meta.name ?? "",
    meta.uid || undefined,
    ownerUids?.length ? ownerUids : undefined,
    labels,
    kindFieldValues(storageKey, obj)?.map((v) => strings.internValue(v)),
  );
}

/** `obj` as ASCII JSON; with managedFields, in pieces whose `fieldsV1` texts are shared (see {@link SharedStrings}). */
function textOf(obj: KubeObject, strings: SharedStrings): string | string[] {
  const managed: unknown = obj.metadata?.managedFields;
  if (!Array.isArray(managed) || !managed.some((e) => e && typeof e === "object" && "fieldsV1" in e)) {
    return asciiJson(obj);
  }
  const sets: string[] = [];
  const marked = managed.map((e) => {
    if (!e || typeof e !== "object" || !("fieldsV1" in e) || e.fieldsV1 === undefined) return e;
    sets.push(strings.internFieldSet(asciiJson(e.fieldsV1)));
    return { ...e, fieldsV1: strings.fieldsMark };
  });
  const text = asciiJson({ ...obj, metadata: { ...obj.metadata, managedFields: marked } });
  const pieces = text.split(JSON.stringify(strings.fieldsMark));
  if (pieces.length !== sets.length + 1) return asciiJson(obj); // cannot happen: the mark is a nonce
  const out: string[] = [flatCopy(pieces[0])];
  for (let i = 0; i < sets.length; i++) out.push(sets[i], flatCopy(pieces[i + 1]));
  return out;
}

/**
 * A string of its own equal to `s`: V8 makes a long substring a view that keeps the whole string it was cut from
 * alive (here the text with the marks, which would double the record).
 */
function flatCopy(s: string): string {
  return s.length < 13 ? s : JSON.parse(JSON.stringify(s));
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
