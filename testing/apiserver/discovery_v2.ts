/**
 * Aggregated discovery (`apidiscovery.k8s.io/v2` APIGroupDiscoveryList) for `/api` and `/apis`, served when the
 * client's Accept header asks for it (kubectl and client-go always do): one document carries every group, version
 * and resource, so kubectl needs no per-group-version requests. Aggregated (APIService) group-versions are
 * converted from the backend's legacy APIResourceList; a backend that does not answer is listed as `Stale`.
 * @module
 */
import type { ResourceRegistry } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import { recordedV2Resource } from "./discovery_recorded.ts";

/** The Content-Type of an aggregated discovery v2 response. */
export const DISCOVERY_V2_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** True when the Accept header lists aggregated discovery v2 (`as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2`). */
export function wantsDiscoveryV2(accept: string | null): boolean {
  if (!accept) return false;
  return accept.split(",").some((part) => {
    const [base, ...params] = part.split(";").map((s) => s.trim());
    if (base !== "application/json") return false;
    const p = new Map(params.map((kv) => kv.split("=").map((s) => s.trim()) as [string, string]));
    return p.get("g") === "apidiscovery.k8s.io" && p.get("v") === "v2" && p.get("as") === "APIGroupDiscoveryList";
  });
}

type Json = Record<string, unknown>;

const SUBRESOURCE_VERBS: Record<string, string[]> = {
  status: ["get", "patch", "update"],
  scale: ["get", "patch", "update"],
  log: ["get"],
  binding: ["create"],
  eviction: ["create"],
  finalize: ["update"],
  ephemeralcontainers: ["get", "patch", "update"],
  resize: ["get", "patch", "update"],
};

/** Kinds of built-in subresources that are not the parent's kind. */
const SUBRESOURCE_KINDS: Record<string, Json> = {
  scale: { group: "autoscaling", version: "v1", kind: "Scale" },
  eviction: { group: "policy", version: "v1", kind: "Eviction" },
  binding: { group: "", version: "", kind: "Binding" },
};

/** kube-apiserver leaves group and version empty in built-ins' responseKind (CRDs carry them). */
function kindOf(def: ResourceDef): Json {
  return def.custom
    ? { group: def.group, version: def.version, kind: def.kind }
    : { group: "", version: "", kind: def.kind };
}

/** One APIResourceDiscovery entry for a served resource. */
export function resourceDiscovery(def: ResourceDef): Json {
  // A built-in kube serves: kube's own entry (discovery_recorded.ts).
  const recorded = def.custom ? undefined : recordedV2Resource(def.group, def.version, def.plural);
  if (recorded) return recorded;
  const out: Json = {
    resource: def.plural,
    responseKind: kindOf(def),
    scope: def.namespaced ? "Namespaced" : "Cluster",
    singularResource: def.singular,
    verbs: def.verbs,
  };
  if (def.shortNames?.length) out.shortNames = def.shortNames;
  if (def.categories?.length) out.categories = def.categories;
  if (def.subresources.length) {
    out.subresources = [...def.subresources].sort().map((sub) => ({
      subresource: sub,
      responseKind: SUBRESOURCE_KINDS[sub] ?? kindOf(def),
      verbs: SUBRESOURCE_VERBS[sub] ?? ["get"],
    }));
  }
  return out;
}

/** Converts a legacy APIResourceList (an aggregated backend's answer) to discovery v2 resources. */
export function resourcesFromLegacy(list: unknown, group: string, version: string): Json[] {
  const resources = (list as { resources?: Json[] })?.resources ?? [];
  const byName = new Map<string, Json>();
  for (const r of resources) {
    const name = String(r.name ?? "");
    if (name.includes("/")) continue;
    const entry: Json = {
      resource: name,
      responseKind: { group, version, kind: r.kind },
      scope: r.namespaced ? "Namespaced" : "Cluster",
      singularResource: r.singularName || String(r.kind ?? "").toLowerCase(),
      verbs: r.verbs ?? [],
    };
    if (Array.isArray(r.shortNames) && r.shortNames.length) entry.shortNames = r.shortNames;
    if (Array.isArray(r.categories) && r.categories.length) entry.categories = r.categories;
    byName.set(name, entry);
  }
  for (const r of resources) {
    const [parent, sub] = String(r.name ?? "").split("/");
    const entry = sub ? byName.get(parent) : undefined;
    if (!entry) continue;
    const subs = (entry.subresources ??= []) as Json[];
    subs.push({ subresource: sub, responseKind: { group, version, kind: r.kind }, verbs: r.verbs ?? [] });
  }
  return [...byName.values()];
}

function list(items: Json[]): Json {
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}

/** `/api` as APIGroupDiscoveryList: the core group, v1. */
export function coreDiscoveryV2(registry: ResourceRegistry): Json {
  const resources = registry.forGroupVersion("", "v1").map(resourceDiscovery);
  return list([{
    metadata: { creationTimestamp: null },
    versions: [{ version: "v1", resources, freshness: "Current" }],
  }]);
}

/** An aggregated (APIService) group-version's resources, or undefined when its backend did not answer. */
export type AggregatedResources = Map<string, Json[] | undefined>;

/**
 * `/apis` as APIGroupDiscoveryList. `versionsOf` gives each group's versions in preference order; `aggregated`
 * maps `group/version` to the backend's resources (undefined: Stale).
 */
export function groupsDiscoveryV2(
  registry: ResourceRegistry,
  groups: Array<[string, string[]]>,
  aggregated: AggregatedResources,
): Json {
  const items = groups.filter(([g]) => g !== "").map(([group, versions]) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: versions.map((version) => {
      const gv = `${group}/${version}`;
      if (aggregated.has(gv)) {
        const resources = aggregated.get(gv);
        return { version, resources: resources ?? [], freshness: resources ? "Current" : "Stale" };
      }
      return {
        version,
        resources: registry.forGroupVersion(group, version).map(resourceDiscovery),
        freshness: "Current",
      };
    }),
  }));
  return list(items);
}
