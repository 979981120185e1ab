/**
 * One stored object in the fake server's smallest form: its JSON text (a one-byte string: non-ASCII characters are
 * written as `\uXXXX` escapes, equal as JSON) plus the few parsed fields the store's indexes and list filters read
 * (namespace, name, uid, owner uids, labels). A Pod of 3.4 KB as JSON takes ~6.4 KB of heap parsed and ~3.7 KB as a
 * record; every reader gets its own parse, so no two parts of one object (or of two objects) are ever one value.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** A stored object: its JSON and what the indexes need without parsing it. */
export class StoredRecord {
  /** A recent parse of {@link json} (the store keeps a bounded number of these; see `ObjectStore`). */
  parsed: KubeObject | undefined = undefined;

  constructor(
    /** The object as JSON, ASCII only. */
    readonly json: string,
    readonly namespace: string,
    readonly name: string,
    readonly uid: string | undefined,
    /** `metadata.ownerReferences[].uid`, when there are owners. */
    readonly ownerUids: readonly string[] | undefined,
    /** `metadata.labels` (a copy), when there are labels. */
    readonly labels: Readonly<Record<string, string>> | undefined,
  ) {}

  /** A fresh parse of the object. */
  parse(): KubeObject {
    return JSON.parse(this.json) as KubeObject;
  }

  /** The index fields of this record as JSON (a snapshot or log line's head: restarts parse only these). */
  headJson(): string {
    return asciiJson([this.namespace, this.name, this.uid ?? null, this.ownerUids ?? null, this.labels ?? null]);
  }
}

/** Strings that recur across records (namespaces) kept once. */
export class SharedStrings {
  #table = new Map<string, string>();

  /** The one copy of `s`. */
  intern(s: string): string {
    const known = this.#table.get(s);
    if (known !== undefined) return known;
    if (this.#table.size >= 65_536) this.#table.clear();
    this.#table.set(s, s);
    return s;
  }
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

/** A record of `obj` (which is not kept: the record holds its JSON and copies of the indexed fields). */
export function recordOf(obj: KubeObject, strings: SharedStrings): StoredRecord {
  const meta = obj.metadata ?? {};
  const owners = meta.ownerReferences as { uid?: unknown }[] | undefined;
  const ownerUids = Array.isArray(owners) && owners.length
    ? owners.map((o) => String(o?.uid ?? "")).filter((u) => u !== "")
    : undefined;
  const labels = meta.labels && typeof meta.labels === "object" && Object.keys(meta.labels).length
    ? { ...(meta.labels as Record<string, string>) }
    : undefined;
  return new StoredRecord(
    asciiJson(obj),
    strings.intern(meta.namespace ?? ""),
    meta.name ?? "",
    meta.uid || undefined,
    ownerUids?.length ? ownerUids : undefined,
    labels,
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
  if (!Array.isArray(fields) || fields.length !== 5) return undefined;
  const [ns, name, uid, owners, labels] = fields as [string, string, string | null, string[] | null, null];
  if (typeof ns !== "string" || typeof name !== "string") return undefined;
  return new StoredRecord(json, strings.intern(ns), name, uid ?? undefined, owners ?? undefined, labels ?? undefined);
}
