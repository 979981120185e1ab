/**
 * Shard selectors (KEP-5866, `ShardedListAndWatch`, alpha in Kubernetes v1.36 and v1.37): the `shardSelector` list
 * and watch parameter `shardRange(object.metadata.uid, '0x…', '0x…') || …`, the FNV-1a 64 hash kube-apiserver
 * computes over the field, and the split of the hash space into buckets. The fake API server filters with it and the
 * runtime's sharding assigns keys with it, so both agree with kube-apiserver (k8s.io/apimachinery/pkg/sharding and
 * k8s.io/apiserver/pkg/sharding/parser.go) bit for bit.
 * @module
 */

/** The fields a shard selector may hash, as kube-apiserver v1.37 accepts them. */
export type ShardField = "object.metadata.uid" | "object.metadata.namespace";

/**
 * One half-open hash range [start, end): `0x` + 16 lowercase hex digits, or `0x10000000000000000` (2^64) as an end.
 */
export interface ShardRange {
  /** Inclusive start, `0x` + 16 hex digits. */
  start: string;
  /** Exclusive end, `0x` + 16 hex digits or `0x10000000000000000`. */
  end: string;
}

/** A parsed shard selector: ranges over one field, matched when the field's hash falls in any of them. */
export interface ShardSelector {
  /** The hashed field. */
  field: ShardField;
  /** The ranges; an object matches when its hash is in any of them. */
  ranges: ShardRange[];
}

/** The exclusive end of the whole hash space, as kube-apiserver spells it. */
export const SHARD_SPACE_END = "0x10000000000000000";

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = (1n << 64n) - 1n;
const utf8 = new TextEncoder();

/**
 * FNV-1a 64 of a field value as kube-apiserver computes it (sharding.HashField), `0x`-prefixed, 16 hex digits.
 *
 * @example
 * ```ts
 * import { shardHash } from "./shard_selector.ts";
 * shardHash(""); // "0xcbf29ce484222325"
 * ```
 */
export function shardHash(value: string): string {
  let h = FNV64_OFFSET;
  for (const byte of utf8.encode(value)) {
    h = ((h ^ BigInt(byte)) * FNV64_PRIME) & MASK64;
  }
  return "0x" + h.toString(16).padStart(16, "0");
}

/** sharding.HexLess: compares two `0x` hex strings as numbers (shorter is smaller; same length compares as text). */
export function hexLess(a: string, b: string): boolean {
  if (a.length !== b.length) return a.length < b.length;
  return a < b;
}

/** Whether a `0x` hash lies in [range.start, range.end). */
export function rangeContains(range: ShardRange, hash: string): boolean {
  return !hexLess(hash, range.start) && hexLess(hash, range.end);
}

function hex64(n: bigint): string {
  return n === 1n << 64n ? SHARD_SPACE_END : "0x" + n.toString(16).padStart(16, "0");
}

/**
 * Splits the hash space into `buckets` contiguous ranges of (nearly) equal size, in order: bucket `i` is
 * `bucketRanges(n)[i]`.
 *
 * @example
 * ```ts
 * import { bucketRanges } from "./shard_selector.ts";
 * bucketRanges(2); // [{start: "0x0000000000000000", end: "0x8000000000000000"},
 *                  //  {start: "0x8000000000000000", end: "0x10000000000000000"}]
 * ```
 */
export function bucketRanges(buckets: number): ShardRange[] {
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > 65536) {
    throw new RangeError(`shard buckets must be an integer between 1 and 65536, got ${buckets}`);
  }
  const space = 1n << 64n;
  const n = BigInt(buckets);
  const out: ShardRange[] = [];
  for (let i = 0n; i < n; i++) out.push({ start: hex64((space * i) / n), end: hex64((space * (i + 1n)) / n) });
  return out;
}

