/**
 * Lazy watch frames: a watch line is scanned once for its structure (no values built), the event's `type`, the
 * object's `kind`, `apiVersion`, `metadata` and primitive top-level fields are parsed at once, and every other
 * top-level field (`spec`, `status`, `data`, …) is kept as a slice of the retained line and parsed on first read —
 * deep-frozen and cached, so every read returns the same object. An informer that only files objects by their
 * metadata (indexes, keys, resourceVersions) never pays for the rest; a consumer that reads `spec` pays for `spec`.
 *
 * The result behaves like a plain object for every consumer: `Object.keys`, spread, `JSON.stringify` (key order
 * as the server sent it), `structuredClone`, deep equality — all go through the lazy fields' enumerable getters. The
 * scan checks the frame's structure (balanced brackets, terminated strings); a syntax error inside a lazy field's
 * value (which a real kube-apiserver never sends) surfaces as a SyntaxError on that field's first read.
 * @module
 */

/** A lazy object's unparsed fields. */
interface LazyState {
  /** The retained frame (undefined once every lazy field was parsed). */
  raw: string | undefined;
  /** Start/end offsets in `raw` of each lazy field's value, two per field. */
  ranges: number[];
  /** Parsed (or assigned) values, by field position; {@link UNSET} until read. */
  values: unknown[];
  /** The lazy fields' names, by position. */
  keys: string[];
  /** How many lazy fields are still unparsed. */
  pending: number;
}

/** Returns its argument from the constructor, so a subclass can stamp a private field onto any object. */
class Identity {
  constructor(obj: object) {
    return obj;
  }
}

/**
 * Attaches a {@link LazyState} to a plain object as a private field: invisible to every reflection API (keys,
 * symbols, descriptors, structuredClone, JSON), unaffected by freezing, and far cheaper than a WeakMap entry.
 */
class LazyStamp extends Identity {
  #state: LazyState;
  private constructor(obj: object, state: LazyState) {
    super(obj);
    this.#state = state;
  }
  static attach(obj: object, state: LazyState): void {
    new LazyStamp(obj, state);
  }
  static stateOf(obj: object): LazyState | undefined {
    return #state in obj ? (obj as LazyStamp).#state : undefined;
  }
}

/** True for an object built by {@link parseWatchLine} that has lazy fields. */
export function isLazyObject(value: object): boolean {
  return LazyStamp.stateOf(value) !== undefined;
}

/**
 * Freezes a lazy object's top level and deep-freezes its other values (`metadata`, anything a transform assigned)
 * without parsing its lazy fields (they are frozen when parsed). Returns false when `obj` is not a lazy object.
 */
export function freezeLazyObject(obj: object, deepFreeze: (v: unknown) => unknown): boolean {
  const st = LazyStamp.stateOf(obj);
  if (!st) return false;
  Object.freeze(obj);
  const keys = Object.keys(obj);
  for (let i = 0; i < keys.length; i++) {
    if (!st.keys.includes(keys[i])) deepFreeze((obj as Record<string, unknown>)[keys[i]]);
  }
  for (let i = 0; i < st.values.length; i++) if (st.values[i] !== UNSET) deepFreeze(st.values[i]);
  return true;
}

function freezeDeep(value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    const vals = Object.values(value);
    for (let i = 0; i < vals.length; i++) freezeDeep(vals[i]);
  }
  return value;
}

/** Marks a lazy field not parsed yet. */
const UNSET = Symbol("unset");

function readLazy(st: LazyState, i: number): unknown {
  if (st.values[i] !== UNSET) return st.values[i];
  const v = freezeDeep(JSON.parse(st.raw!.slice(st.ranges[2 * i], st.ranges[2 * i + 1])));
  settle(st, i, v);
  return v;
}

function settle(st: LazyState, i: number, v: unknown): void {
  if (st.values[i] === UNSET) {
    if (--st.pending === 0) {
      st.raw = undefined;
      st.ranges = [];
    }
  }
  st.values[i] = v;
}

/** Getter/setter pairs per field position, shared by every lazy object (so their shapes are shared too). */
const accessors: PropertyDescriptor[] = [];

