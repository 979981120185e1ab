/**
 * Events: one store, two APIs. Core v1 Events are the storage version; events.k8s.io/v1 Events are converted on the
 * way in and out with the field mapping kube-apiserver uses (regarding ↔ involvedObject, note ↔ message,
 * reportingController ↔ reportingComponent, deprecated* ↔ source/firstTimestamp/lastTimestamp/count), field
 * selectors included. Both may be created by PUT, as in kube.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceStrategy, StorageConversion } from "../strategy.ts";

const PAIRS: Array<[events: string, core: string]> = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["reportingController", "reportingComponent"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

function rename(obj: KubeObject, from: number, to: number, apiVersion: string): KubeObject {
  const out: KubeObject = { apiVersion, kind: "Event", metadata: obj.metadata };
  const map = new Map(PAIRS.map((p) => [p[from], p[to]]));
  for (const [k, v] of Object.entries(obj)) {
    if (k === "apiVersion" || k === "kind" || k === "metadata") continue;
    out[map.get(k) ?? k] = v;
  }
  return out;
}

/** events.k8s.io/v1 Event → stored core v1 Event. */
export function eventsV1ToCore(obj: KubeObject): KubeObject {
  return rename(obj, 0, 1, "v1");
}

/** Stored core v1 Event → events.k8s.io/v1 Event. */
export function coreToEventsV1(obj: KubeObject): KubeObject {
  return rename(obj, 1, 0, "events.k8s.io/v1");
}

/** Maps an events.k8s.io field selector onto the stored core fields (`regarding.name` → `involvedObject.name`). */
export function eventsV1FieldSelector(selector: string | undefined): string | undefined {
  if (!selector) return selector;
  return selector.replace(/(^|,)\s*regarding\./g, "$1involvedObject.").replace(
    /(^|,)\s*reportingController(?==|!=)/g,
    "$1reportingComponent",
  );
}

/** events.k8s.io/v1 stored as core v1. */
export const EVENTS_V1_CONVERSION: StorageConversion = {
  storageApiVersion: "v1",
  toStorage: eventsV1ToCore,
  fromStorage: coreToEventsV1,
  fieldSelector: eventsV1FieldSelector,
};

/** The strategy of core v1 events. */
export const CORE_EVENTS: ResourceStrategy = { allowCreateOnUpdate: true };

/** The strategy of events.k8s.io/v1 events (stored with the core ones). */
export const EVENTS_V1: ResourceStrategy = { allowCreateOnUpdate: true, conversion: EVENTS_V1_CONVERSION };
