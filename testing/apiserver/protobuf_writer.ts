/**
 * Protobuf wire-format writing.
 * @module
 */

/**
 * A growable byte buffer with protobuf's wire primitives (varints, tags, length-delimited fields, fixed 32/64-bit
 * floats), shared by the Kubernetes protobuf encoder and the OpenAPI v2 (gnostic) encoder.
 *
 * @example
 * ```ts
 * import { ProtobufWriter } from "./protobuf_writer.ts";
 * const w = new ProtobufWriter();
 * w.delimited(1, new TextEncoder().encode("2.0"));
 * console.assert(w.finish().length === 5);
 * ```
 */
export class ProtobufWriter {
  #buf: Uint8Array<ArrayBuffer> = new Uint8Array(256);
  length = 0;

  #room(n: number): void {
    if (this.length + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.length));
    this.#buf = next;
  }

  byte(b: number): void {
    this.#room(1);
    this.#buf[this.length++] = b;
  }

  /** A varint of a non-negative safe integer, or of any int64 as Go's uint64(v) (negatives take ten bytes). */
  varint(v: number | bigint): void {
    if (typeof v === "number" && v >= 0 && v <= Number.MAX_SAFE_INTEGER) {
      while (v >= 0x80) {
        this.byte((v % 0x80) | 0x80);
        v = Math.floor(v / 0x80);
      }
      this.byte(v);
      return;
    }
    let u = BigInt.asUintN(64, BigInt(v));
    while (u >= 0x80n) {
      this.byte(Number(u & 0x7fn) | 0x80);
      u >>= 7n;
    }
    this.byte(Number(u));
  }

  tag(number: number, wireType: number): void {
    this.varint(number * 8 + wireType);
  }

  bytes(b: Uint8Array): void {
    this.#room(b.length);
    this.#buf.set(b, this.length);
    this.length += b.length;
  }

  /** A length-delimited field. */
  delimited(number: number, b: Uint8Array): void {
    this.tag(number, 2);
    this.varint(b.length);
    this.bytes(b);
  }

  fixed(number: number, value: number, double: boolean): void {
    this.tag(number, double ? 1 : 5);
    const b = new Uint8Array(double ? 8 : 4);
    const view = new DataView(b.buffer);
    if (double) view.setFloat64(0, value, true);
    else view.setFloat32(0, value, true);
    this.bytes(b);
  }

  finish(): Uint8Array<ArrayBuffer> {
    return this.#buf.slice(0, this.length);
  }
}