function accessor(i: number): PropertyDescriptor {
  let d = accessors[i];
  if (!d) {
    d = {
      enumerable: true,
      configurable: true,
      get(this: object) {
        return readLazy(LazyStamp.stateOf(this)!, i);
      },
      set(this: object, v: unknown) {
        // Before the store freezes it, a transform may assign the field (a frozen object rejects the write).
        if (Object.isFrozen(this)) throw new TypeError(`Cannot assign to read only property of a frozen object`);
        settle(LazyStamp.stateOf(this)!, i, v);
      },
    };
    accessors[i] = d;
  }
  return d;
}

const Q = 34; // "
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COMMA = 44;
const COLON = 58;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Index just past the string starting at `i` (a quote), or -1 when unterminated. */
function skipString(s: string, i: number): number {
  let j = s.indexOf('"', i + 1);
  while (j > 0) {
    let b = j - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    if ((j - 1 - b) % 2 === 0) return j + 1;
    j = s.indexOf('"', j + 1);
  }
  return -1;
}

/** Index just past the JSON value starting at `i`, or -1 when the structure is broken. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === Q) return skipString(s, i);
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    const n = s.length;
    while (i < n) {
      const d = s.charCodeAt(i);
      if (d === Q) {
        i = skipString(s, i);
        if (i < 0) return -1;
        continue;
      }
      if (d === LBRACE || d === LBRACKET) depth++;
      else if (d === RBRACE || d === RBRACKET) {
        if (--depth === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  const n = s.length;
  while (i < n) {
    const d = s.charCodeAt(i);
    if (d === COMMA || d === RBRACE || d === RBRACKET || isSpace(d)) return i;
    i++;
  }
  return -1;
}

/**
 * Walks the members of the object starting at `i`, calling `member(keyStart, keyEnd, valueStart, valueEnd)` with
 * the key's offsets inside its quotes. Returns the index past the object, or -1 when the structure is broken or a
 * key has escapes (the caller then falls back to JSON.parse).
 */
function members(s: string, i: number, member: (ks: number, ke: number, vs: number, ve: number) => boolean): number {
  if (s.charCodeAt(i) !== LBRACE) return -1;
  i = skipSpace(s, i + 1);
  if (s.charCodeAt(i) === RBRACE) return i + 1;
  for (;;) {
    if (s.charCodeAt(i) !== Q) return -1;
    const ke = skipString(s, i);
    if (ke < 0) return -1;
    if (s.lastIndexOf("\\", ke - 2) > i) return -1;
    let v = skipSpace(s, ke);
    if (s.charCodeAt(v) !== COLON) return -1;
    v = skipSpace(s, v + 1);
    const ve = skipValue(s, v);
    if (ve < 0) return -1;
    if (!member(i + 1, ke - 1, v, ve)) return -1;
    i = skipSpace(s, ve);
    const c = s.charCodeAt(i);
    if (c === RBRACE) return i + 1;
    if (c !== COMMA) return -1;
    i = skipSpace(s, i + 1);
  }
}

/** Where the object {@link lazyObject} built last ended (index past its closing brace). */
let lazyEnd = -1;

/**
 * Builds the lazy object for the object value starting at `start` of `s` (setting {@link lazyEnd}), or undefined
 * when it cannot.
 */
