/**
 * The logging vocabulary: levels, the {@link Logger} kubeop hands out, the {@link LogRecord} a sink receives. Types
 * only, shared by the logging setup (./log.ts) and the line formatters (./log_format.ts).
 * @module
 */

/** Severity, lowest first (logtape's levels). */
export type LogLevel = "trace" | "debug" | "info" | "warning" | "error" | "fatal";

/** Structured fields of a log record. */
export type LogProperties = Record<string, unknown>;

/**
 * The logger kubeop hands out (`ctx.log` in a reconcile): logtape's Logger, reduced to the methods kubeop uses. The
 * message is a template whose `{name}` placeholders are filled from `properties`.
 */
export interface Logger {
  /** The category, e.g. `["kubeop", "controller", "machine"]`. */
  readonly category: readonly string[];
  /** A logger one level down, e.g. `getChild("watch")` or `getChild(["controller", "x"])`. */
  getChild(subcategory: string | readonly [string, ...string[]]): Logger;
  /** A logger whose records all carry `properties`. */
  with(properties: LogProperties): Logger;
  /** Logs at trace level. */
  trace(message: string, properties?: LogProperties): void;
  /** Logs at debug level. */
  debug(message: string, properties?: LogProperties): void;
  /** Logs at info level. */
  info(message: string, properties?: LogProperties): void;
  /** Logs at warning level. */
  warn(message: string, properties?: LogProperties): void;
  /** Logs at error level. */
  error(message: string, properties?: LogProperties): void;
  /** Logs at fatal level. */
  fatal(message: string, properties?: LogProperties): void;
}

/** One log record as a sink receives it (logtape's LogRecord). */
export interface LogRecord {
  /** Category of the logger that wrote it. */
  readonly category: readonly string[];
  /** Its level. */
  readonly level: LogLevel;
  /** The message, template parts at even indexes and interpolated values at odd ones. */
  readonly message: readonly unknown[];
  /** The template as written. */
  readonly rawMessage: string | TemplateStringsArray;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  /** Structured fields. */
  readonly properties: LogProperties;
}

/** Receives every record that passes the level filter. */
export type Sink = (record: LogRecord) => void;
