/**
 * CustomResourceDefinitions that serve their kinds at once: each served version of a stored CRD becomes a
 * {@link ResourceDef} (scope, status/scale subresources, printer columns, shortNames, categories, schema); a deleted
 * CRD stops being served once it is gone (its objects first deleted by the CRD finalizer, crd_finalizer.ts). Validation and the accepted status are the CRD strategy's
 * (strategies/crds.ts).
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { STANDARD_VERBS } from "./builtin_resources.ts";
import type { FakeStore } from "./commit_path.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { StoredEvent } from "./object_storage.ts";
import { acceptedStatus } from "./strategies/crds.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";

const CRD_KEY = "apiextensions.k8s.io/customresourcedefinitions";

/** The ResourceDefs a CRD serves (one per served version). */
export function defsFromCrd(crd: KubeObject): ResourceDef[] {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const versions: KubeObject[] = Array.isArray(spec.versions) ? spec.versions : [];
  return versions.filter((v) => v.served !== false).map((v) => ({
    group: String(spec.group),
    version: String(v.name),
    plural: String(names.plural),
    singular: String(names.singular ?? String(names.kind).toLowerCase()),
    kind: String(names.kind),
    listKind: String(names.listKind ?? `${names.kind}List`),
    namespaced: spec.scope !== "Cluster",
    verbs: [...STANDARD_VERBS],
    shortNames: names.shortNames,
    categories: names.categories,
    subresources: [
      ...(v.subresources?.status !== undefined ? ["status"] : []),
      ...(v.subresources?.scale !== undefined ? ["scale"] : []),
    ],
    ...(v.subresources?.scale ? { scale: v.subresources.scale } : {}),
    printColumns: v.additionalPrinterColumns,
    schema: v.schema?.openAPIV3Schema,
    selectableFields: Array.isArray(v.selectableFields)
      ? v.selectableFields.map((f: { jsonPath: string }) => f.jsonPath)
      : undefined,
    tracksGeneration: true,
    custom: true,
    ...(v.deprecated === true ? { deprecationWarning: deprecationWarning(spec, versions, v) } : {}),
  }));
}

/**
 * The warning of a request to deprecated version `v` (kube's CR handler): its `deprecationWarning`, or
 * `<group>/<version> <Kind> is deprecated; use <group>/<version> <Kind>` naming the highest-priority served version
 * that is not deprecated (without the `use` clause when there is none).
 */
function deprecationWarning(spec: KubeObject, versions: KubeObject[], v: KubeObject): string {
  if (typeof v.deprecationWarning === "string") return v.deprecationWarning;
  const kind = String(spec.names?.kind);
  const text = `${spec.group}/${v.name} ${kind} is deprecated`;
  const current = versions.filter((o) => o.served !== false && o.deprecated !== true).map((o) => String(o.name));
  const use = current.sort(versionPriority)[0];
  return use === undefined ? text : `${text}; use ${spec.group}/${use} ${kind}`;
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first (preferred version of a group). */
export function versionPriority(a: string, b: string): number {
  const parse = (v: string) => {
    const m = v.match(/^v(\d+)(?:(alpha|beta)(\d+))?$/);
    if (!m) return [0, 0, 0];
    return [m[2] === undefined ? 3 : m[2] === "beta" ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [pa, pb] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i] - pa[i];
  return compareStrings(a, b);
}

/** Serves the kinds of stored CRDs (registry updates); validation and status are the CRD strategy's (strategies/crds.ts). */
export class CrdController {
  #store: FakeStore;
  #served = new Map<string, ResourceDef[]>();
  #onUnserved: (storageKey: string) => void;

  /**
   * `onUnserved` is told the storage key (`group/plural`) of a resource whose CRD was deleted, once its objects are
   * gone: the server ends the open watches on it, as kube-apiserver does when it tears down a CRD's storage.
   */
  constructor(store: FakeStore, onUnserved: (storageKey: string) => void = () => {}) {
    this.#store = store;
    this.#onUnserved = onUnserved;
    store.objects.onCommit((ev) => this.#onCommit(ev));
    for (const crd of store.objects.list(CRD_KEY)) this.#serve(crd);
  }

  /** The preferred (highest priority served) version of a CRD group, if any CRD serves it. */
  preferredVersion(group: string): string | undefined {
    const versions = [...this.#served.values()].flat().filter((d) => d.group === group).map((d) => d.version);
    return versions.sort(versionPriority)[0];
  }

  #onCommit(ev: StoredEvent): void {
    if (ev.storageKey !== CRD_KEY) return;
    if (ev.type === "DELETED") this.#unserve(ev.object, true);
    else {
      this.#serve(ev.object);
      const established = (ev.object.status?.conditions ?? []).some((c: KubeObject) => c.type === "Established");
      if (!established && !ev.object.metadata.deletionTimestamp) queueMicrotask(() => this.#establish(ev.object));
    }
  }

  /** What kube's naming and establishing controllers do shortly after a create: the accepted status. */
  #establish(crd: KubeObject): void {
    const ref = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" };
    try {
      const current = this.#store.get(ref, crd.metadata.name!);
      if (current.metadata.uid !== crd.metadata.uid) return;
      const status = acceptedStatus(current, undefined, this.#store.clock.now());
      // kube-apiserver's own controllers write as manager kube-apiserver.
      this.#store.update(ref, { ...current, status }, { subresource: "status", fieldManager: "kube-apiserver" });
    } catch {
      // Deleted or replaced meanwhile: nothing to establish.
    }
  }

  #serve(crd: KubeObject): void {
    const name = crd.metadata.name!;
    const before = this.#served.get(name) ?? [];
    const defs = defsFromCrd(crd);
    for (const d of before) {
      if (!defs.some((n) => n.version === d.version)) this.#store.registry.remove(d.group, d.version, d.plural);
    }
    for (const d of defs) this.#store.registry.add(d);
    this.#served.set(name, defs);
  }

  #unserve(crd: KubeObject, dropObjects: boolean): void {
    const name = crd.metadata.name!;
    const defs = this.#served.get(name) ?? defsFromCrd(crd);
    for (const d of defs) this.#store.registry.remove(d.group, d.version, d.plural);
    this.#served.delete(name);
    if (dropObjects && defs[0]) {
      const key = `${defs[0].group}/${defs[0].plural}`;
      for (const obj of this.#store.objects.list(key)) {
        this.#store.objects.remove(key, obj.metadata.namespace ?? "", obj.metadata.name!);
      }
      this.#onUnserved(key);
    }
  }
}
