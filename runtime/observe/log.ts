/**
 * Structured logging on @logtape/logtape: one configuration per process (zap-shaped JSON or key=value text lines on
 * stderr, a level), a child logger per reconcile carrying the object and controller fields controller-runtime logs
 * (`controller`, `controllerGroup`, `controllerKind`, `namespace`, `name`, `reconcileID`), and a redaction pass in
 * front of every sink so Secret `data`/`stringData` and credentials never reach a log line — in fields and in the
 * values interpolated into messages alike. When the application configured nothing, `Manager.start()` turns
 * on {@link ensureDefaultLogging} (info, text; no constructor does); a configuration the application made is never
 * replaced.
 * @module
 */

import { type Config, configure, configureSync, getConfig, getLogger } from "@logtape/logtape";
import { keyValueTextFormatter, type LineFormatter, zapJsonFormatter } from "./log_format.ts";

import type { Logger, LogLevel, LogRecord, Sink } from "./log_types.ts";

export type { Logger, LogLevel, LogProperties, LogRecord, Sink } from "./log_types.ts";

/** The root category of every kubeop logger. */
export const ROOT_CATEGORY = "kubeop";

/** Replaces redacted values. */
export const REDACTED = "[REDACTED]";

/** Options for {@link configureLogging}. */
export interface LoggingOptions {
  /** `json`: one flat zap-shaped JSON object per line (default). `text`: `ts LEVEL logger msg key=value …`. */
  format?: "json" | "text";
  /** Lowest level written. Default "info". At "debug" and "trace" an error field also carries its `stacktrace`. */
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
 * import assert from "node:assert/strict";
 * import { reset } from "@logtape/logtape";
 * import { captureSink, configureLogging, kubeopLogger } from "./log.ts";
 * const capture = captureSink();
 * await configureLogging({ sink: capture.sink, level: "debug" });
 * kubeopLogger("example").info("token {token}", { token: "abc" });
 * assert.equal(capture.records[0].properties.token, "[REDACTED]");
 * assert.equal(capture.lines()[0].includes("abc"), false);
 * await reset();
 * ```
 */
export async function configureLogging(opts: LoggingOptions = {}): Promise<void> {
  await configure(loggingConfig(opts));
}

/** The configuration {@link ensureDefaultLogging} installed (logtape's getConfig() returns that very object). */
let defaultConfig: Config<"main", string> | undefined;

/**
 * Turns logging on (info, text lines on stderr) when nothing in the process configured @logtape/logtape yet, as
 * controller-runtime users expect a manager to log without setup. A configuration made by the application (through
 * {@link configureLogging} or logtape's own `configure`) is left alone. Returns whether it configured logging.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reset } from "@logtape/logtape";
 * import { captureSink, configureLogging, ensureDefaultLogging } from "./log.ts";
 * await configureLogging({ sink: captureSink().sink });
 * assert.equal(ensureDefaultLogging(), false); // the application's configuration stays
 * await reset();
 * ```
 */
export function ensureDefaultLogging(): boolean {
  if (getConfig() !== null) return false;
  defaultConfig = loggingConfig({ format: "text", level: "info" });
  configureSync(defaultConfig);
  return true;
}

/** Whether the current configuration is the one {@link ensureDefaultLogging} made. */
export function isDefaultLogging(): boolean {
  return defaultConfig !== undefined && getConfig() === defaultConfig;
}

function loggingConfig(opts: LoggingOptions): Config<"main", string> {
  const level = opts.level ?? "info";
  let sink = opts.sink;
  if (!sink) {
    const includeStack = level === "debug" || level === "trace";
    const formatter: LineFormatter = opts.format === "text"
      ? keyValueTextFormatter({ includeStack })
      : zapJsonFormatter({ includeStack });
    const encoder = new TextEncoder();
    const write = opts.write ?? ((line: string) => Deno.stderr.writeSync(encoder.encode(line)));
    sink = (record) => write(formatter(record));
  }
  return {
    reset: true,
    sinks: { main: redactingSink(sink) },
    loggers: [
      { category: [ROOT_CATEGORY], sinks: ["main"], lowestLevel: level },
      { category: ["logtape", "meta"], sinks: ["main"], lowestLevel: "warning" },
    ],
  };
}

/** A logger under the `kubeop` category, e.g. `kubeopLogger("controller", "machine")`. */
export function kubeopLogger(...category: string[]): Logger {
  return getLogger([ROOT_CATEGORY, ...category]);
}

/** The fields every reconcile log line carries, named as controller-runtime names them. */
export interface ReconcileLogFields {
  /** Controller name. */
  controller: string;
  /** API group of the reconciled kind ("" for the core group). */
  controllerGroup: string;
  /** Kind the controller reconciles. */
  controllerKind: string;
  /** Namespace of the object; omitted for cluster-scoped objects. */
  namespace?: string;
  /** Name of the object. */
  name: string;
  /** Unique per reconcile. */
  reconcileID: string;
}

/**
 * A child of `base` whose records carry the {@link ReconcileLogFields}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reset } from "@logtape/logtape";
 * import { captureSink, configureLogging, kubeopLogger, reconcileLogger } from "./log.ts";
 * const capture = captureSink();
 * await configureLogging({ sink: capture.sink });
 * const fields = { controller: "at", controllerGroup: "cnat.ishankhare.dev", controllerKind: "At" };
 * reconcileLogger(kubeopLogger("controller"), { ...fields, namespace: "ns", name: "a", reconcileID: "r1" })
 *   .info("reconciled");
 * assert.equal(JSON.parse(capture.lines()[0]).name, "a");
 * await reset();
 * ```
 */
export function reconcileLogger(base: Logger, fields: ReconcileLogFields): Logger {
  const { namespace, ...rest } = fields;
  return base.with(namespace ? { ...rest, namespace } : rest);
}

/** What {@link captureSink} returns: the sink, the records it kept, and those records as zap JSON lines. */
export interface CapturedLogs {
  /** Pass to {@link configureLogging}'s `sink`. */
  sink: Sink;
  /** Every (redacted) record, in order. */
  records: LogRecord[];
  /** The records formatted as the JSON format writes them (one string per record, with its newline). */
  lines(): string[];
}

/**
 * A sink that keeps records in memory (tests).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { captureSink } from "./log.ts";
 * const capture = captureSink();
 * assert.deepEqual(capture.records, []);
 * ```
 */
export function captureSink(): CapturedLogs {
  const records: LogRecord[] = [];
  const format = zapJsonFormatter();
  return { sink: (r) => void records.push(r), records, lines: () => records.map((r) => format(r)) };
}

/**
 * Wraps `sink` so it only ever sees {@link redact}ed records: properties, and the values interpolated into the
 * message (a value is redacted by its placeholder's name as a property is by its key).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type LogRecord, redactingSink } from "./log.ts";
 * const seen: LogRecord[] = [];
 * redactingSink((r) => void seen.push(r))({
 *   category: ["kubeop"], level: "info", timestamp: 0,
 *   rawMessage: "login with {password}", message: ["login with ", "hunter2", ""], properties: { password: "hunter2" },
 * });
 * assert.deepEqual(seen[0].message, ["login with ", "[REDACTED]", ""]);
 * ```
 */
export function redactingSink(sink: Sink): Sink {
  return (record) => {
    const names = typeof record.rawMessage === "string" ? placeholderNames(record.rawMessage) : [];
    sink({
      ...record,
      message: record.message.map((v, i) => i % 2 === 0 ? v : redactNamed(names[(i - 1) / 2], v)),
      properties: redact(record.properties) as Record<string, unknown>,
    });
  };
}

/** The placeholder names of a logtape message template, in order (`{{` and `}}` are escapes). */
function placeholderNames(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/\{\{|\}\}|\{([^{}]*)\}/g)) if (m[1] !== undefined) names.push(m[1].trim());
  return names;
}

