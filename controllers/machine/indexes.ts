/**
 * How the Machine controller finds things in its caches: through indexes, never by scanning a namespace (a reconcile
 * that lists every Switch and a Switch event that lists every Machine make convergence O(N²)):
 *
 * - a Machine's Switches: runtime/cache/store.ts's built-in `owner` index (the Switches it controls) and
 *   {@link SWITCHES_BY_LABEL} (the Switches its selector matches, found through one of its selector's labels);
 * - a Switch's Machines: its controller ownerReference, and {@link MACHINES_BY_SELECTOR} looked up for each of the
 *   Switch's labels (the Machines whose selector has that label), each candidate checked against its whole selector.
 * @module
 */

import { getControllerOf } from "../../runtime/client/apply.ts";
import { labelValueFor } from "../../runtime/apimachinery/names.ts";
import type { InformerLike, InformerSource } from "../../runtime/controller/controller.ts";
import { BUILTIN_INDEXES } from "../../runtime/cache/store.ts";
import { type KubeObject, objectKey } from "../../runtime/types.ts";
import { GROUP, type Machine, MachineType, type Switch, SwitchType } from "./schema.ts";
import { byName } from "../../runtime/apimachinery/string_order.ts";

/** Index of the Switch cache: each Switch filed under `namespace/key=value` for every label it carries. */
export const SWITCHES_BY_LABEL = "machine.switches-by-label";
/** Index of the Machine cache: each Machine filed under `namespace/key=value` for every entry of its selector. */
export const MACHINES_BY_SELECTOR = "machine.machines-by-selector";

/**
 * The labels that tie Switches to `machine`: `spec.selector`, else `machine=<name>` (a name that is no valid label
 * value — over 63 characters — cut and hashed by runtime's labelValueFor, the same value every time).
 */
export function selectorOf(machine: Machine): Record<string, string> {
  const selector = machine.spec?.selector;
  return selector && Object.keys(selector).length > 0 ? selector : { machine: labelValueFor(machine.metadata.name!) };
}

/** Whether `labels` carry every entry of `selector`. */
export function matches(
  labels: Readonly<Record<string, string>> | undefined,
  selector: Record<string, string>,
): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

function indexValue(namespace: string | undefined, key: string, value: string): string {
  return `${namespace ?? ""}/${key}=${value}`;
}

/** The {@link SWITCHES_BY_LABEL} values of a Switch: `namespace/key=value` per label. */
export function switchLabelValues(sw: KubeObject): string[] {
  const labels = sw.metadata.labels;
  if (!labels) return [];
  return Object.entries(labels).map(([k, v]) => indexValue(sw.metadata.namespace, k, v));
}

/** The {@link MACHINES_BY_SELECTOR} values of a Machine: `namespace/key=value` per selector entry. */
export function machineSelectorValues(machine: Machine): string[] {
  return Object.entries(selectorOf(machine)).map(([k, v]) => indexValue(machine.metadata.namespace, k, v));
}

/** What the controller reads from an indexed cache. */
export interface IndexedStore<T extends KubeObject> {
  /** The cached object at `namespace/name`. */
  get(key: string): T | undefined;
  /** The cached objects filed under `value` in `index`. */
  byIndex(index: string, value: string): T[];
}

/** The Machine and Switch caches, with the controller's indexes in place. */
export interface MachineCaches {
  /** Machines, indexed by {@link MACHINES_BY_SELECTOR}. */
  machines: IndexedStore<Machine>;
  /** Switches, indexed by owner uid (built in) and {@link SWITCHES_BY_LABEL}. */
  switches: IndexedStore<Switch>;
}

/** The indexes this module added, per informer (informers are shared: a second controller must not add them again). */
const added = new WeakMap<object, Set<string>>();