function lazyObject(s: string, start: number): Record<string, unknown> | undefined {
  const obj: Record<string, unknown> = {};
  let st: LazyState | undefined;
  let i = start + 1;
  if (s.charCodeAt(start) !== LBRACE) return undefined;
  i = skipSpace(s, i);
  if (s.charCodeAt(i) === RBRACE) {
    lazyEnd = i + 1;
    return obj;
  }
  for (;;) {
    if (s.charCodeAt(i) !== Q) return undefined;
    const ke = skipString(s, i);
    if (ke < 0) return undefined;
    const key = s.slice(i + 1, ke - 1);
    if (key.includes("\\") || key === "__proto__" || Object.hasOwn(obj, key)) return undefined;
    let vs = ke;
    if (s.charCodeAt(vs) !== COLON) vs = skipSpace(s, vs);
    if (s.charCodeAt(vs) !== COLON) return undefined;
    vs = skipSpace(s, vs + 1);
    const ve = skipValue(s, vs);
    if (ve < 0) return undefined;
    const c = s.charCodeAt(vs);
    const str = c === Q ? s.slice(vs + 1, ve - 1) : undefined;
    if (str !== undefined && !str.includes("\\")) {
      obj[key] = str;
    } else if ((c !== LBRACE && c !== LBRACKET) || key === "metadata") {
      obj[key] = JSON.parse(s.slice(vs, ve));
    } else {
      st ??= { raw: s, ranges: [], values: [], keys: [], pending: 0 };
      st.ranges.push(vs, ve);
      st.keys.push(key);
      st.values.push(UNSET);
      Object.defineProperty(obj, key, accessor(st.pending++));
    }
    i = ve;
    if (s.charCodeAt(i) !== COMMA && s.charCodeAt(i) !== RBRACE) i = skipSpace(s, i);
    if (s.charCodeAt(i) === RBRACE) break;
    if (s.charCodeAt(i) !== COMMA) return undefined;
    i = skipSpace(s, i + 1);
  }
  if (st) LazyStamp.attach(obj, st);
  lazyEnd = i + 1;
  return obj;
}

const OBJECT_EVENTS = new Set(["ADDED", "MODIFIED", "DELETED"]);

/**
 * Parses one watch line into `{type, object}` with a lazy object for ADDED/MODIFIED/DELETED; any other frame,
 * and any frame whose structure the scan does not accept, goes through JSON.parse (which throws for malformed
 * lines, as before).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseWatchLine } from "./lazy_object.ts";
 * const ev = parseWatchLine('{"type":"ADDED","object":{"metadata":{"name":"a"},"spec":{"n":1}}}') as {
 *   type: string;
 *   object: { metadata: { name: string }; spec: { n: number } };
 * };
 * assert.ok(ev.type === "ADDED" && ev.object.metadata.name === "a");
 * assert.ok(ev.object.spec.n === 1 && ev.object.spec === ev.object.spec);
 * assert.ok(JSON.stringify(ev.object) === '{"metadata":{"name":"a"},"spec":{"n":1}}');
 * ```
 */
export function parseWatchLine(line: string): unknown {
  // kube-apiserver's layout, `{"type":"…","object":{…}}`, is read in one pass over the object.
  if (line.startsWith(TYPE_PREFIX)) {
    const q = line.indexOf('"', TYPE_PREFIX.length);
    const type = line.slice(TYPE_PREFIX.length, q);
    if (q > 0 && OBJECT_EVENTS.has(type) && line.startsWith(OBJECT_INFIX, q)) {
      const object = lazyObject(line, q + OBJECT_INFIX.length);
      if (object && line.charCodeAt(lazyEnd) === RBRACE && skipSpace(line, lazyEnd + 1) === line.length) {
        return { type, object };
      }
    }
  }
  return parseAnyLayout(line);
}

const TYPE_PREFIX = '{"type":"';
const OBJECT_INFIX = '","object":';

/** {@link parseWatchLine} for any member order and spacing. */
function parseAnyLayout(line: string): unknown {
  let type: string | undefined;
  let objStart = -1;
  const end = members(line, skipSpace(line, 0), (ks, ke, vs, ve) => {
    const keyLen = ke - ks;
    if (keyLen === 4 && line.startsWith("type", ks) && line.charCodeAt(vs) === Q) {
      type = line.slice(vs + 1, ve - 1);
      return true;
    }
    if (keyLen === 6 && line.startsWith("object", ks) && line.charCodeAt(vs) === LBRACE) {
      objStart = vs;
      return true;
    }
    return false;
  });
  if (end < 0 || skipSpace(line, end) !== line.length || objStart < 0 || type === undefined) return JSON.parse(line);
  if (!OBJECT_EVENTS.has(type) || type.includes("\\")) return JSON.parse(line);
  const object = lazyObject(line, objStart);
  if (!object) return JSON.parse(line);
  return { type, object };
}
