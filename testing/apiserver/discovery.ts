/**
 * Legacy discovery documents built from the resource registry: `/api` (APIVersions), `/api/v1` and
 * `/apis/<g>/<v>` (APIResourceList with subresources), `/apis` (APIGroupList), `/apis/<g>` (APIGroup), and
 * `/version` pinned to the Kubernetes minor the fake claims.
 * @module
 */
import type { ResourceRegistry } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import { recordedLegacyEntries } from "./discovery_recorded.ts";

/** Subresources that read and write the object itself or its Scale: get, patch and update. */
const OBJECT_SUBRESOURCES = new Set(["status", "scale", "ephemeralcontainers", "resize"]);

/** The Kubernetes version the fake server claims (kubectl's version dispatcher picks its binary from it). */
export const FAKE_KUBERNETES_VERSION = { major: "1", minor: "37", gitVersion: "v1.37.2" } as const;

/** `/version`. */
export function versionInfo(): Record<string, string> {
  return {
    ...FAKE_KUBERNETES_VERSION,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2025-04-23T00:00:00Z",
    goVersion: "go1.24.2",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

/** `/api`. */
export function apiVersions(serverAddress: string): unknown {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function resourceEntries(def: ResourceDef): unknown[] {
  // A built-in kube serves: kube's own entries (discovery_recorded.ts).
  const recorded = def.custom ? undefined : recordedLegacyEntries(def.group, def.version, def.plural);
  if (recorded) return recorded;
  const main: Record<string, unknown> = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
  };
  if (def.shortNames?.length) main.shortNames = def.shortNames;
  if (def.categories?.length) main.categories = def.categories;
  if (def.group) main.group = def.group;
  const subs = def.subresources.map((sub) => ({
    name: `${def.plural}/${sub}`,
    singularName: "",
    namespaced: def.namespaced,
    ...(sub === "scale" ? { group: "autoscaling", version: "v1" } : {}),
    kind: sub === "status" ? def.kind : sub === "scale" ? "Scale" : sub === "binding" ? "Binding" : def.kind,
    verbs: OBJECT_SUBRESOURCES.has(sub) ? ["get", "patch", "update"] : sub === "log" ? ["get"] : ["create"],
  }));
  return [main, ...subs];
}

/** `/api/v1` or `/apis/<group>/<version>`; undefined when nothing is served there. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): unknown | undefined {
  const defs = registry.forGroupVersion(group, version);
  if (defs.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: defs.flatMap(resourceEntries),
  };
}

function groupEntry(group: string, versions: string[]): unknown {
  const list = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

function allGroups(registry: ResourceRegistry, aggregated: string[]): Map<string, string[]> {
  const groups = registry.groups();
  for (const gv of aggregated) {
    const [g, v] = gv.split("/");
    const versions = groups.get(g) ?? [];
    if (!versions.includes(v)) versions.push(v);
    groups.set(g, versions);
  }
  return groups;
}

/** Every non-core group with its versions, preferred first (what `/apis` lists). */
export function discoveryGroups(
  registry: ResourceRegistry,
  preferred: (group: string) => string | undefined,
  aggregated: string[] = [],
): Array<[string, string[]]> {
  return [...allGroups(registry, aggregated)].map(([g, versions]) => [g, sortVersions(versions, preferred(g))]);
}

/** `/apis`; `aggregated` lists `group/version`s served through APIServices. */
export function apiGroupList(
  registry: ResourceRegistry,
  preferred: (group: string) => string | undefined,
  aggregated: string[] = [],
): unknown {
  const groups = discoveryGroups(registry, preferred, aggregated).map(([g, versions]) => groupEntry(g, versions));
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** `/apis/<group>`; undefined when the group is not served. */
export function apiGroup(
  registry: ResourceRegistry,
  group: string,
  preferred: (group: string) => string | undefined,
  aggregated: string[] = [],
): unknown | undefined {
  const versions = allGroups(registry, aggregated).get(group);
  if (!versions) return undefined;
  return {
    kind: "APIGroup",
    apiVersion: "v1",
    ...(groupEntry(group, sortVersions(versions, preferred(group))) as object),
  };
}

function sortVersions(versions: string[], preferred: string | undefined): string[] {
  if (!preferred || !versions.includes(preferred)) return versions;
  return [preferred, ...versions.filter((v) => v !== preferred)];
}
