/**
 * Go's `time.ParseDuration` (the format of Kubernetes' duration flags and `metav1.Duration`): a sequence of decimal
 * numbers, each with an optional fraction and a unit — `300ms`, `1.5h`, `2h45m`, `-1m` — with units `ns`, `us`
 * (`µs`, `μs`), `ms`, `s`, `m`, `h`; a bare `0` is allowed.
 * @module
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3, // U+00B5 micro sign
  "μs": 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /([0-9]*(?:\.[0-9]*)?)([a-zµμ]+)/y;

/**
 * Parses a Go duration into milliseconds; throws a RangeError quoting the input when it is not one.
 *
 * @example
 * ```ts
 * import { parseGoDuration } from "./go_duration.ts";
 * console.assert(parseGoDuration("1m30s") === 90_000);
 * console.assert(parseGoDuration("500ms") === 500);
 * ```
 */
export function parseGoDuration(text: string): number {
  const invalid = () => new RangeError(`invalid duration "${text}" (expected e.g. 15s, 500ms, 1m30s)`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest[0] === "-" ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw invalid();
  let total = 0;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < rest.length) {
    const at = TERM.lastIndex;
    const m = TERM.exec(rest);
    if (!m || m.index !== at) throw invalid();
    const [, number, unit] = m;
    if (number === "" || number === "." || !(unit in UNIT_MS)) throw invalid();
    total += Number(number) * UNIT_MS[unit];
  }
  if (!Number.isFinite(total)) throw invalid();
  return sign * total;
}
