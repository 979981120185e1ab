/**
 * Command-line flag parsing on node:util parseArgs, with Go's boolean flag syntax on top (`--leader-elect=true`,
 * `--flag=false`, as Helm values and existing manifests write them). A usage error is a {@link UsageError} whose
 * one-line message starts with the command (`prefix`, e.g. `kubeop run` or `my-operator run`) and names the flag; a
 * program prints it and exits 2. kubeop's own CLI and the `run` of a `kubeop init` project parse with it.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A command-line mistake; exit code 2. */
export class UsageError extends Error {
  /** `message` starts with the command and names the flag. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Option spec for one subcommand. */
export type FlagSpec = NonNullable<ParseArgsConfig["options"]>;

/** Parsed flag values. */
export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * Parses `args` strictly against `spec`; unknown flags, missing values and positionals are usage errors. A boolean
 * flag also takes Go's `--name=value` form with the values Go's strconv.ParseBool accepts (1, t, T, TRUE, true,
 * True, 0, f, F, FALSE, false, False); the last occurrence of a flag wins.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFlags } from "./parse_flags.ts";
 * const spec = { "leader-elect": { type: "boolean" as const } };
 * assert.equal(parseFlags("my-operator run", ["--leader-elect=true"], spec)["leader-elect"], true);
 * assert.equal(parseFlags("my-operator run", ["--leader-elect", "--leader-elect=false"], spec)["leader-elect"], false);
 * ```
 */
export function parseFlags(prefix: string, args: string[], spec: FlagSpec): FlagValues {
  try {
    const { args: plain, booleans } = goBooleans(prefix, args, spec);
    const { values, positionals } = parseArgs({ args: plain, options: spec, strict: true, allowPositionals: true });
    if (positionals.length > 0) {
      throw new UsageError(`${prefix}: unexpected argument "${positionals[0]}"`);
    }
    return { ...values, ...booleans } as FlagValues;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    const unknown = /^Unknown option '([^']+)'/.exec(msg);
    if (unknown) throw new UsageError(`${prefix}: unknown flag ${unknown[1]} (see ${prefix} --help)`);
    throw new UsageError(`${prefix}: ${msg.split("\n")[0]}`);
  }
}

const GO_TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const GO_FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/**
 * Takes Go-style `--name=value` boolean flags out of `args`: each boolean flag's final value (bare `--name` counts
 * as true), and the remaining args for parseArgs. Stops at `--`.
 */
function goBooleans(
  prefix: string,
  args: string[],
  spec: FlagSpec,
): { args: string[]; booleans: Record<string, boolean> } {
  const booleans: Record<string, boolean> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    const m = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    const name = m?.[1];
    if (!m || !name || spec[name]?.type !== "boolean") {
      rest.push(arg);
      continue;
    }
    const raw = m[2];
    if (raw === undefined || GO_TRUE.has(raw)) booleans[name] = true;
    else if (GO_FALSE.has(raw)) booleans[name] = false;
    else throw new UsageError(`${prefix}: flag --${name} takes true or false, got "${raw}"`);
  }
  return { args: rest, booleans };
}

/** Reads a flag that must be a non-negative integer. */
export function intFlag(prefix: string, values: FlagValues, name: string, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new UsageError(`${prefix}: flag --${name} must be a non-negative integer, got "${raw}"`);
  }
  return n;
}

/** Reads a flag restricted to a set of values. */
export function enumFlag<T extends string>(
  prefix: string,
  values: FlagValues,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = values[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== "string" || !(allowed as readonly string[]).includes(raw)) {
    throw new UsageError(`${prefix}: flag --${name} must be one of ${allowed.join("|")}, got "${raw}"`);
  }
  return raw as T;
}

/** Reads a string flag. */
export function stringFlag(values: FlagValues, name: string): string | undefined {
  const raw = values[name];
  return typeof raw === "string" ? raw : undefined;
}

/** Reads a repeatable and/or comma-separated string flag. */
export function listFlag(values: FlagValues, name: string): string[] {
  const raw = values[name];
  const items = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return items.flatMap((v) => String(v).split(",")).map((s) => s.trim()).filter(Boolean);
}

/** Values `--log-level` accepts (logtape's levels; `warn` is an alias of `warning`). */
export const LOG_LEVELS = ["trace", "debug", "info", "warning", "warn", "error", "fatal"] as const;

/** Reads `--log-level`, mapping `warn` to logtape's `warning`. */
export function logLevelFlag(
  prefix: string,
  values: FlagValues,
): "trace" | "debug" | "info" | "warning" | "error" | "fatal" {
  const level = enumFlag(prefix, values, "log-level", LOG_LEVELS, "info");
  return level === "warn" ? "warning" : level;
}
