/**
 * The soak's workload: Machines (with their Switches), Ats, Netperfs and MultiSecrets in namespace `soak`, churned
 * one random change at a time (create, spec update, relabel, delete, a switch flipped up), and the check that every
 * object is in its desired state:
 *
 * - MultiSecret: tests/faults/desired.ts (its last value in both target namespaces' child Secrets, status at the
 *   generation, no orphaned child).
 * - Machine: status at the generation, exactly `spec.switches` Switches it controls, each matching `spec.selector`
 *   and down (stage 2); `spec.switchPosition` back down (stage 1).
 * - At: phase DONE (its pod ran: the fake's kubelet, or tests/soak/pod_player.ts on kube-apiserver).
 * - Netperf: status Done and both its pods deleted.
 * - Deleted objects of every kind gone (their finalizers ran).
 *
 * Writes go around the operator (the fake's store, or an admin client straight to kube-apiserver), so faults hit only
 * the operator.
 * @module
 */
import { getControllerOf } from "../../runtime/client/apply.ts";
import { isConflict } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { type At, atCrds, AtType } from "../../controllers/at/schema.ts";
import { type Machine, machineCrds, MachineType, type Switch, SwitchType } from "../../controllers/machine/schema.ts";
import { MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { type Netperf, netperfCrds, NetperfType } from "../../controllers/netperf/schema.ts";
import { eventually } from "../../testing/eventually.ts";
import { type ClusterStore, Desired, type Scope } from "../faults/desired.ts";

/** Where the soak's objects live. */
export const SOAK_SCOPE: Scope = {
  namespace: "soak",
  targets: ["soak-t1", "soak-t2"],
  label: { "kubeop-soak/target": "yes" },
};

/** How many objects of each kind the churn keeps around (it creates below, deletes above). */
export interface WorkloadSizes {
  multiSecrets: number;
  machines: number;
  ats: number;
  netperfs: number;
}

type Kind = "MultiSecret" | "Machine" | "At" | "Netperf";
const TYPES: Record<Kind, ResourceType> = {
  MultiSecret: MultiSecretType,
  Machine: MachineType,
  At: AtType,
  Netperf: NetperfType,
};

/** The workload and its checker. */
export class Workload {
  readonly multiSecrets: Desired;
  /** Machine name → the selector generation its spec.selector carries. */
  readonly machines = new Map<string, number>();
  readonly ats = new Set<string>();
  readonly netperfs = new Set<string>();
  /** Objects deleted by the harness that the check has not yet seen gone, as `Kind/name`. */
  readonly deleted = new Set<string>();
  /** Harness changes so far. */
  changes = 0;
  #next = 0;
  readonly #ns: string;

  constructor(
    readonly store: ClusterStore,
    readonly sizes: WorkloadSizes,
    readonly random: () => number,
    scope: Scope = SOAK_SCOPE,
  ) {
    this.multiSecrets = new Desired(store, scope);
    this.#ns = scope.namespace;
  }

  /** CRDs (each served before it is used) and namespaces. */
  async install(): Promise<void> {
    await this.multiSecrets.install(); // first: the real store's crdReady lists MultiSecrets
    const types = [MachineType, SwitchType, AtType, NetperfType];
    for (const crd of [...machineCrds(), ...atCrds(), ...netperfCrds()]) {
      if (await this.store.get(CoreTypes.CustomResourceDefinition, crd.metadata.name!)) continue;
      await this.store.create(CoreTypes.CustomResourceDefinition, crd);
      await this.store.crdReady(crd.metadata.name!);
      const rt = types.find((t) => `${t.plural}.${t.group}` === crd.metadata.name)!;
      await eventually(`${crd.metadata.name} served`, () => this.store.list(rt, this.#ns).then(() => true), {
        timeoutMs: 60_000,
        intervalMs: 100,
        retryErrors: true,
      });
    }
  }

  /** Creates every kind up to its size. */
  async seed(): Promise<void> {
    for (let i = 0; i < this.sizes.multiSecrets; i++) await this.#create("MultiSecret");
    for (let i = 0; i < this.sizes.machines; i++) await this.#create("Machine");
    for (let i = 0; i < this.sizes.ats; i++) await this.#create("At");
    for (let i = 0; i < this.sizes.netperfs; i++) await this.#create("Netperf");
  }

  /** Objects the harness keeps, by kind. */
  counts(): Record<string, number> {
    return {
      MultiSecret: this.multiSecrets.values.size,
      Machine: this.machines.size,
      At: this.ats.size,
      Netperf: this.netperfs.size,
    };
  }

  /** One random change. */
  async churn(): Promise<void> {
    const kinds: Kind[] = ["MultiSecret", "MultiSecret", "Machine", "Machine", "At", "Netperf"];
    const kind = kinds[Math.floor(this.random() * kinds.length)];
    const names = this.#names(kind);
    const size = this.#size(kind);
    const r = this.random();
    // Below size: mostly creates; above: mostly deletes; around it: updates and relabels.
    if (names.length === 0 || (names.length < size && r < 0.3)) return await this.#create(kind);
    const name = names[Math.floor(this.random() * names.length)];
    if (names.length > size || r < 0.4) return await this.#delete(kind, name);
    if (r < 0.55) return await this.#relabel(kind, name);
    await this.#update(kind, name);
  }

  /**
   * The check's probes: one spec change per kind that reacts to spec changes (MultiSecret, Machine), made just before
   * the check. Returns their keys (`Kind/name`): one of them still not converged at the deadline is a missed event.
   */
  async probe(): Promise<string[]> {
    const keys: string[] = [];
    for (const kind of ["MultiSecret", "Machine"] as const) {
      const names = this.#names(kind);
      if (names.length === 0) continue;
      const name = names[Math.floor(this.random() * names.length)];
      if (await this.#update(kind, name)) keys.push(`${kind}/${name}`);
    }
    return keys;
  }

  /** Objects not in their desired state (`Kind/name` → the first difference found) and orphaned children. */
  async check(): Promise<{ notConverged: Map<string, string>; orphans: number }> {
    const ms = await this.multiSecrets.check();
    const notConverged = new Map<string, string>();
    for (const [name, finding] of ms.notConverged) notConverged.set(`MultiSecret/${name}`, finding);
    let orphans = ms.orphans;
    const ns = this.#ns;
    const machines = new Map((await this.store.list(MachineType, ns)).map((m) => [m.metadata.name!, m as Machine]));
    const switches = (await this.store.list(SwitchType, ns)) as Switch[];
    const machineUids = new Set([...machines.values()].map((m) => m.metadata.uid));
    for (const name of this.machines.keys()) {
      const m = machines.get(name);
      const finding = m ? machineFinding(m, switches) : "Machine absent";
      if (finding) notConverged.set(`Machine/${name}`, finding);
    }
    for (const s of switches) {
      const owner = getControllerOf(s);
      if (!owner) await this.store.delete(SwitchType, s.metadata.name!, ns); // released by a relabel: tidy up
      else if (!machineUids.has(owner.uid)) orphans++;
    }
    const ats = new Map((await this.store.list(AtType, ns)).map((a) => [a.metadata.name!, a as At]));
    for (const name of this.ats) {
      const phase = ats.get(name)?.status?.phase;
      if (phase !== "DONE") notConverged.set(`At/${name}`, ats.has(name) ? `phase ${phase}` : "At absent");
    }
    const netperfs = new Map((await this.store.list(NetperfType, ns)).map((n) => [n.metadata.name!, n as Netperf]));
    const pods = await this.store.list(CoreTypes.Pod, ns);
    const podOwners = new Map<string, number>();
    for (const p of pods) {
      const uid = getControllerOf(p)?.uid;
      if (uid) podOwners.set(uid, (podOwners.get(uid) ?? 0) + 1);
    }
    for (const name of this.netperfs) {
      const np = netperfs.get(name);
      const state = np?.status?.status;
      const podsLeft = np ? podOwners.get(np.metadata.uid!) ?? 0 : 0;
      if (!np) notConverged.set(`Netperf/${name}`, "Netperf absent");
      else if (state !== "Done") notConverged.set(`Netperf/${name}`, `status ${state}: ${np.status?.message ?? ""}`);
      else if (podsLeft > 0) notConverged.set(`Netperf/${name}`, `Done with ${podsLeft} pod(s) left`);
    }
    const live = new Set([...ats.values(), ...netperfs.values()].map((o) => o.metadata.uid));
    for (const uid of podOwners.keys()) if (!live.has(uid)) orphans++;
    const present: Record<Kind, Set<string>> = {
      MultiSecret: new Set((await this.store.list(TYPES.MultiSecret, ns)).map((o) => o.metadata.name!)),
      Machine: new Set(machines.keys()),
      At: new Set(ats.keys()),
      Netperf: new Set(netperfs.keys()),
    };
    for (const key of [...this.deleted]) {
      const [kind, name] = key.split("/") as [Kind, string];
      if (!present[kind].has(name)) this.deleted.delete(key);
      else notConverged.set(key, "deleted by the harness, still present (finalizer not removed)");
    }
    return { notConverged, orphans };
  }

  #names(kind: Kind): string[] {
    switch (kind) {
      case "MultiSecret":
        return [...this.multiSecrets.values.keys()];
      case "Machine":
        return [...this.machines.keys()];
      case "At":
        return [...this.ats];
      case "Netperf":
        return [...this.netperfs];
    }
  }

  #size(kind: Kind): number {
    const { multiSecrets, machines, ats, netperfs } = this.sizes;
    return { MultiSecret: multiSecrets, Machine: machines, At: ats, Netperf: netperfs }[kind];
  }

  async #create(kind: Kind): Promise<void> {
    const name = `${kind.toLowerCase()}-${this.#next++}`;
    const ns = this.#ns;
    const meta = { name, namespace: ns, labels: { "kubeop-soak/relabel": "0" } };
    this.changes++;
    switch (kind) {
      case "MultiSecret":
        return await this.multiSecrets.create(name);
      case "Machine":
        this.machines.set(name, 0);
        return await this.store.create(MachineType, {
          apiVersion: `${MachineType.group}/${MachineType.version}`,
          kind: "Machine",
          metadata: meta,
          spec: { switches: 1 + Math.floor(this.random() * 3), selector: { machine: name, gen: "0" } },
        }, ns);
      case "At":
        this.ats.add(name);
        return await this.store.create(AtType, {
          apiVersion: `${AtType.group}/${AtType.version}`,
          kind: "At",
          metadata: meta,
          spec: { schedule: "2020-11-16T10:12:00Z", command: "echo soak" },
        }, ns);
      case "Netperf":
        this.netperfs.add(name);
        return await this.store.create(NetperfType, {
          apiVersion: `${NetperfType.group}/${NetperfType.version}`,
          kind: "Netperf",
          metadata: meta,
          spec: { duration: 1 },
        }, ns);
    }
  }

  async #delete(kind: Kind, name: string): Promise<void> {
    this.changes++;
    switch (kind) {
      case "MultiSecret":
        await this.multiSecrets.remove(name);
        this.multiSecrets.values.delete(name);
        this.multiSecrets.uncertain.delete(name);
        break;
      case "Machine":
        this.machines.delete(name);
        await this.store.delete(MachineType, name, this.#ns);
        break;
      case "At":
        this.ats.delete(name);
        await this.store.delete(AtType, name, this.#ns);
        break;
      case "Netperf":
        this.netperfs.delete(name);
        await this.store.delete(NetperfType, name, this.#ns);
        break;
    }
    this.deleted.add(`${kind}/${name}`);
  }

  /** A metadata label change (no new generation: the operator sees an update it need not act on). */
  async #relabel(kind: Kind, name: string): Promise<void> {
    if (kind === "Machine") {
      // A Machine relabel moves its selector: its Switches are released and new ones created under the new labels.
      const gen = this.machines.get(name)! + 1;
      if (
        await this.#mutate(
          MachineType,
          name,
          (m) => withSpec(m, { selector: { machine: name, gen: `${gen}` } }),
        )
      ) {
        this.machines.set(name, gen);
      }
      return;
    }
    await this.#mutate(TYPES[kind], name, (o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { ...o.metadata.labels, "kubeop-soak/relabel": String(this.changes) } },
    }));
  }

  /** A spec change; returns whether it was written. */
  async #update(kind: Kind, name: string): Promise<boolean> {
    if (kind === "MultiSecret") {
      return await this.multiSecrets.change(name, String(this.changes + 1)) && ++this.changes > 0;
    }
    if (kind === "Machine") {
      const r = this.random();
      if (r < 0.3) {
        return await this.#mutate(MachineType, name, (m) => withSpec(m, { switchPosition: "up" }));
      }
      if (r < 0.6) return await this.#flipASwitchUp(name);
      const switches = Math.floor(this.random() * 4);
      return await this.#mutate(MachineType, name, (m) => withSpec(m, { switches }));
    }
    return await this.#relabel(kind, name).then(() => true); // At and Netperf are final once done: relabel instead
  }

  async #flipASwitchUp(machine: string): Promise<boolean> {
    const ns = this.#ns;
    const mine = (await this.store.list(SwitchType, ns)).filter((s) => s.metadata.labels?.machine === machine);
    if (mine.length === 0) return false;
    const name = mine[Math.floor(this.random() * mine.length)].metadata.name!;
    return await this.#mutate(SwitchType, name, (s) => withSpec(s, { position: "up" }));
  }

  /** Read, change, write; retried on a conflict (the operator wrote meanwhile). False when absent or refused. */
  async #mutate(rt: ResourceType, name: string, change: (o: KubeObject) => KubeObject): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await this.store.get(rt, name, this.#ns).catch(() => undefined);
      if (!current) return false;
      try {
        await this.store.update(rt, change(structuredClone(current)), this.#ns);
        this.changes++;
        return true;
      } catch (err) {
        if (!isConflict(err)) return false;
      }
    }
    return false;
  }
}

