import assert from "node:assert/strict";
import { concatBytes, readBytesUpTo } from "./bounded_body.ts";

Deno.test("concatBytes joins chunks in order; no chunks is an empty array", () => {
  assert.deepEqual(concatBytes([Uint8Array.of(1, 2), Uint8Array.of(), Uint8Array.of(3)]), Uint8Array.of(1, 2, 3));
  assert.deepEqual(concatBytes([]), new Uint8Array());
});

Deno.test("readBytesUpTo reads a body of exactly the limit; past it, stops at the first chunk over without draining the rest", async () => {
  let pulled = 0;
  let cancelled = false;
  const source = () =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(Uint8Array.of(pulled, pulled));
        if (pulled === 3) controller.close();
      },
      cancel() {
        cancelled = true;
      },
    }, { highWaterMark: 0 });
  assert.deepEqual(await readBytesUpTo(source(), 6), Uint8Array.of(1, 1, 2, 2, 3, 3));
  assert.equal(cancelled, false);
  pulled = 0;
  assert.equal(await readBytesUpTo(source(), 3), "too-large");
  assert.equal(pulled, 2, "stops at the chunk past the limit");
  assert.equal(cancelled, true, "the source is cancelled, not drained");
});
