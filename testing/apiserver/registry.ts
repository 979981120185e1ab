/**
 * The served resources: built-ins plus CRD-added definitions, looked up by URL (group, version, plural), by kind, and
 * mapped to their storage bucket (events.k8s.io/v1 events share the core events bucket).
 * @module
 */
import { resourceId } from "../../runtime/apimachinery/names.ts";
import { BUILTIN_RESOURCES } from "./builtin_resources.ts";
import type { ResourceDef } from "./resource_def.ts";

/** Where objects of a resource live: `group/plural` (events of both groups share `/events`). */
export function storageKeyOf(def: Pick<ResourceDef, "group" | "plural">): string {
  if (def.group === "events.k8s.io" && def.plural === "events") return "/events";
  return `${def.group}/${def.plural}`;
}

/** `plural` for core, else `plural.group`: how Status messages name a resource. */
export const qualifiedResource: (def: Pick<ResourceDef, "group" | "plural">) => string = resourceId;

/** The mutable set of served resources. Every change bumps {@link ResourceRegistry.generation}. */
export class ResourceRegistry {
  #byPath = new Map<string, ResourceDef>();
  #generation = 0;

  constructor(defs: readonly ResourceDef[] = BUILTIN_RESOURCES) {
    for (const d of defs) this.add(d);
  }

  /** Changes whenever a definition is added or removed (discovery and OpenAPI hashes use it). */
  get generation(): number {
    return this.#generation;
  }

  /** Adds or replaces a definition. */
  add(def: ResourceDef): void {
    this.#byPath.set(`${def.group}/${def.version}/${def.plural}`, def);
    this.#generation++;
  }

  /** Removes a definition. */
  remove(group: string, version: string, plural: string): void {
    if (this.#byPath.delete(`${group}/${version}/${plural}`)) this.#generation++;
  }

  /** The definition served at `/apis/<group>/<version>/<plural>`. */
  lookup(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.#byPath.get(`${group}/${version}/${plural}`);
  }

  /** Any served version of `group/plural` (the first found). */
  lookupAnyVersion(group: string, plural: string): ResourceDef | undefined {
    for (const d of this.#byPath.values()) if (d.group === group && d.plural === plural) return d;
    return undefined;
  }

  /** Every definition. */
  all(): ResourceDef[] {
    return [...this.#byPath.values()];
  }

  /** The definitions of one group-version. */
  forGroupVersion(group: string, version: string): ResourceDef[] {
    return this.all().filter((d) => d.group === group && d.version === version);
  }

  /** Groups (excluding core) with their versions, in insertion order. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const d of this.#byPath.values()) {
      if (!d.group) continue;
      const versions = out.get(d.group) ?? [];
      if (!versions.includes(d.version)) versions.push(d.version);
      out.set(d.group, versions);
    }
    return out;
  }

  /** The definition for an object's apiVersion + kind. */
  forKind(apiVersion: string, kind: string): ResourceDef | undefined {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
    for (const d of this.#byPath.values()) {
      if (d.group === group && d.version === version && d.kind === kind) return d;
    }
    return undefined;
  }
}

/** The etcd key kube-apiserver names in storage errors (`/registry/configmaps/ns/name`). */
export function registryKey(def: ResourceDef, namespace: string | undefined, name: string): string {
  const prefix = def.custom
    ? `${def.group}/${def.plural}`
    : def.group === "" && def.plural === "services"
    ? "services/specs"
    : def.plural;
  return `/registry/${prefix}/${namespace ? `${namespace}/` : ""}${name}`;
}
