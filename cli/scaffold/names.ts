/**
 * The names a scaffold derives from `--group`, `--version`, `--kind` and the project directory, validated as
 * kube-apiserver would (a usage error names the flag): the plural, the file and identifier names, the project's
 * operator names.
 * @module
 */

import { UsageError } from "../flags.ts";

/** One API kind of a project, as `kubeop init` / `kubeop create api` record it. */
export interface KindSpec {
  /** API group, a DNS subdomain with at least one dot (`example.com`). */
  group: string;
  /** API version (`v1`, `v1alpha1`, `v2beta3`): the first one, the storage version (and the conversion hub). */
  version: string;
  /** Versions added later by `kubeop create api` on the same kind: served, not stored, in the order added. */
  servedVersions?: string[];
  /** Kind, UpperCamelCase (`Widget`). */
  kind: string;
  /** Cluster-scoped instead of namespaced. */
  clusterScoped: boolean;
  /** Webhooks added by `kubeop create webhook`: admission, and conversion between the kind's versions. */
  webhooks?: { validate: boolean; default: boolean; convert?: boolean };
}

/** What the templates use of a kind. */
export interface KindNames extends KindSpec {
  /** Plural resource name (`widgets`). */
  plural: string;
  /** Lower-case kind: the folder under controllers/ and the controller's name (`widget`). */
  lower: string;
  /** lowerCamelCase kind, for identifiers (`widget`, `myThing`). */
  camel: string;
  /** The served-only versions, each with its identifier suffix (`v1beta1` → `V1beta1`). */
  spokes: { version: string; ident: string }[];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks a kind's flags; throws a {@link UsageError} naming the bad one.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { kindNames } from "./names.ts";
 * const k = kindNames("init", { group: "demo.example.com", version: "v1alpha1", kind: "Policy", clusterScoped: false });
 * assert.equal(k.plural, "policies");
 * assert.throws(() => kindNames("init", { group: "demo", version: "v1", kind: "P", clusterScoped: false }), /--group/);
 * ```
 */
export function kindNames(command: string, spec: KindSpec): KindNames {
  const labels = spec.group.split(".");
  if (spec.group.length > 253 || labels.length < 2 || !labels.every((l) => DNS_LABEL.test(l))) {
    throw new UsageError(
      `kubeop ${command}: flag --group must be a DNS subdomain with a dot, e.g. demo.example.com, got "${spec.group}"`,
    );
  }
  for (const version of [spec.version, ...spec.servedVersions ?? []]) {
    if (!/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(version)) {
      throw new UsageError(
        `kubeop ${command}: flag --version must look like v1, v1alpha1 or v2beta3, got "${version}"`,
      );
    }
  }
  if (!/^[A-Z][A-Za-z0-9]{0,62}$/.test(spec.kind)) {
    throw new UsageError(`kubeop ${command}: flag --kind must be UpperCamelCase, e.g. Widget, got "${spec.kind}"`);
  }
  const lower = spec.kind.toLowerCase();
  const spokes = (spec.servedVersions ?? []).map((version) => ({
    version,
    ident: version[0].toUpperCase() + version.slice(1),
  }));
  return { ...spec, plural: pluralOf(lower), lower, camel: spec.kind[0].toLowerCase() + spec.kind.slice(1), spokes };
}

/** English plural of a lower-case kind, as kubebuilder guesses it (`policy` → `policies`, `class` → `classes`). */
export function pluralOf(lower: string): string {
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/**
 * The project name from its directory: the last path segment, which must be a DNS label (it names the namespace,
 * ServiceAccount and roles: `<name>-system`, `<name>-controller`).
 */
export function projectName(dir: string): string {
  const name = dir.replace(/\/+$/, "").split("/").pop() ?? "";
  if (!DNS_LABEL.test(name) || name.length > 40) {
    throw new UsageError(
      `kubeop init: the directory's name names the operator and must be a lower-case DNS label (a-z, 0-9, -) of at most 40 characters, got "${name}"`,
    );
  }
  return name;
}
