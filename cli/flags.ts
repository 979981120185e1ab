/**
 * kubeop's subcommand flags: runtime/flags/parse_flags.ts (Go's boolean syntax on node:util parseArgs) with every
 * message starting `kubeop <command>:`. A usage error is a {@link UsageError}: main.ts prints its one-line message
 * (which names the flag) and exits 2.
 * @module
 */
import * as base from "../runtime/flags/parse_flags.ts";
import type { FlagSpec, FlagValues } from "../runtime/flags/parse_flags.ts";

export {
  type FlagSpec,
  type FlagValues,
  listFlag,
  LOG_LEVELS,
  stringFlag,
  UsageError,
} from "../runtime/flags/parse_flags.ts";

/**
 * Parses `kubeop <command>`'s `args` strictly against `spec` (runtime/flags/parse_flags.ts's parseFlags).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFlags } from "./flags.ts";
 * const spec = { "leader-elect": { type: "boolean" as const } };
 * assert.equal(parseFlags("run", ["--leader-elect=true"], spec)["leader-elect"], true);
 * assert.equal(parseFlags("run", ["--leader-elect", "--leader-elect=false"], spec)["leader-elect"], false);
 * assert.throws(() => parseFlags("run", ["--bogus"], spec), /^UsageError: kubeop run: unknown flag --bogus/);
 * ```
 */
export function parseFlags(command: string, args: string[], spec: FlagSpec): FlagValues {
  return base.parseFlags(`kubeop ${command}`, args, spec);
}

/** Reads a flag of `kubeop <command>` that must be a non-negative integer. */
export function intFlag(command: string, values: FlagValues, name: string, fallback: number): number {
  return base.intFlag(`kubeop ${command}`, values, name, fallback);
}

/** Reads a flag of `kubeop <command>` restricted to a set of values. */
export function enumFlag<T extends string>(
  command: string,
  values: FlagValues,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  return base.enumFlag(`kubeop ${command}`, values, name, allowed, fallback);
}

/** Reads `--log-level` of `kubeop <command>`, mapping `warn` to logtape's `warning`. */
export function logLevelFlag(command: string, values: FlagValues): ReturnType<typeof base.logLevelFlag> {
  return base.logLevelFlag(`kubeop ${command}`, values);
}
