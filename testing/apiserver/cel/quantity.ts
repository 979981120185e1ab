/**
 * Kubernetes' CEL quantity library (k8s.io/apiserver pkg/cel/library/quantity.go) on @bufbuild/cel: `quantity(s)`,
 * `isQuantity(s)`, and on a quantity `sign()`, `isInteger()`, `asInteger()`, `asApproximateFloat()`, `add(q|int)`,
 * `sub(q|int)`, `isLessThan(q)`, `isGreaterThan(q)`, `compareTo(q)`. A quantity is held as an exact fraction inside a
 * one-entry map (`{"@quantity": "num/den"}`), so equal amounts compare equal whatever their notation.
 * @module
 */
import { type CelFunc, celFunc, celMethod, CelScalar, type CelValue, isCelMap } from "@bufbuild/cel";

/** Raises a CEL evaluation error (@bufbuild/cel turns a thrown Error into one). */
function fail(message: string): never {
  throw new Error(message);
}

const KEY = "@quantity";
const SPLIT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
const FORMAT_WRONG = `quantities must match the regular expression '${SPLIT}'`;

/** An exact rational: num/den, den > 0, reduced. */
interface Fraction {
  num: bigint;
  den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

/** num/den in lowest terms, the denominator positive. */
export function fraction(num: bigint, den: bigint): Fraction {
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** Parses a quantity as resource.ParseQuantity accepts it; undefined when it does not. */
export function parseQuantity(text: string): Fraction | undefined {
  const m = text.match(new RegExp(SPLIT));
  if (!m) return undefined;
  const [, number, suffix] = m;
  const n = number.match(/^([+-]?)(\d*)(?:\.(\d*))?$/);
  if (!n || (n[2] === "" && (n[3] ?? "") === "")) return undefined;
  const digits = BigInt(`${n[2]}${n[3] ?? ""}` || "0") * (n[1] === "-" ? -1n : 1n);
  let value = fraction(digits, 10n ** BigInt((n[3] ?? "").length));
  if (suffix in BINARY) value = fraction(value.num * 2n ** BigInt(BINARY[suffix]), value.den);
  else if (suffix in DECIMAL) value = scale10(value, DECIMAL[suffix]);
  else {
    const e = suffix.match(/^[eE]([+-]?\d+)$/);
    if (!e) return undefined;
    value = scale10(value, Number(e[1]));
  }
  return value;
}

function scale10(f: Fraction, exponent: number): Fraction {
  return exponent >= 0
    ? fraction(f.num * 10n ** BigInt(exponent), f.den)
    : fraction(f.num, f.den * 10n ** BigInt(-exponent));
}

function wrap(f: Fraction): CelValue {
  return new Map([[KEY, `${f.num}/${f.den}`]]) as unknown as CelValue;
}

function unwrap(v: CelValue): Fraction | undefined {
  if (!isCelMap(v)) return undefined;
  const text = v.get(KEY);
  if (typeof text !== "string") return undefined;
  const [num, den] = text.split("/");
  return { num: BigInt(num), den: BigInt(den) };
}

function operand(v: CelValue): Fraction | undefined {
  return typeof v === "bigint" ? { num: v, den: 1n } : unwrap(v);
}

function compare(a: Fraction, b: Fraction): number {
  const d = a.num * b.den - b.num * a.den;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

/** The fake's quantity functions (see the module). */
export const QUANTITY_FUNCS: CelFunc[] = [
  celFunc("quantity", [CelScalar.STRING], CelScalar.DYN, (s) => {
    const q = parseQuantity(s);
    return (q ? wrap(q) : fail(FORMAT_WRONG)) as never;
  }),
  celFunc("isQuantity", [CelScalar.STRING], CelScalar.BOOL, (s) => parseQuantity(s) !== undefined),
  ...(["add", "sub"] as const).map((name) =>
    celMethod(name, CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (other) {
      const [a, b] = [unwrap(this), operand(other)];
      if (!a || !b) return fail("no such overload");
      const sign = name === "add" ? 1n : -1n;
      return wrap(fraction(a.num * b.den + sign * b.num * a.den, a.den * b.den)) as never;
    })
  ),
  ...([["isLessThan", -1], ["isGreaterThan", 1]] as const).map(([name, want]) =>
    celMethod(name, CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) {
      const [a, b] = [unwrap(this), unwrap(other)];
      if (!a || !b) return fail("no such overload");
      return compare(a, b) === want;
    })
  ),
  celMethod("compareTo", CelScalar.DYN, [CelScalar.DYN], CelScalar.INT, function (other) {
    const [a, b] = [unwrap(this), unwrap(other)];
    if (!a || !b) return fail("no such overload");
    return BigInt(compare(a, b));
  }),
  celMethod("isInteger", CelScalar.DYN, [], CelScalar.BOOL, function () {
    const a = unwrap(this);
    if (!a) return fail("no such overload");
    return a.den === 1n && a.num <= MAX_INT64 && a.num >= MIN_INT64;
  }),
  celMethod("asInteger", CelScalar.DYN, [], CelScalar.INT, function () {
    const a = unwrap(this);
    if (!a) return fail("no such overload");
    if (a.den !== 1n || a.num > MAX_INT64 || a.num < MIN_INT64) {
      return fail("cannot convert value to integer");
    }
    return a.num;
  }),
  celMethod("asApproximateFloat", CelScalar.DYN, [], CelScalar.DOUBLE, function () {
    const a = unwrap(this);
    if (!a) return fail("no such overload");
    return Number(a.num) / Number(a.den);
  }),
];
