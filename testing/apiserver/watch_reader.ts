/**
 * Reads a watch response as parsed frames, for tests of the fake server (and of anything speaking the watch
 * protocol): newline-delimited JSON, split across or within chunks.
 * @module
 */
import type { WatchEvent } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** A pull-based reader of watch frames. */
export class WatchReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #decoder = new TextDecoder();
  #buffer = "";
  #frames: WatchEvent<KubeObject>[] = [];
  #ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next frame, or undefined when the stream ended. */
  async next(): Promise<WatchEvent<KubeObject> | undefined> {
    while (this.#frames.length === 0 && !this.#ended) {
      const { done, value } = await this.#reader.read();
      if (done) {
        this.#ended = true;
        break;
      }
      this.#buffer += this.#decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = this.#buffer.indexOf("\n")) >= 0) {
        const line = this.#buffer.slice(0, nl).trim();
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line) this.#frames.push(JSON.parse(line));
      }
    }
    return this.#frames.shift();
  }

  /** The next `n` frames (fewer if the stream ends). */
  async take(n: number): Promise<WatchEvent<KubeObject>[]> {
    const out: WatchEvent<KubeObject>[] = [];
    while (out.length < n) {
      const f = await this.next();
      if (!f) break;
      out.push(f);
    }
    return out;
  }

  /** Whether the stream has ended and every frame was read. */
  async ended(): Promise<boolean> {
    return (await this.next()) === undefined;
  }

  /** Cancels the underlying body. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
