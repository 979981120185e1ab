/**
 * An object's JSON in pieces, the parts that other stored objects hold too being one shared string. The parts
 * considered: each managedFields entry's `fieldsV1` (the objects of a kind written by one manager), and every object
 * or array two levels down outside metadata (`spec.tolerations`, `spec.containers`, `status.conditions`, ...: the
 * pods of one workload repeat most of them). A part is shared from its second sighting on: the first one stays inline
 * (a part only one object has would cost a string of its own). Text only: each parse is its own object, so sharing
 * never makes two parts of one object (or of two) one value.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { asciiJson } from "./ascii_json.ts";

/** Parts shorter than this stay inline. */
const MIN_SHARED = 64;
/** How many parts the table holds before it starts over. */
const MAX_PARTS = 8192;

/** The parts seen so far (bounded), by their text. */
export class SharedParts {
  #seen = new Map<string, string>();
  readonly #nonce = crypto.randomUUID();
  /** Stands in for a part while an object is serialised (a nonce: no object's data holds it). */
  readonly #mark = `\u0000kubeop-part-${this.#nonce}-`;
  /** The mark as JSON writes it, its number captured. */
  readonly #split = new RegExp(`"\\\\u0000kubeop-part-${this.#nonce}-(\\d+)"`);

  /**
   * `obj` as ASCII JSON, `apiVersion` and `kind` first: one string, or pieces that joined are that string.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SharedParts } from "./shared_text.ts";
   * const parts = new SharedParts();
   * const pod = (name: string) => ({ metadata: { name }, spec: { tolerations: [{ key: "k".repeat(80) }] } });
   * assert.equal(typeof parts.textOf(pod("a")), "string"); // first sighting: inline
   * const b = parts.textOf(pod("b")) as string[];
   * const c = parts.textOf(pod("c")) as string[];
   * assert.equal(b.join(""), JSON.stringify(pod("b")));
   * assert.ok(b[1] === c[1]); // the tolerations' text, one string
   * ```
   */
  textOf(obj: KubeObject): string | string[] {
    const texts: string[] = [];
    const mark = (value: unknown): unknown => {
      if (!value || typeof value !== "object") return value;
      const text = asciiJson(value);
      if (text.length < MIN_SHARED) return value;
      texts.push(text);
      return `${this.#mark}${texts.length - 1}`;
    };
    // apiVersion and kind first, as every answer serves an object: a list can then send the text as it is.
    const marked: Record<string, unknown> = { apiVersion: obj.apiVersion, kind: obj.kind };
    for (const [key, value] of Object.entries(obj)) {
      if (key === "metadata" && value && typeof value === "object") {
        const managed = (value as KubeObject["metadata"]).managedFields;
        marked[key] = Array.isArray(managed)
          ? {
            ...value,
            managedFields: managed.map((e) =>
              e && typeof e === "object" && "fieldsV1" in e ? { ...e, fieldsV1: mark(e.fieldsV1) } : e
            ),
          }
          : value;
      } else if (value && typeof value === "object" && !Array.isArray(value)) {
        marked[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mark(v)]));
      } else marked[key] = value;
    }
    const whole = asciiJson(marked);
    if (texts.length === 0) return whole;
    // [text, index, text, index, ..., text]
    const split = whole.split(this.#split);
    // Cannot happen (the mark is a nonce); if it did, the text unshared.
    if (split.length !== 2 * texts.length + 1) return asciiJson({ apiVersion: obj.apiVersion, kind: obj.kind, ...obj });
    const out: string[] = [];
    let inline = split[0];
    for (let i = 1; i < split.length; i += 2) {
      const text = texts[Number(split[i])];
      const known = this.#seen.get(text);
      if (known === undefined) {
        if (this.#seen.size >= MAX_PARTS) this.#seen.clear();
        this.#seen.set(text, text);
        inline += text + split[i + 1];
      } else {
        out.push(flatCopy(inline), known);
        inline = split[i + 1];
      }
    }
    out.push(flatCopy(inline));
    return out.length === 1 ? out[0] : out;
  }
}

/**
 * A string of its own equal to `s`: V8 keeps a long substring as a view of the string it was cut from, and a
 * concatenation as a tree of its parts (either would keep the marked text alive beside the record).
 */
function flatCopy(s: string): string {
  return s.length < 13 ? s : JSON.parse(JSON.stringify(s));
}
