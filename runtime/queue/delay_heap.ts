/**
 * Keys waiting for a time (client-go's delaying queue heap): a binary min-heap by due time with one entry per key,
 * where re-adding a key keeps the earliest due time.
 * @module
 */

interface Entry<P> {
  key: string;
  dueMs: number;
  payload: P;
  index: number;
}

/**
 * Min-heap of keys by due time; at most one entry per key, the earliest wins.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DelayHeap } from "./delay_heap.ts";
 * const heap = new DelayHeap<void>();
 * heap.push("a", 50, undefined);
 * heap.push("a", 10, undefined); // earlier: replaces
 * heap.push("a", 90, undefined); // later: ignored
 * assert.ok(heap.peekDueMs() === 10);
 * assert.ok(heap.popDue(10)?.key === "a" && heap.size === 0);
 * ```
 */
export class DelayHeap<P> {
  #heap: Entry<P>[] = [];
  #byKey = new Map<string, Entry<P>>();

  /** Number of keys waiting. */
  get size(): number {
    return this.#heap.length;
  }

  /** Whether `key` is waiting. */
  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  /** Schedules `key` at `dueMs`, unless it is already scheduled no later. Returns true when the heap changed. */
  push(key: string, dueMs: number, payload: P): boolean {
    const existing = this.#byKey.get(key);
    if (existing) {
      if (existing.dueMs <= dueMs) return false;
      existing.dueMs = dueMs;
      existing.payload = payload;
      this.#up(existing.index);
      return true;
    }
    const entry: Entry<P> = { key, dueMs, payload, index: this.#heap.length };
    this.#heap.push(entry);
    this.#byKey.set(key, entry);
    this.#up(entry.index);
    return true;
  }

  /** Due time of the earliest key, or undefined when empty. */
  peekDueMs(): number | undefined {
    return this.#heap[0]?.dueMs;
  }

  /** Removes and returns the earliest key if it is due at `nowMs`. */
  popDue(nowMs: number): { key: string; dueMs: number; payload: P } | undefined {
    const top = this.#heap[0];
    if (!top || top.dueMs > nowMs) return undefined;
    this.#removeAt(0);
    return { key: top.key, dueMs: top.dueMs, payload: top.payload };
  }

  /** Forgets `key` if scheduled. */
  delete(key: string): boolean {
    const entry = this.#byKey.get(key);
    if (!entry) return false;
    this.#removeAt(entry.index);
    return true;
  }

  /** Forgets everything. */
  clear(): void {
    this.#heap = [];
    this.#byKey.clear();
  }

  #removeAt(i: number): void {
    const heap = this.#heap;
    const removed = heap[i];
    this.#byKey.delete(removed.key);
    const last = heap.pop()!;
    if (i < heap.length) {
      heap[i] = last;
      last.index = i;
      this.#down(i);
      this.#up(last.index);
    }
  }

  #less(a: Entry<P>, b: Entry<P>): boolean {
    return a.dueMs < b.dueMs;
  }

  #swap(i: number, j: number): void {
    const heap = this.#heap;
    [heap[i], heap[j]] = [heap[j], heap[i]];
    heap[i].index = i;
    heap[j].index = j;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#heap[i], this.#heap[parent])) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < n && this.#less(this.#heap[l], this.#heap[min])) min = l;
      if (r < n && this.#less(this.#heap[r], this.#heap[min])) min = r;
      if (min === i) return;
      this.#swap(i, min);
      i = min;
    }
  }
}