/** The bucket (index into `bucketRanges(buckets)`) a `0x` hash falls in. */
export function bucketOf(hash: string, buckets: number): number {
  const h = BigInt(hash);
  return Number((h * BigInt(buckets)) >> 64n);
}

/** Joins ranges that touch (`a.end === b.start`) after sorting by start, so a selector stays short. */
export function mergeRanges(ranges: readonly ShardRange[]): ShardRange[] {
  const sorted = [...ranges].sort((a, b) => (hexLess(a.start, b.start) ? -1 : hexLess(b.start, a.start) ? 1 : 0));
  const out: ShardRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.end === r.start) last.end = r.end;
    else out.push({ ...r });
  }
  return out;
}

/**
 * The `shardSelector` parameter for ranges over a field, adjacent ranges merged, joined with ` || ` as
 * kube-apiserver prints it.
 *
 * @example
 * ```ts
 * import { bucketRanges, formatShardSelector } from "./shard_selector.ts";
 * formatShardSelector({ field: "object.metadata.uid", ranges: bucketRanges(4).slice(0, 2) });
 * // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 * ```
 */
export function formatShardSelector(selector: ShardSelector): string {
  return mergeRanges(selector.ranges).map((r) => `shardRange(${selector.field}, '${r.start}', '${r.end}')`)
    .join(" || ");
}

/**
 * A parsed selector as kube-apiserver prints it back in a list's `metadata.shardInfo.selector` (sharding
 * `Selector.String()`): the ranges in request order, not merged, joined with ` || `.
 *
 * @example
 * ```ts
 * import { parseShardSelector, shardSelectorString } from "./shard_selector.ts";
 * shardSelectorString(parseShardSelector("(shardRange( object.metadata.uid ,'0x0000000000000000','0x8000000000000000'))"));
 * // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 * ```
 */
export function shardSelectorString(selector: ShardSelector): string {
  return selector.ranges.map((r) => `shardRange(${selector.field}, '${r.start}', '${r.end}')`).join(" || ");
}

/** The value a selector's field hashes for an object (sharding.ResolveFieldValue). */
export function shardFieldValue(
  field: ShardField,
  obj: { metadata?: { uid?: string; namespace?: string } },
): string {
  return (field === "object.metadata.uid" ? obj.metadata?.uid : obj.metadata?.namespace) ?? "";
}

/** Whether an object is in the selector's slice. */
export function matchesShardSelector(
  selector: ShardSelector,
  obj: { metadata?: { uid?: string; namespace?: string } },
): boolean {
  const hash = shardHash(shardFieldValue(selector.field, obj));
  return selector.ranges.some((r) => rangeContains(r, hash));
}

type Token = { kind: "ident" | "string" | "(" | ")" | "," | "||"; text: string };

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (/\s/.test(c)) i++;
    else if (c === "(" || c === ")" || c === ",") tokens.push({ kind: c, text: c }), i++;
    else if (c === "|" && expr[i + 1] === "|") tokens.push({ kind: "||", text: "||" }), i += 2;
    else if (c === "'" || c === '"') {
      const close = expr.indexOf(c, i + 1);
      if (close < 0) throw new Error(`CEL parse error: unterminated string starting at ${i}`);
      tokens.push({ kind: "string", text: expr.slice(i + 1, close) });
      i = close + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*(\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/.exec(expr.slice(i))!;
      tokens.push({ kind: "ident", text: m[0].replace(/\s+/g, "") });
      i += m[0].length;
    } else throw new Error(`CEL parse error: Syntax error: token recognition error at: '${c}'`);
  }
  return tokens;
}

