/**
 * The watch side of bench/fake_watch_fanout_bench.ts, run in its own process (that file with `--watch-client`) so
 * the server's event loop pays only for serving. Each watch is a raw TCP socket speaking HTTP/1.1 with a tiny
 * chunked-body decoder that counts newline-terminated frames without parsing them: a fetch body reader per watch cost
 * the client ~6× the server's CPU and made the client the bottleneck.
 * @module
 */

import { epochMs } from "./fake_bench_util.ts";

/** The namespace whose ConfigMaps are watched (and written by the bench). */
export const WATCH_NAMESPACE = "bench";
const CONNECT_BATCH = 200;

/** What the watch client prints when every watcher has its events (one JSON line). */
export interface ClientReport {
  /** Frames each watcher received. */
  counts: number[];
  /** Arrival (epoch ms) of the last expected frame, per watcher. */
  lastArrival: number[];
  /** Arrival of frame `s × stride` at watcher `w`: index `w × samples + s`. */
  sampleArrival: number[];
}

/** Counts newline-terminated frames in an HTTP/1.1 chunked body as bytes arrive (sizes parsed, data only scanned). */
class ChunkedFrameCounter {
  #inData = false;
  #remaining = 0;
  #crlfLeft = 0;
  #sizeLine = "";
  /** True once the terminating zero-size chunk was seen. */
  ended = false;

  /** Frames (newlines inside chunk data) completed by `bytes`. */
  feed(bytes: Uint8Array): number {
    let i = 0;
    let frames = 0;
    while (i < bytes.length && !this.ended) {
      if (this.#crlfLeft > 0) {
        const n = Math.min(this.#crlfLeft, bytes.length - i);
        i += n;
        this.#crlfLeft -= n;
      } else if (this.#inData) {
        const end = Math.min(bytes.length, i + this.#remaining);
        const data = bytes.subarray(i, end);
        for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) frames++;
        this.#remaining -= end - i;
        i = end;
        if (this.#remaining === 0) {
          this.#inData = false;
          this.#crlfLeft = 2;
        }
      } else {
        const nl = bytes.indexOf(10, i);
        const upTo = nl === -1 ? bytes.length : nl;
        for (let j = i; j < upTo; j++) this.#sizeLine += String.fromCharCode(bytes[j]);
        i = upTo;
        if (nl === -1) break;
        i = nl + 1;
        const size = parseInt(this.#sizeLine.split(";")[0].trim(), 16);
        this.#sizeLine = "";
        if (!Number.isFinite(size)) throw new Error("malformed chunk size");
        if (size === 0) this.ended = true;
        else {
          this.#inData = true;
          this.#remaining = size;
        }
      }
    }
    return frames;
  }
}

/** One watch over a raw TCP connection: sends the GET, reads the response head, returns what followed it. */
async function openWatch(url: URL, path: string): Promise<{ conn: Deno.TcpConn; rest: Uint8Array }> {
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  await conn.write(
    new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`),
  );
  let head = new Uint8Array(0);
  const buf = new Uint8Array(4096);
  while (true) {
    const n = await conn.read(buf);
    if (n === null) throw new Error(`watch ${path}: connection closed before the response head`);
    const joined = new Uint8Array(head.length + n);
    joined.set(head);
    joined.set(buf.subarray(0, n), head.length);
    head = joined;
    const text = new TextDecoder("latin1").decode(head);
    const end = text.indexOf("\r\n\r\n");
    if (end === -1) continue;
    const status = text.slice(0, text.indexOf("\r\n"));
    if (!status.includes(" 200 ")) throw new Error(`watch ${path}: ${status}`);
    if (!/\r\ntransfer-encoding: *chunked/i.test(text.slice(0, end))) throw new Error(`watch ${path}: not chunked`);
    return { conn, rest: head.subarray(end + 4) };
  }
}

/**
 * Opens `watchers` watches from `rv` over raw HTTP/1.1 sockets (fetch costs the client ~6× the server's CPU and
 * would make the client the bottleneck), prints "ready", counts frames until each has `events`, prints the report.
 */
export async function runWatchClient(url: string, rv: string, watchers: number, events: number, stride: number) {
  const path = `/api/v1/namespaces/${WATCH_NAMESPACE}/configmaps?watch=1&resourceVersion=${rv}`;
  const target = new URL(url);
  const samples = Math.floor((events - 1) / stride) + 1;
  const counts = new Array<number>(watchers).fill(0);
  const lastArrival = new Array<number>(watchers).fill(0);
  const sampleArrival = new Array<number>(watchers * samples).fill(0);
  const opened: Array<{ conn: Deno.TcpConn; rest: Uint8Array }> = [];
  const connectStart = performance.now();
  for (let i = 0; i < watchers; i += CONNECT_BATCH) {
    const batch = Math.min(CONNECT_BATCH, watchers - i);
    opened.push(...await Promise.all(Array.from({ length: batch }, () => openWatch(target, path))));
  }
  console.log(JSON.stringify({ ready: true, connectMs: performance.now() - connectStart }));

  const consume = async (w: number, conn: Deno.TcpConn, rest: Uint8Array) => {
    const counter = new ChunkedFrameCounter();
    const buf = new Uint8Array(16 * 1024);
    let count = 0;
    const arrived = (frames: number) => {
      const now = epochMs();
      for (let f = 0; f < frames && count < events; f++, count++) {
        // Frame `count` has arrived (frames are numbered from 0).
        if (count % stride === 0) sampleArrival[w * samples + count / stride] = now;
      }
      if (count === events) lastArrival[w] = now;
    };
    try {
      arrived(counter.feed(rest));
      while (count < events && !counter.ended) {
        const n = await conn.read(buf);
        if (n === null) break;
        arrived(counter.feed(buf.subarray(0, n)));
      }
    } finally {
      counts[w] = count;
      conn.close();
    }
  };
  await Promise.all(opened.map(({ conn, rest }, w) => consume(w, conn, rest)));
  console.log(JSON.stringify({ counts, lastArrival, sampleArrival } satisfies ClientReport));
}
