/**
 * Discovery documents for `farm.example.com/v1alpha`: legacy (APIGroupList, APIGroup, APIResourceList) and
 * aggregated (`apidiscovery.k8s.io/v2` APIGroupDiscoveryList), which kube-apiserver's aggregator fetches from
 * /apis when the Accept header asks for it.
 * @module
 */
import { FARM_API_VERSION, FARM_GROUP, FARM_VERSION, FARMPODS, type FarmResource, LLAMAS } from "./llama.ts";

/** A JSON document as served. */
export type JsonDocument = Record<string, unknown>;

/** The resources served, in discovery order. */
export const FARM_RESOURCES: FarmResource[] = [LLAMAS, FARMPODS];

const groupVersion = { groupVersion: FARM_API_VERSION, version: FARM_VERSION };

/** The APIGroup for farm.example.com. */
export function apiGroup(): JsonDocument {
  return {
    kind: "APIGroup",
    apiVersion: "v1",
    name: FARM_GROUP,
    versions: [groupVersion],
    preferredVersion: groupVersion,
  };
}

/** GET /apis (legacy). */
export function apiGroupList(): JsonDocument {
  const { kind: _k, apiVersion: _a, ...group } = apiGroup();
  return { kind: "APIGroupList", apiVersion: "v1", groups: [group] };
}

/**
 * GET /apis/farm.example.com/v1alpha.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiResourceList } from "./discovery.ts";
 * assert.ok(apiResourceList().resources[0].kind === "Llama");
 * ```
 */
export function apiResourceList(): JsonDocument & { resources: Array<Record<string, unknown>> } {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: FARM_API_VERSION,
    resources: FARM_RESOURCES.map((r) => ({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      shortNames: r.shortNames,
      categories: r.categories,
    })),
  };
}

/** The content type of aggregated discovery v2. */
export const AGGREGATED_DISCOVERY_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** True when an Accept header asks for aggregated discovery v2 (any position). */
export function wantsAggregatedDiscovery(accept: string | null): boolean {
  return (accept ?? "").split(",").some((part) => {
    const params = part.split(";").map((p) => p.trim());
    return params.includes("g=apidiscovery.k8s.io") && params.includes("v=v2") &&
      params.includes("as=APIGroupDiscoveryList");
  });
}

/** GET /apis with aggregated discovery Accept. */
export function aggregatedDiscovery(): JsonDocument {
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    metadata: {},
    items: [{
      metadata: { name: FARM_GROUP },
      versions: [{
        version: FARM_VERSION,
        freshness: "Current",
        resources: FARM_RESOURCES.map((r) => ({
          resource: r.plural,
          responseKind: { group: r.group, version: r.version, kind: r.kind },
          scope: r.namespaced ? "Namespaced" : "Cluster",
          singularResource: r.singular,
          verbs: r.verbs,
          shortNames: r.shortNames,
          categories: r.categories,
        })),
      }],
    }],
  };
}
