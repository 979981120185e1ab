/**
 * metav1.MicroTime as kube's codec reads it: RFC 3339 with exactly six fractional digits
 * (`2006-01-02T15:04:05.000000Z07:00`); anything else is a decode error (400) with Go's time.Parse message.
 * @module
 */

const LAYOUT = "2006-01-02T15:04:05.000000Z07:00";
const HEAD = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;
const FULL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/;

/**
 * Go's error for a MicroTime string it cannot parse, or undefined when it parses (null and "" are a zero time).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { microTimeError } from "./micro_time.ts";
 * assert.equal(microTimeError("2020-01-01T00:00:00.123456Z"), undefined);
 * assert.equal(
 *   microTimeError("2020-01-01T00:00:00Z"),
 *   'parsing time "2020-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
 * );
 * ```
 */
export function microTimeError(value: unknown): string | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  if (typeof value !== "string") return `parsing time ${JSON.stringify(String(value))} as "${LAYOUT}": cannot parse`;
  if (FULL.test(value)) return undefined;
  const head = HEAD.exec(value);
  const prefix = `parsing time ${JSON.stringify(value)} as "${LAYOUT}"`;
  if (!head) return `${prefix}: cannot parse ${JSON.stringify(value)} as "2006"`;
  const rest = value.slice(head[0].length);
  if (!/^\.\d{6}/.test(rest)) return `${prefix}: cannot parse ${JSON.stringify(rest)} as ".000000"`;
  return `${prefix}: cannot parse ${JSON.stringify(rest.slice(7))} as "Z07:00"`;
}
