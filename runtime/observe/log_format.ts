/**
 * Log line formatters in zap's shape, so the tooling that reads controller-runtime logs reads kubeop's too: a flat
 * JSON object per line (`ts`, `level`, `logger`, `msg`, then the fields: `controller`, `controllerGroup`,
 * `controllerKind`, `namespace`, `name`, `reconcileID`, `error`, …) and a text line that shows the same fields as
 * `key=value` after the message. An `Error` renders as its message, in the message and in fields alike, never as
 * `{}`; its stack is added as `stacktrace` only when asked for (debug level).
 * @module
 */

import type { LogLevel, LogRecord } from "./log_types.ts";

/** A function from a log record to one formatted line (with its trailing newline). */
export type LineFormatter = (record: LogRecord) => string;

/** Options for {@link zapJsonFormatter} and {@link keyValueTextFormatter}. */
export interface LineFormatterOptions {
  /** Adds `stacktrace` (the stack of an `error` field that is an Error). Default false; on at debug level. */
  includeStack?: boolean;
}

/** zap's level names (`warning` → `warn`). */
export function zapLevel(level: LogLevel): string {
  return level === "warning" ? "warn" : level;
}

/** The logger name: the category joined with dots, as logr names nested loggers (`kubeop.controller.machine`). */
export function loggerName(record: LogRecord): string {
  return record.category.join(".");
}

/**
 * Renders one message value: strings as they are, an Error as its message, anything else as JSON (with nested
 * Errors as their messages), so a reader never sees `{}` or `[object Object]`.
 */
export function renderValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.message;
  if (value === undefined || typeof value === "bigint" || typeof value === "symbol" || typeof value === "function") {
    return String(value);
  }
  try {
    return JSON.stringify(value, errorReplacer) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The message with its interpolated values rendered by {@link renderValue}. */
export function renderMessage(record: LogRecord): string {
  let out = "";
  record.message.forEach((part, i) => out += i % 2 === 0 ? String(part) : renderValue(part));
  return out;
}

/** The record's properties as flat top-level fields: Errors become their message, the rest stays as it is. */
export function flatFields(record: LogRecord, opts: LineFormatterOptions = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let stack: string | undefined;
  for (const [k, v] of Object.entries(record.properties)) {
    if (v === undefined) continue;
    if (v instanceof Error) {
      fields[k] = v.message;
      if (k === "error") stack = v.stack;
    } else fields[k] = v;
  }
  if (opts.includeStack && stack) fields.stacktrace = stack;
  return fields;
}

/**
 * One JSON object per line, flat, in zap's production shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { zapJsonFormatter } from "./log_format.ts";
 * const line = zapJsonFormatter()({
 *   category: ["kubeop", "controller"],
 *   level: "error",
 *   message: ["reconcile failed: ", new Error("boom"), ""],
 *   rawMessage: "reconcile failed: {error}",
 *   timestamp: 0,
 *   properties: { controller: "machine", namespace: "ns", name: "a", error: new Error("boom") },
 * });
 * const rec = JSON.parse(line);
 * assert.equal(rec.ts, "1970-01-01T00:00:00.000Z");
 * assert.equal(rec.msg, "reconcile failed: boom");
 * assert.equal(rec.error, "boom");
 * assert.equal(rec.name, "a");
 * ```
 */
export function zapJsonFormatter(opts: LineFormatterOptions = {}): LineFormatter {
  return (record) => {
    const line: Record<string, unknown> = {
      ts: new Date(record.timestamp).toISOString(),
      level: zapLevel(record.level),
      logger: loggerName(record),
      msg: renderMessage(record),
    };
    for (const [k, v] of Object.entries(flatFields(record, opts))) if (!(k in line)) line[k] = v;
    return JSON.stringify(line, errorReplacer) + "\n";
  };
}

/**
 * A human-readable line: `ts LEVEL logger msg key=value …`, values quoted when they contain spaces or quotes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyValueTextFormatter } from "./log_format.ts";
 * const line = keyValueTextFormatter()({
 *   category: ["kubeop", "controller"],
 *   level: "error",
 *   message: ["reconcile failed: ", new Error("no route"), ""],
 *   rawMessage: "reconcile failed: {error}",
 *   timestamp: 0,
 *   properties: { namespace: "ns", name: "a", error: new Error("no route") },
 * });
 * assert.equal(line, '1970-01-01T00:00:00.000Z ERROR kubeop.controller reconcile failed: no route namespace=ns name=a error="no route"\n');
 * ```
 */
export function keyValueTextFormatter(opts: LineFormatterOptions = {}): LineFormatter {
  return (record) => {
    const pairs = Object.entries(flatFields(record, opts)).map(([k, v]) => `${k}=${quote(renderValue(v))}`);
    const head = `${new Date(record.timestamp).toISOString()} ${zapLevel(record.level).toUpperCase()} ${
      loggerName(record)
    } ${renderMessage(record)}`;
    return (pairs.length ? `${head} ${pairs.join(" ")}` : head) + "\n";
  };
}

function quote(s: string): string {
  return s === "" || /[\s"=\\]/.test(s) ? JSON.stringify(s) : s;
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}