function redactNamed(name: string | undefined, value: unknown): unknown {
  const key = name?.split(/[.[\]]/).filter(Boolean).pop();
  if (key && SECRET_KEY.test(key) && (typeof value === "string" || typeof value === "number")) return REDACTED;
  return redact(value);
}

const SECRET_KEY =
  /token|password|passwd|secret[-_]?key|authorization|credential|client[-_]?key|keypem|private[-_]?key/i;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The error itself, or a copy whose message and stack carry no `Bearer …` credential. */
function redactError(err: Error): Error {
  const message = err.message.replace(BEARER, `$1 ${REDACTED}`);
  const stack = err.stack?.replace(BEARER, `$1 ${REDACTED}`);
  if (message === err.message && stack === err.stack) return err;
  const copy = new Error(message);
  copy.name = err.name;
  copy.stack = stack;
  return copy;
}

/**
 * A copy of `value` without credentials: values of keys that name a token, password or key; `data`/`stringData`
 * (and the last-applied annotation) of any object of kind Secret; `Bearer …` inside strings. Depth-limited and
 * cycle-safe.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redact } from "./log.ts";
 * const secret = { kind: "Secret", metadata: { name: "db" }, data: { password: "aHVudGVyMg==" } };
 * assert.deepEqual(redact(secret), { kind: "Secret", metadata: { name: "db" }, data: { password: "[REDACTED]" } });
 * ```
 */
export function redact(
  value: unknown,
  depth = 0,
  seen: WeakSet<object> = new WeakSet<object>(),
  inSecretList = false,
): unknown {
  if (typeof value === "string") return value.replace(BEARER, `$1 ${REDACTED}`);
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Error) return redactError(value);
  if (value instanceof Date || ArrayBuffer.isView(value)) return value;
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