/** `o` with `fields` set in its spec. */
function withSpec(o: KubeObject, fields: Record<string, unknown>): KubeObject {
  return { ...o, spec: { ...(o.spec as Record<string, unknown> | undefined), ...fields } };
}

/** What is wrong with Machine `m` (empty: nothing). */
export function machineFinding(m: Machine, switches: readonly Switch[]): string {
  if (m.status?.observedGeneration !== m.metadata.generation) {
    return `status.observedGeneration ${m.status?.observedGeneration} != generation ${m.metadata.generation}`;
  }
  if (m.spec?.switchPosition === "up") return "spec.switchPosition still up";
  const ours = switches.filter((s) => getControllerOf(s)?.uid === m.metadata.uid);
  const selector = m.spec?.selector ?? {};
  const wanted = m.spec?.switches ?? 0;
  if (ours.length !== wanted) return `${ours.length} switches, spec asks ${wanted}`;
  const stray = ours.find((s) => Object.entries(selector).some(([k, v]) => s.metadata.labels?.[k] !== v));
  if (stray) return `switch ${stray.metadata.name} does not match the selector ${JSON.stringify(selector)}`;
  const up = ours.find((s) => s.spec?.position === "up");
  if (up) return `switch ${up.metadata.name} still up`;
  return "";
}
