/**
 * Resource quantities as kube's admission plugins use them (k8s.io/apimachinery resource.Quantity): exact values
 * parsed from their text (cel/quantity.ts parseQuantity), the format their suffix picks (DecimalSI, BinarySI,
 * DecimalExponent), sums that keep the first operand's format, milli-value comparisons, and `String()` — the canonical
 * text kube prints in its messages (`0.5` → `500m`, `2048Mi` → `2Gi`, `1500` → `1500`).
 * @module
 */
import { fraction, parseQuantity } from "./cel/quantity.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";

/** A quantity: an exact value (num/den) and the format of the text it came from. */
export interface Quantity {
  num: bigint;
  den: bigint;
  format: "DecimalSI" | "BinarySI" | "DecimalExponent";
}

/** A resource list as stored (`{cpu: "500m"}`). */
export type ResourceList = Record<string, string>;

/** Parses quantity text; undefined when kube would not read it. */
export function quantity(text: unknown): Quantity | undefined {
  if (typeof text === "number") text = String(text);
  if (typeof text !== "string") return undefined;
  const value = parseQuantity(text.trim());
  if (!value) return undefined;
  const format = /[KMGTPE]i$/.test(text) ? "BinarySI" : /[eE][-+]?\d+$/.test(text) ? "DecimalExponent" : "DecimalSI";
  return { ...value, format };
}

/**
 * The text kube stores for quantity text it parsed: resource.ParseQuantity keeps the text itself where its fast path
 * finds it already canonical (an integer scale that is a multiple of 3 without three trailing zeros, or a whole
 * 1024-power binary amount not divisible by 8 — leading zeros and a `+` stay: `"010"`, `"+2"`), else the quantity's
 * canonical `String()` (`0.5` → `500m`, `2048Mi` → `2Gi`). A core v1 ResourceList's values (`resourceList`) are
 * first rounded away from zero to milli units, as SetDefaults_ResourceList does (`100u` → `1m`). Undefined when the
 * text is not a quantity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { storedQuantityText } from "./resource_quantity.ts";
 * assert.equal(storedQuantityText("0.5"), "500m");
 * assert.equal(storedQuantityText("2048Mi"), "2Gi");
 * assert.equal(storedQuantityText("010"), "010");
 * assert.equal(storedQuantityText("1000m"), "1");
 * assert.equal(storedQuantityText("100u"), "100u");
 * assert.equal(storedQuantityText("100u", { resourceList: true }), "1m");
 * assert.equal(storedQuantityText("x"), undefined);
 * ```
 */
export function storedQuantityText(text: string, opts: { resourceList?: boolean } = {}): string | undefined {
  const parsed = quantity(text);
  if (!parsed) return undefined;
  if (opts.resourceList && finerThanMilli(text)) return formatQuantity(awayFromZeroToMilli(parsed));
  return text === "0" || parseKeepsText(text) ? text : formatQuantity(parsed);
}

/** Whether Quantity.RoundUp(-3) changes the parsed text: a decimal scale below milli, or a fractional binary amount. */
function finerThanMilli(text: string): boolean {
  const m = text.match(/^[+-]?\d*(?:\.(\d*))?(.*)$/);
  if (!m) return false;
  const denom = m[1] ?? "";
  const suffix = m[2];
  if (suffix in BINARY_EXPONENTS) return denom.length > 0;
  const exponent = suffix in DECIMAL_EXPONENTS ? DECIMAL_EXPONENTS[suffix] : Number(suffix.slice(1));
  return exponent - denom.length < -3;
}

/** `q` rounded to whole thousandths, away from zero (resource.Quantity.RoundUp(-3)). */
function awayFromZeroToMilli(q: Quantity): Quantity {
  const milli = q.num * 1000n;
  const whole = milli / q.den;
  const rounded = milli % q.den === 0n ? whole : whole + (milli > 0n ? 1n : -1n);
  return { ...fraction(rounded, 1000n), format: q.format };
}

const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_EXPONENTS: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** ParseQuantity's "already canonical: reuse the string" test (apimachinery pkg/api/resource/quantity.go). */
function parseKeepsText(text: string): boolean {
  const m = text.match(/^[+-]?0*(\d*)(?:\.(\d*))?(.*)$/);
  if (!m) return false;
  const num = m[1] || "0";
  const denom = m[2] ?? "";
  const suffix = m[3];
  const shifted = num + denom;
  if (suffix in BINARY_EXPONENTS) {
    const exponent = BINARY_EXPONENTS[suffix];
    if (denom || 15 - num.length - Math.trunc(exponent * 3 / 10) - 1 < 0) return false;
    const value = BigInt(shifted);
    return value << BigInt(exponent) < 2n ** 63n && exponent % 10 === 0 && (value & 7n) !== 0n;
  }
  const exponent = suffix in DECIMAL_EXPONENTS ? DECIMAL_EXPONENTS[suffix] : Number(suffix.slice(1));
  if (!Number.isInteger(exponent) || 18 - shifted.length < 0) return false;
  const scale = exponent - denom.length;
  return scale >= -9 && scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
}

/** a + b, in a's format (kube's Quantity.Add). */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { ...fraction(a.num * b.den + b.num * a.den, a.den * b.den), format: a.format };
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const d = a.num * b.den - b.num * a.den;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The value in thousandths, rounded up (kube's MilliValue). */
export function milliValue(q: Quantity): bigint {
  return ceilDiv(q.num * 1000n, q.den);
}

/** kube's Quantity.String(): the canonical text of the value in its format. */
export function formatQuantity(q: Quantity): string {
  // kube rounds up to nano precision first.
  const nanos = ceilDiv(q.num * 1_000_000_000n, q.den);
  const integral = nanos % 1_000_000_000n === 0n;
  const whole = nanos / 1_000_000_000n;
  if (q.format === "BinarySI" && integral && (whole >= 1024n || whole <= -1024n)) {
    let n = whole;
    let e = 0;
    while (e < 6 && n % 1024n === 0n) [n, e] = [n / 1024n, e + 1];
    return `${n}${["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][e]}`;
  }
  if (nanos === 0n) return "0";
  let mantissa = nanos;
  let exponent = -9;
  while (mantissa % 10n === 0n) [mantissa, exponent] = [mantissa / 10n, exponent + 1];
  const mod = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(mod);
  exponent -= mod;
  if (q.format === "DecimalExponent") return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix: Record<number, string> = {
    [-9]: "n",
    [-6]: "u",
    [-3]: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
  };
  return `${mantissa}${suffix[exponent] ?? `e${exponent}`}`;
}

/**
 * A pod's requests and limits by resource (kube's PodRequests/PodLimits): its containers' summed, an init
 * container's taken where larger.
 */
export function podResourceTotals(pod: KubeObject): [Map<string, Quantity>, Map<string, Quantity>] {
  const spec = pod.spec ?? {};
  const total = (kind: "requests" | "limits") => {
    const sum = new Map<string, Quantity>();
    for (const c of Array.isArray(spec.containers) ? spec.containers : []) {
      for (const [k, v] of Object.entries(c?.resources?.[kind] ?? {})) {
        const q = quantity(v);
        if (q) sum.set(k, sum.has(k) ? addQuantities(sum.get(k)!, q) : q);
      }
    }
    for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) {
      for (const [k, v] of Object.entries(c?.resources?.[kind] ?? {})) {
        const q = quantity(v);
        if (q && (!sum.has(k) || compareQuantities(q, sum.get(k)!) > 0)) sum.set(k, q);
      }
    }
    return sum;
  };
  return [total("requests"), total("limits")];
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a > 0n) === (b > 0n) ? q + 1n : q;
}