function hexLiteral(text: string, name: string): string {
  if (!text.startsWith("0x")) throw new Error(`${name} must have '0x' prefix, got "${text}"`);
  const hex = text.slice(2);
  if (hex === "") throw new Error(`${name}: hex value is required after '0x'`);
  if (hex.length > 17) throw new Error(`${name}: hex value too long (${hex.length} chars, max 17): "${hex}"`);
  const bad = [...hex].find((c) => !/[0-9a-f]/.test(c));
  if (bad !== undefined) throw new Error(`${name}: invalid hex character "${bad}" in "${text}"`);
  if (hex.length === 17 && text !== SHARD_SPACE_END) {
    throw new Error(`${name}: 17-digit hex value must be '${SHARD_SPACE_END}' (2^64), got "${text}"`);
  }
  if (hex.length < 16) {
    throw new Error(
      `${name} must be a 0x-prefixed 16-digit hex value, got "${text}" (did you mean "0x${hex.padStart(16, "0")}"?)`,
    );
  }
  return text;
}

/**
 * Parses a `shardSelector` as kube-apiserver v1.37 does (sharding.Parse): `shardRange(field, 'start', 'end')` calls
 * joined with `||`, optionally parenthesised, all over the same field. Throws with kube's message when invalid.
 *
 * @example
 * ```ts
 * import { parseShardSelector } from "./shard_selector.ts";
 * parseShardSelector("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')").ranges.length; // 1
 * ```
 */
export function parseShardSelector(expr: string): ShardSelector {
  if (expr.trim() === "") {
    throw new Error("empty shard selector is not allowed; omit the parameter for unfiltered lists");
  }
  const tokens = tokenize(expr);
  let pos = 0;
  const peek = () => tokens[pos];
  const expect = (kind: Token["kind"]): Token => {
    const t = tokens[pos++];
    if (!t || t.kind !== kind) throw new Error(`CEL parse error: Syntax error: expected '${kind}'`);
    return t;
  };
  const ranges: (ShardRange & { field: string })[] = [];
  const term = (): void => {
    const t = peek();
    if (t?.kind === "(") {
      pos++;
      orExpr();
      expect(")");
      return;
    }
    if (t?.kind !== "ident") {
      throw new Error("unexpected expression kind; expected shardRange() call or || operator");
    }
    pos++;
    if (peek()?.kind !== "(") throw new Error("unexpected expression kind; expected shardRange() call or || operator");
    if (t.text !== "shardRange") {
      throw new Error(`unsupported function "${t.text}"; only shardRange() and || are allowed`);
    }
    pos++;
    const args: Token[] = [];
    while (peek() && peek().kind !== ")") {
      args.push(tokens[pos++]);
      if (peek()?.kind === ",") pos++;
    }
    expect(")");
    if (args.length !== 3) throw new Error(`shardRange() requires exactly 3 arguments, got ${args.length}`);
    const [field, start, end] = args;
    if (field.kind !== "ident") throw new Error("shardRange() first argument: expected field path");
    if (field.text !== "object.metadata.uid" && field.text !== "object.metadata.namespace") {
      throw new Error(
        `unsupported field path "${field.text}"; supported: object.metadata.uid, object.metadata.namespace`,
      );
    }
    if (start.kind !== "string") throw new Error("hexStart must be a string literal (e.g. '0xff')");
    if (end.kind !== "string") throw new Error("hexEnd must be a string literal (e.g. '0xff')");
    const s = hexLiteral(start.text, "hexStart");
    const e = hexLiteral(end.text, "hexEnd");
    if (!hexLess(s, e)) throw new Error(`shard range start ${s} must be less than end ${e}`);
    ranges.push({ field: field.text, start: s, end: e });
  };
  const orExpr = (): void => {
    term();
    while (peek()?.kind === "||") {
      pos++;
      term();
    }
  };
  orExpr();
  if (pos !== tokens.length) throw new Error(`CEL parse error: Syntax error: unexpected '${tokens[pos].text}'`);
  const field = ranges[0].field;
  const other = ranges.find((r) => r.field !== field);
  if (other) throw new Error(`all shard ranges must use the same field, got "${field}" and "${other.field}"`);
  return { field: field as ShardField, ranges: ranges.map(({ start, end }) => ({ start, end })) };
}
