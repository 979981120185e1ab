/**
 * One event store, two APIs: objects are stored as core v1 Events and served through events.k8s.io/v1 with the
 * field mapping kube-apiserver uses (regarding ↔ involvedObject, note ↔ message, reportingController ↔
 * reportingComponent, deprecated* ↔ source/firstTimestamp/lastTimestamp/count).
 * @module
 */
import type { KubeObject } from "../runtime/types.ts";

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
