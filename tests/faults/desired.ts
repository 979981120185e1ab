/**
 * The fault matrix harness's side of the cluster: the desired MultiSecrets, written around the operator (faults hit
 * only the operator), and the check that the cluster reached the desired state. Target `fake` writes straight into
 * the fake server's store; target `real` writes with its own client directly to kube-apiserver (not through the fault
 * proxies). Each scenario has its own namespaces and target label, so scenarios can share one real control plane.
 * @module
 */
import { isConflict } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject, objectKey, type ResourceType } from "../../runtime/types.ts";
import { desiredChild, OWNER_UID } from "../../controllers/multisecret/controller.ts";
import { type MultiSecret, multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";

/** The calls the harness makes on a target's cluster. */
export interface ClusterStore {
  create(rt: ResourceType, obj: KubeObject, namespace?: string): Promise<void>;
  /** undefined when absent. */
  get(rt: ResourceType, name: string, namespace?: string): Promise<KubeObject | undefined>;
  /** Throws on a conflict (the caller re-reads and retries). */
  update(rt: ResourceType, obj: KubeObject, namespace?: string): Promise<void>;
  /** Ignores an absent object. */
  delete(rt: ResourceType, name: string, namespace?: string): Promise<void>;
  list(rt: ResourceType, namespace?: string): Promise<KubeObject[]>;
  /** Waits until a just-created CRD serves its resource. */
  crdReady(name: string): Promise<void>;
}

/** Where a scenario's objects live. */
export interface Scope {
  /** The MultiSecrets' namespace. */
  namespace: string;
  /** The namespaces the MultiSecrets select (each carries {@link Scope.label}). */
  targets: string[];
  label: Record<string, string>;
}

/** The fake target's scope (one fresh server per scenario). */
export const FAKE_SCOPE: Scope = {
  namespace: "faults",
  targets: ["faults-t1", "faults-t2"],
  label: { "kubeop-faults/target": "yes" },
};

/** A scope of its own for scenario `id` (several scenarios on one real cluster). */
export function scopeFor(id: string): Scope {
  return {
    namespace: `faults-${id}`,
    targets: [`faults-${id}-t1`, `faults-${id}-t2`],
    label: { "kubeop-faults/target": id },
  };
}

/** The desired MultiSecrets of a scenario and the harness's writes. */
export class Desired {
  readonly values = new Map<string, string>();
  /**
   * Writes whose outcome the harness does not know: the update failed other than by a conflict (the server died with
   * the answer in flight, the connection was cut), so it may have been committed. The next check adopts the value if
   * the server shows it.
   */
  readonly uncertain = new Map<string, string>();
  events = 0;
  constructor(readonly store: ClusterStore, readonly scope: Scope) {}

  /** Namespaces and the CRD, where missing (again after a state loss). */
  async install(): Promise<void> {
    for (const crd of multiSecretCrds()) {
      if (await this.store.get(CoreTypes.CustomResourceDefinition, crd.metadata.name!)) continue;
      await this.store.create(CoreTypes.CustomResourceDefinition, crd);
      await this.store.crdReady(crd.metadata.name!);
    }
    for (const name of [this.scope.namespace, ...this.scope.targets]) {
      if (await this.store.get(CoreTypes.Namespace, name)) continue;
      const labels = name === this.scope.namespace ? {} : { ...this.scope.label };
      await this.store.create(CoreTypes.Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });
    }
  }

  /** Creates (or re-creates) `name` with its desired value. */
  async apply(name: string): Promise<void> {
    this.events++;
    const body: KubeObject = {
      apiVersion: `${MultiSecretType.group}/${MultiSecretType.version}`,
      kind: "MultiSecret",
      metadata: { name, namespace: this.scope.namespace },
      spec: { namespaceSelector: { matchLabels: { ...this.scope.label } }, stringData: { v: this.values.get(name)! } },
    };
    await this.store.create(MultiSecretType, body, this.scope.namespace);
  }

  async create(name: string): Promise<void> {
    this.values.set(name, "0");
    await this.apply(name);
  }

  /** A spec change (the generation moves). Returns false when the object is absent or the server is down. */
  async change(name: string, value: string): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: KubeObject | undefined;
      try {
        current = await this.store.get(MultiSecretType, name, this.scope.namespace);
      } catch {
        return false; // the server is down (a restart fault)
      }
      if (!current) return false;
      const next = structuredClone(current);
      next.spec = { ...(next.spec as Record<string, unknown>), stringData: { v: value } };
      try {
        await this.store.update(MultiSecretType, next, this.scope.namespace);
      } catch (err) {
        // A conflict with the operator's status write was refused for sure; any other failure (the server went down
        // with the answer in flight) may have been committed: remember it, then read again.
        if (!isConflict(err)) this.uncertain.set(name, value);
        continue;
      }
      this.uncertain.delete(name);
      this.values.set(name, value);
      this.events++;
      return true;
    }
    return false;
  }

  /** Deletes `name` (its finalizer keeps it until the operator removed the children). */
  async remove(name: string): Promise<void> {
    await this.store.delete(MultiSecretType, name, this.scope.namespace);
    this.events++;
  }

  /** Re-applies what the server lost: namespaces, CRD, every MultiSecret with its last desired value. */
  async reapply(): Promise<void> {
    await this.install();
    const present = new Set(
      (await this.store.list(MultiSecretType, this.scope.namespace)).map((o) => o.metadata.name),
    );
    for (const name of this.values.keys()) {
      if (!present.has(name)) await this.apply(name);
    }
  }

  /**
   * Objects not (yet) in their desired state, and orphaned children; `notConverged` says, per object not in its
   * desired state, what the check found (the first difference).
   */
  async check(): Promise<{ lost: number; orphans: number; notConverged: Map<string, string> }> {
    const children = new Map<string, KubeObject>();
    for (const ns of this.scope.targets) {
      for (const s of await this.store.list(CoreTypes.Secret, ns)) children.set(objectKey(s), s);
    }
    const present = new Map<string, MultiSecret>();
    for (const o of await this.store.list(MultiSecretType, this.scope.namespace)) {
      present.set(o.metadata.name!, o as MultiSecret);
    }
    const uids = new Set<string>();
    const notConverged = new Map<string, string>();
    for (const name of this.values.keys()) {
      const ms = present.get(name);
      if (!ms) {
        notConverged.set(name, "MultiSecret absent");
        continue;
      }
      const asked = (ms.spec as { stringData?: { v?: string } }).stringData?.v;
      if (this.uncertain.has(name) && asked === this.uncertain.get(name)) {
        this.values.set(name, asked!); // the uncertain write was committed after all
        this.uncertain.delete(name);
      }
      const value = this.values.get(name)!;
      uids.add(ms.metadata.uid!);
      const want = desiredChild({ ...ms, spec: { ...ms.spec, stringData: { v: value } } }, "x").data as Record<
        string,
        string
      >;
      const finding = ms.status?.observedGeneration !== ms.metadata.generation
        ? `status.observedGeneration ${ms.status?.observedGeneration} != generation ${ms.metadata.generation}`
        : this.scope.targets.map((ns) => {
          const child = children.get(`${ns}/${name}`);
          if (!child) return `no child in ${ns}`;
          const owner = child.metadata.labels?.[OWNER_UID];
          if (owner !== ms.metadata.uid) return `child in ${ns} owned by uid ${owner}, not ${ms.metadata.uid}`;
          const has = (child.data as Record<string, string> | undefined)?.v;
          if (has === want.v) return "";
          const shown = (b64?: string) => b64 === undefined ? "none" : JSON.stringify(atob(b64));
          return `child in ${ns} has stale data: v=${shown(has)}, the MultiSecret asks ${JSON.stringify(asked)}, ` +
            `the harness last wrote ${JSON.stringify(value)}`;
        }).find((f) => f !== "");
      if (finding) notConverged.set(name, finding);
    }
    const lost = notConverged.size;
    let orphans = 0;
    for (const child of children.values()) {
      const owner = child.metadata.labels?.[OWNER_UID];
      if (owner && !uids.has(owner)) orphans++;
    }
    return { lost, orphans, notConverged };
  }
}
