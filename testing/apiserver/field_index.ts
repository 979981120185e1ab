/**
 * The stored records of a kind by the value of its first selectable field (pods: `spec.nodeName`), as
 * kube-apiserver's watch cache indexes pods by node: a list of one node's pods reads that node's records instead of
 * testing every pod.
 * @module
 */
import type { StoredRecord } from "./stored_record.ts";

/** Records by storage key and first field value. */
export class FirstFieldIndex {
  #byKey = new Map<string, Map<string, Set<StoredRecord>>>();
  /** Per bucket, how many records have no field values (read from an older file): the index is then incomplete. */
  #without = new Map<string, number>();

  /** Indexes `record`. */
  add(storageKey: string, record: StoredRecord): void {
    const value = record.fields?.[0];
    if (value === undefined) {
      this.#without.set(storageKey, (this.#without.get(storageKey) ?? 0) + 1);
      return;
    }
    let byValue = this.#byKey.get(storageKey);
    if (!byValue) this.#byKey.set(storageKey, byValue = new Map());
    let set = byValue.get(value);
    if (!set) byValue.set(value, set = new Set());
    set.add(record);
  }

  /** Forgets `record`. */
  delete(storageKey: string, record: StoredRecord): void {
    const value = record.fields?.[0];
    if (value === undefined) this.#without.set(storageKey, (this.#without.get(storageKey) ?? 1) - 1);
    const byValue = value === undefined ? undefined : this.#byKey.get(storageKey);
    const set = byValue?.get(value!);
    set?.delete(record);
    if (set?.size === 0) byValue!.delete(value!);
  }

  /** The records whose first field is `value`, unordered; undefined when some records of the bucket lack values. */
  get(storageKey: string, value: string): Iterable<StoredRecord> | undefined {
    if (this.#without.get(storageKey)) return undefined;
    return this.#byKey.get(storageKey)?.get(value) ?? [];
  }
}