function indexedStore<T extends KubeObject>(
  informer: InformerLike<T>,
  index: string,
  fn: (obj: T) => string[],
): IndexedStore<T> {
  const { addIndex } = informer;
  if (!addIndex || !informer.store.byIndex) {
    throw new Error(`machine controller: the ${informer.resource.plural} cache offers no indexes (addIndex, byIndex)`);
  }
  let names = added.get(informer);
  if (!names) added.set(informer, names = new Set());
  if (!names.has(index)) {
    addIndex.call(informer, index, fn);
    names.add(index);
  }
  return {
    get: (key) => informer.store.get(key),
    byIndex: (name, value) => informer.store.byIndex?.(name, value) ?? [],
  };
}

/**
 * The shared Machine and Switch caches of `informers`, with {@link MACHINES_BY_SELECTOR} and {@link SWITCHES_BY_LABEL}
 * added (once per informer). Throws when a cache offers no indexes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeCluster } from "../../testing/mod.ts";
 * import { machineCaches, switchesOf } from "./indexes.ts";
 * import { type Machine, machineCrds, MachineType, SwitchType } from "./schema.ts";
 * const cluster = new FakeCluster({ crds: machineCrds() }); // a Manager's informers in production
 * const caches = machineCaches(cluster.informers);
 * const machine = cluster.create<Machine>(MachineType, { metadata: { name: "m", namespace: "default" }, spec: {} });
 * cluster.create(SwitchType, { metadata: { name: "s", namespace: "default", labels: { machine: "m" } }, spec: {} });
 * // by the default selector machine=<name> (and by controller uid): no scan of the namespace
 * assert.deepEqual(switchesOf(caches.switches, machine).map((s) => s.metadata.name), ["s"]);
 * ```
 */
export function machineCaches(informers: InformerSource): MachineCaches {
  return {
    machines: indexedStore(informers.get<Machine>(MachineType), MACHINES_BY_SELECTOR, machineSelectorValues),
    switches: indexedStore(informers.get<Switch>(SwitchType), SWITCHES_BY_LABEL, switchLabelValues),
  };
}

/**
 * Every Switch a reconcile of `machine` acts on, by name: those it controls (any labels) and those in its namespace
 * whose labels match its selector (any owner). Read through the owner index and the selector entry with the fewest
 * Switches.
 */
export function switchesOf(switches: IndexedStore<Switch>, machine: Machine): Switch[] {
  const uid = machine.metadata.uid!;
  const found = new Map<string, Switch>();
  for (const sw of switches.byIndex(BUILTIN_INDEXES.owner, uid)) {
    if (getControllerOf(sw)?.uid === uid) found.set(sw.metadata.name!, sw);
  }
  const selector = selectorOf(machine);
  let narrowest: Switch[] | undefined;
  for (const value of machineSelectorValues(machine)) {
    const candidates = switches.byIndex(SWITCHES_BY_LABEL, value);
    if (!narrowest || candidates.length < narrowest.length) narrowest = candidates;
  }
  for (const sw of narrowest ?? []) if (matches(sw.metadata.labels, selector)) found.set(sw.metadata.name!, sw);
  return [...found.values()].sort(byName);
}

/**
 * The map function of the Switch watch: the keys of the Machines a Switch belongs to — its controlling Machine, and
 * every Machine of its namespace whose selector matches its labels (found through {@link MACHINES_BY_SELECTOR}); when
 * there is none, the Machine its `machine` label names.
 */
export function machinesOfSwitch(machines: IndexedStore<Machine>): (sw: Switch) => string[] {
  return (sw) => {
    const keys = new Set<string>();
    const owner = getControllerOf(sw);
    if (owner?.kind === MachineType.kind && owner.apiVersion.split("/")[0] === GROUP) {
      keys.add(`${sw.metadata.namespace}/${owner.name}`);
    }
    for (const value of switchLabelValues(sw)) {
      for (const m of machines.byIndex(MACHINES_BY_SELECTOR, value)) {
        if (matches(sw.metadata.labels, selectorOf(m))) keys.add(objectKey(m));
      }
    }
    if (keys.size === 0 && sw.metadata.labels?.machine) {
      keys.add(`${sw.metadata.namespace}/${sw.metadata.labels.machine}`);
    }
    return [...keys];
  };
}
