/**
 * Splits a byte stream into lines (newline-delimited JSON, as a watch stream sends). Handles lines split across
 * any number of reads and multi-byte UTF-8 characters split between reads; guards against unbounded lines.
 * @module
 */

/** Raised when a line exceeds the configured maximum. */
export class LineTooLongError extends Error {
  /** Creates the error. */
  constructor(maxLineBytes: number) {
    super(`line longer than ${maxLineBytes} characters`);
    this.name = "LineTooLongError";
  }
}

/**
 * Feeds bytes, emits complete lines without the trailing newline (empty lines are skipped).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineSplitter } from "./json_lines.ts";
 * const lines: string[] = [];
 * const split = new LineSplitter((l) => lines.push(l));
 * split.push(new TextEncoder().encode('{"a":1}\n{"b"'));
 * split.push(new TextEncoder().encode(':2}\n'));
 * assert.ok(lines.length === 2 && lines[1] === '{"b":2}');
 * ```
 */
export class LineSplitter {
  readonly #decoder = new TextDecoder("utf-8", { fatal: false });
  readonly #onLine: (line: string) => void;
  readonly #maxLineChars: number;
  #partial = "";

  /**
   * Calls `onLine` for each complete line.
   * @param opts.maxLineChars longest accepted line (default 128 Mi characters).
   */
  constructor(onLine: (line: string) => void, opts: { maxLineChars?: number } = {}) {
    this.#onLine = onLine;
    this.#maxLineChars = opts.maxLineChars ?? 128 * 1024 * 1024;
  }

  /** Characters buffered from an unfinished line. */
  get pendingChars(): number {
    return this.#partial.length;
  }

  /** Decodes `bytes` and emits every line it completes. */
  push(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes, { stream: true });
    let start = 0;
    let nl = text.indexOf("\n");
    while (nl >= 0) {
      let line = start === 0 && this.#partial ? this.#partial + text.slice(0, nl) : text.slice(start, nl);
      if (start === 0) this.#partial = "";
      if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      if (line.length > 0) this.#onLine(line);
      start = nl + 1;
      nl = text.indexOf("\n", start);
    }
    if (start < text.length) {
      this.#partial = start === 0 ? this.#partial + text : text.slice(start);
      if (this.#partial.length > this.#maxLineChars) {
        this.#partial = "";
        throw new LineTooLongError(this.#maxLineChars);
      }
    }
  }

  /** Emits a final unterminated line, if any. */
  flush(): void {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = "";
    if (rest.trim().length > 0) this.#onLine(rest);
  }
}
