/**
 * Structured logging on @logtape/logtape: one configuration per process (json or text lines on stderr, a level), a
 * child logger per reconcile carrying `{controller, key, reconcileID}`, and a redaction pass in front of every sink
 * so Secret `data`/`stringData` and credentials never reach a log line.
 * @module
 */

import {
  configure,
  getJsonLinesFormatter,
  getLogger,
  getTextFormatter,
  type Logger,
  type LogLevel,
  type LogRecord,
  type Sink,
} from "@logtape/logtape";

export type { Logger, LogLevel, LogRecord };

/** The root category of every kubeop logger. */
export const ROOT_CATEGORY = "kubeop";

/** Replaces redacted values. */
export const REDACTED = "[REDACTED]";

/** Options for {@link configureLogging}. */
export interface LoggingOptions {
  /** `json`: one JSON object per line (default). `text`: human-readable lines. */
  format?: "json" | "text";
  /** Lowest level written. Default "info". */
  level?: LogLevel;
  /** Where lines go. Default: stderr. */
  write?: (line: string) => void;
  /** Replaces the formatted stream sink entirely (tests pass {@link captureSink}'s sink). */
  sink?: Sink;
}

/**
 * Configures logging for this process (replacing any earlier configuration). Every sink sees redacted records.
 *
 * @example
 * ```ts
 * import { captureSink, configureLogging, kubeopLogger } from "./log.ts";
 * const capture = captureSink();
 * await configureLogging({ sink: capture.sink, level: "debug" });
 * kubeopLogger("example").info("token {token}", { token: "abc" });
 * console.assert(capture.records[0].properties.token === "[REDACTED]");
 * ```
 */
export async function configureLogging(opts: LoggingOptions = {}): Promise<void> {
  let sink = opts.sink;
  if (!sink) {
    const formatter = opts.format === "text" ? getTextFormatter() : getJsonLinesFormatter();
    const encoder = new TextEncoder();
    const write = opts.write ?? ((line: string) => Deno.stderr.writeSync(encoder.encode(line)));
    sink = (record) => write(formatter(record));
  }
  await configure({
    reset: true,
    sinks: { main: redactingSink(sink) },
    loggers: [
      { category: [ROOT_CATEGORY], sinks: ["main"], lowestLevel: opts.level ?? "info" },
      { category: ["logtape", "meta"], sinks: ["main"], lowestLevel: "warning" },
    ],
  });
}

/** A logger under the `kubeop` category, e.g. `kubeopLogger("controller", "machine")`. */
export function kubeopLogger(...category: string[]): Logger {
  return getLogger([ROOT_CATEGORY, ...category]);
}

/** The fields every reconcile log line carries. */
export interface ReconcileLogFields {
  /** Controller name. */
  controller: string;
  /** The object key being reconciled. */
  key: string;
  /** Unique per reconcile. */
  reconcileID: string;
}

/** A child of `base` whose records carry `controller`, `key` and `reconcileID`. */
export function reconcileLogger(base: Logger, fields: ReconcileLogFields): Logger {
  return base.with({ ...fields });
}

/** A sink that keeps records in memory (tests). */
export function captureSink(): { sink: Sink; records: LogRecord[]; lines(): string[] } {
  const records: LogRecord[] = [];
  const format = getJsonLinesFormatter();
  return { sink: (r) => void records.push(r), records, lines: () => records.map((r) => format(r)) };
}

/** Wraps `sink` so it only ever sees {@link redact}ed records. */
export function redactingSink(sink: Sink): Sink {
  return (record) =>
    sink({
      ...record,
      message: record.message.map((v) => redact(v)),
      properties: redact(record.properties) as Record<string, unknown>,
    });
}

const SECRET_KEY =
  /token|password|passwd|secret[-_]?key|authorization|credential|client[-_]?key|keypem|private[-_]?key/i;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * A copy of `value` without credentials: values of keys that name a token, password or key; `data`/`stringData`
 * (and the last-applied annotation) of any object of kind Secret; `Bearer …` inside strings. Depth-limited and
 * cycle-safe.
 */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>(), inSecretList = false): unknown {
  if (typeof value === "string") return value.replace(BEARER, `$1 ${REDACTED}`);
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Error || value instanceof Date || ArrayBuffer.isView(value)) return value;
  if (seen.has(value) || depth > 12) return "[…]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen, inSecretList));
  const obj = value as Record<string, unknown>;
  // List items carry no kind: inside a SecretList every item is a Secret.
  const isSecret = obj.kind === "Secret" || (inSecretList && obj.kind === undefined);
  const isSecretList = obj.kind === "SecretList";
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (SECRET_KEY.test(k) && (typeof v === "string" || typeof v === "number")) out[k] = REDACTED;
    else if (isSecret && (k === "data" || k === "stringData") && v && typeof v === "object") {
      out[k] = Object.fromEntries(Object.keys(v).map((name) => [name, REDACTED]));
    } else if (k === LAST_APPLIED) out[k] = REDACTED;
    else out[k] = redact(v, depth + 1, seen, isSecretList && k === "items");
  }
  return out;
}
