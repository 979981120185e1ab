/**
 * Incremental decoder for HTTP/1.1 `Transfer-Encoding: chunked` bodies. Bytes arrive in arbitrary pieces (a
 * chunk-size line may be split anywhere); the decoder hands out each run of payload bytes as a zero-copy
 * sub-array of the input, so a watch stream is de-framed without copying.
 * @module
 */

const enum State {
  Size,
  SizeExt,
  SizeLF,
  Data,
  DataCR,
  DataLF,
  Trailer,
  TrailerLF,
  Done,
}

/** Raised on bytes that are not valid chunked encoding. */
export class ChunkedEncodingError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "ChunkedEncodingError";
  }
}

const MAX_SIZE_DIGITS = 15;

/**
 * Feeds raw body bytes, emits payload bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChunkedDecoder } from "./chunked_decoder.ts";
 * const dec = new ChunkedDecoder();
 * const parts: string[] = [];
 * const done = dec.push(new TextEncoder().encode("3\r\nabc\r\n0\r\n\r\n"), (b) => parts.push(new TextDecoder().decode(b)));
 * assert.ok(done && parts.join("") === "abc");
 * ```
 */
export class ChunkedDecoder {
  #state = State.Size;
  #remaining = 0;
  #digits = 0;
  #trailerLineLen = 0;
  #consumed = 0;

  /** True once the terminating zero-size chunk and trailers were read. */
  get done(): boolean {
    return this.#state === State.Done;
  }

  /**
   * Input bytes the last {@link push} consumed: `input.length`, or less when the body ended inside it (what follows
   * the body — on a kept-alive connection, bytes that must not be there).
   */
  get consumed(): number {
    return this.#consumed;
  }

  /**
   * Decodes `input`, calling `onData` with payload slices (views into `input`; copy them to keep them past the
   * call). Returns true when the body is complete; bytes after the end are ignored (see {@link consumed}).
   */
  push(input: Uint8Array, onData: (data: Uint8Array) => void): boolean {
    let i = 0;
    const n = input.length;
    this.#consumed = 0;
    while (i < n) {
      switch (this.#state) {
        case State.Size: {
          const c = input[i++];
          const v = hexValue(c);
          if (v >= 0) {
            if (++this.#digits > MAX_SIZE_DIGITS) throw new ChunkedEncodingError("chunk size too long");
            this.#remaining = this.#remaining * 16 + v;
          } else if (c === 0x0d) {
            this.#endSize();
            this.#state = State.SizeLF;
          } else if (c === 0x3b || c === 0x20 || c === 0x09) {
            this.#state = State.SizeExt;
          } else if (c === 0x0a) {
            this.#endSize();
            this.#afterSizeLine();
          } else {
            throw new ChunkedEncodingError(`invalid byte 0x${c.toString(16)} in chunk size`);
          }
          break;
        }
        case State.SizeExt: {
          const c = input[i++];
          if (c === 0x0d) {
            this.#endSize();
            this.#state = State.SizeLF;
          } else if (c === 0x0a) {
            this.#endSize();
            this.#afterSizeLine();
          }
          break;
        }
        case State.SizeLF: {
          if (input[i++] !== 0x0a) throw new ChunkedEncodingError("expected LF after chunk size");
          this.#afterSizeLine();
          break;
        }
        case State.Data: {
          const take = Math.min(this.#remaining, n - i);
          onData(input.subarray(i, i + take));
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = State.DataCR;
          break;
        }
        case State.DataCR: {
          const c = input[i++];
          if (c === 0x0d) this.#state = State.DataLF;
          else if (c === 0x0a) this.#state = State.Size;
          else throw new ChunkedEncodingError("expected CRLF after chunk data");
          break;
        }
        case State.DataLF: {
          if (input[i++] !== 0x0a) throw new ChunkedEncodingError("expected LF after chunk data");
          this.#state = State.Size;
          break;
        }
        case State.Trailer: {
          const c = input[i++];
          if (c === 0x0d) this.#state = State.TrailerLF;
          else if (c === 0x0a) this.#endTrailerLine();
          else this.#trailerLineLen++;
          break;
        }
        case State.TrailerLF: {
          if (input[i++] !== 0x0a) throw new ChunkedEncodingError("expected LF in trailer");
          this.#endTrailerLine();
          break;
        }
        case State.Done:
          this.#consumed = i;
          return true;
      }
    }
    this.#consumed = n;
    return this.#state === State.Done;
  }

  #endSize(): void {
    if (this.#digits === 0) throw new ChunkedEncodingError("missing chunk size");
  }

  #afterSizeLine(): void {
    this.#digits = 0;
    if (this.#remaining === 0) {
      this.#state = State.Trailer;
      this.#trailerLineLen = 0;
    } else {
      this.#state = State.Data;
    }
  }

  #endTrailerLine(): void {
    if (this.#trailerLineLen === 0) this.#state = State.Done;
    else {
      this.#trailerLineLen = 0;
      this.#state = State.Trailer;
    }
  }
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
