import assert from "node:assert/strict";
import { ChunkedDecoder, ChunkedEncodingError } from "./chunked_decoder.ts";
import { LineSplitter, LineTooLongError } from "./json_lines.ts";

const enc = new TextEncoder();

function chunked(parts: string[], trailer = ""): Uint8Array {
  let s = "";
  for (const p of parts) s += `${enc.encode(p).length.toString(16)}\r\n${p}\r\n`;
  return enc.encode(s + "0\r\n" + trailer + "\r\n");
}

function decodeAll(pieces: Uint8Array[]): { text: string; done: boolean } {
  const dec = new ChunkedDecoder();
  const out: number[] = [];
  let done = false;
  for (const p of pieces) done = dec.push(p, (b) => out.push(...b));
  return { text: new TextDecoder().decode(new Uint8Array(out)), done };
}

Deno.test("chunked decoder: decodes a body split at every byte boundary", () => {
  const parts = ['{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n', "é€😀 multi-byte\n", "x".repeat(300)];
  const body = chunked(parts, "X-Trailer: 1\r\n");
  for (let cut = 0; cut <= body.length; cut++) {
    const r = decodeAll([body.subarray(0, cut), body.subarray(cut)]);
    assert.equal(r.text, parts.join(""), `cut at ${cut}`);
    assert.ok(r.done);
  }
});

Deno.test("chunked decoder: one byte at a time, with chunk extensions and upper-case hex", () => {
  const body = enc.encode("A;ext=1\r\n0123456789\r\n0\r\n\r\n");
  const r = decodeAll([...body].map((b) => new Uint8Array([b])));
  assert.equal(r.text, "0123456789");
  assert.ok(r.done);
});

Deno.test("chunked decoder: not done until the terminating chunk", () => {
  const r = decodeAll([enc.encode("3\r\nabc\r\n")]);
  assert.equal(r.text, "abc");
  assert.equal(r.done, false);
});

Deno.test("chunked decoder: rejects garbage in the size line", () => {
  assert.throws(() => new ChunkedDecoder().push(enc.encode("zz\r\n"), () => {}), ChunkedEncodingError);
  assert.throws(() => new ChunkedDecoder().push(enc.encode("3\r\nabcXX"), () => {}), ChunkedEncodingError);
});

Deno.test("line splitter: lines split at every byte boundary, including inside UTF-8 characters", () => {
  const text = '{"a":"é€😀"}\n\n{"b":2}\r\n{"c":3}\n';
  const bytes = enc.encode(text);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.push(bytes.subarray(0, cut));
    s.push(bytes.subarray(cut));
    assert.deepEqual(lines, ['{"a":"é€😀"}', '{"b":2}', '{"c":3}'], `cut at ${cut}`);
  }
});

Deno.test("line splitter: a very long line arriving in many pieces is emitted once, intact", () => {
  const long = JSON.stringify({ data: "y".repeat(3_000_000) });
  const bytes = enc.encode(long + "\n" + '{"next":1}\n');
  const lines: string[] = [];
  const s = new LineSplitter((l) => lines.push(l));
  for (let i = 0; i < bytes.length; i += 4096) s.push(bytes.subarray(i, i + 4096));
  assert.equal(lines.length, 2);
  assert.equal(lines[0], long);
  assert.equal(lines[1], '{"next":1}');
});

Deno.test("line splitter: refuses lines over the limit and flushes an unterminated tail", () => {
  const s = new LineSplitter(() => {}, { maxLineChars: 10 });
  assert.throws(() => s.push(enc.encode("x".repeat(20))), LineTooLongError);
  const lines: string[] = [];
  const t = new LineSplitter((l) => lines.push(l));
  t.push(enc.encode('{"a":1}\n{"tail":'));
  t.push(enc.encode("2}"));
  t.flush();
  assert.deepEqual(lines, ['{"a":1}', '{"tail":2}']);
});

Deno.test("chunked decoder: consumed stops at the end of the body, so bytes after it are seen", () => {
  const body = "3\r\nabc\r\n0\r\n\r\n";
  for (let cut = 1; cut < body.length; cut++) {
    const dec = new ChunkedDecoder();
    assert.equal(dec.push(enc.encode(body.slice(0, cut)), () => {}), false);
    assert.equal(dec.consumed, cut);
    assert.equal(dec.push(enc.encode(body.slice(cut) + "HTTP/1.1"), () => {}), true);
    assert.equal(dec.consumed, body.length - cut, `cut at ${cut}`);
  }
  const dec = new ChunkedDecoder();
  assert.ok(dec.push(enc.encode(body), () => {}));
  assert.equal(dec.consumed, body.length);
  assert.ok(dec.push(enc.encode("x"), () => {}));
  assert.equal(dec.consumed, 0, "nothing belongs to a finished body");
});
