/**
 * The fake server's feature gates: the kube-apiserver gates whose behaviour it implements both ways, with their
 * defaults (v1.37's; v1.38's for gates v1.37 does not have), parsed from `--feature-gates` as kube-apiserver spells
 * them (`Name=true,Other=false`).
 * @module
 */

/** The gates the fake implements (each switchable, as on a real v1.37 kube-apiserver). */
export interface FeatureGates {
  /** KEP-5866 `shardSelector` on list and watch with the `metadata.shardInfo` echo; alpha in v1.36 and v1.37: off. */
  ShardedListAndWatch: boolean;
  /**
   * KEP-5958 `Accept: ...;drop=metadata.managedFields`: responses (get, list, watch, writes) without
   * `metadata.managedFields`; alpha in v1.38 (not in v1.37): off, and the parameter is then ignored.
   */
  ManagedFieldsOptOut: boolean;
}

/** The name of a gate the fake implements. */
export type FeatureGateName = keyof FeatureGates;

/** The defaults: every gate off, as in v1.37 (and ManagedFieldsOptOut in v1.38). */
export const DEFAULT_FEATURE_GATES: Readonly<FeatureGates> = Object.freeze({
  ShardedListAndWatch: false,
  ManagedFieldsOptOut: false,
});

/**
 * Parses a `--feature-gates` value (`A=true,B=false`) over the defaults. Throws, with kube's wording, for a gate the
 * fake does not implement or a value that is not a boolean.
 *
 * @example
 * ```ts
 * import { parseFeatureGates } from "./feature_gates.ts";
 * parseFeatureGates("ShardedListAndWatch=true").ShardedListAndWatch; // true
 * ```
 */
export function parseFeatureGates(value: string): FeatureGates {
  const gates: FeatureGates = { ...DEFAULT_FEATURE_GATES };
  for (const part of value.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    if (eq < 0) throw new Error(`missing bool value for ${item}`);
    const name = item.slice(0, eq).trim();
    const raw = item.slice(eq + 1).trim();
    if (!(name in DEFAULT_FEATURE_GATES)) throw new Error(`unrecognized feature gate: ${name}`);
    const parsed = parseGoBool(raw);
    if (parsed === undefined) throw new Error(`invalid value of ${name}=${raw}, err: strconv.ParseBool`);
    gates[name as FeatureGateName] = parsed;
  }
  return gates;
}

/** strconv.ParseBool. */
function parseGoBool(raw: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(raw)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(raw)) return false;
  return undefined;
}
