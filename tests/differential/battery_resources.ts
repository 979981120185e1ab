/**
 * What the differential battery knows of a resource: its discovery entry, valid object, names and paths.
 * @module
 */
import { type Sample, SAMPLES } from "./samples.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A resource as discovery lists it. */
export interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** One resource the battery covers: its group/version, discovery entry and valid object. */
export interface BatteryResource {
  group: string;
  version: string;
  res: DiscoveredResource;
  /** Subresources discovery lists for it (status, scale, …). */
  subresources: string[];
  sample?: Sample;
  /** The same group-resource is served in another version too (autoscaling/v1 and v2 HPAs). */
  severalVersions?: boolean;
}

/** The label every battery object carries: `diff-set=<plural>[.<version>][.<group>]` ({@link setOf}). */
export const SET_LABEL = "diff-set";

/**
 * The value of {@link SET_LABEL} for `r`'s objects: `<plural>.<group>` (`<plural>.<version>.<group>` for a resource
 * served in several versions), so that kinds sharing storage (core and events.k8s.io Events, autoscaling/v1 and v2
 * HorizontalPodAutoscalers) do not list or delete each other's objects: their sequences run concurrently.
 */
export function setOf(r: Pick<BatteryResource, "group" | "version" | "res" | "severalVersions">): string {
  if (r.severalVersions) return `${r.res.name}.${r.version}.${r.group}`;
  return r.group ? `${r.res.name}.${r.group}` : r.res.name;
}

/** The resources of a discovery document (`legacy` of testdata/real/discovery.json). */
export function batteryResources(legacy: Record<string, { resources: DiscoveredResource[] }>): BatteryResource[] {
  const out: BatteryResource[] = [];
  for (const [gv, list] of Object.entries(legacy)) {
    const [group, version] = gv.includes("/") ? gv.split("/") : ["", gv];
    for (const res of list.resources) {
      if (res.name.includes("/")) continue;
      const subresources = list.resources.filter((r) => r.name.startsWith(`${res.name}/`))
        .map((r) => r.name.slice(res.name.length + 1));
      out.push({ group, version, res, subresources, sample: SAMPLES[`${group}/${version}/${res.name}`] });
    }
  }
  const versions = (r: BatteryResource) => out.filter((o) => o.group === r.group && o.res.name === r.res.name);
  for (const r of out) if (versions(r).length > 1) r.severalVersions = true;
  return out;
}

/** The names the battery gives objects of `r` (IP addresses, `<version>.<group>` and `<plural>.<group>` where due). */
export function objectName(r: BatteryResource, tag: string): string {
  switch (r.res.name) {
    case "ipaddresses":
      return `10.96.250.${tag.charCodeAt(0) - 96}`;
    case "apiservices":
      return `v1.d${tag}.example.com`;
    case "customresourcedefinitions":
      return `things${tag}.c${tag}.example.com`;
    default:
      return `d-${r.res.name.slice(0, 40)}-${r.version}-${tag}`;
  }
}

/** The apiVersion of `r`. */
export function apiVersion(r: BatteryResource): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

function prefix(r: BatteryResource): string {
  return r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
}

/** The collection path of `r` in `ns`. */
export function collectionPath(r: BatteryResource, ns: string): string {
  return r.res.namespaced ? `${prefix(r)}/namespaces/${ns}/${r.res.name}` : `${prefix(r)}/${r.res.name}`;
}

/** A valid object of `r` named `name` (with the battery's label). */
export function validObject(r: BatteryResource, name: string, ns: string, extraLabels: Record<string, string> = {}) {
  const metadata: Any = { name, labels: { [SET_LABEL]: setOf(r), ...extraLabels } };
  if (r.res.namespaced) metadata.namespace = ns;
  return { apiVersion: apiVersion(r), kind: r.res.kind, metadata, ...(r.sample ? r.sample(name, ns) : {}) };
}

export const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();

/** The battery's namespace for `r` (LimitRanges and ResourceQuotas get their own: they change other creates). */
export function namespaceFor(r: BatteryResource, ns: string, isolated: string): string {
  return r.res.name === "limitranges" || r.res.name === "resourcequotas" ? isolated : ns;
}
