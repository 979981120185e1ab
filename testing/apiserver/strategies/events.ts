/**
 * Events: one store, two APIs. Core v1 Events are the storage version; events.k8s.io/v1 Events are converted on the
 * way in and out with the field mapping kube-apiserver uses (regarding ↔ involvedObject, note ↔ message,
 * reportingController ↔ reportingComponent, deprecated* ↔ source/firstTimestamp/lastTimestamp/count), field
 * selectors included. Both may be created by PUT, as in kube; a core Event's name need only be a path segment.
 * Validated as kube-apiserver v1.37 does
 * (pkg/apis/core/validation/events.go): the involved object's namespace must match the Event's (legacy rules), an
 * Event with an eventTime needs its reporting controller, instance, action and reason; events.k8s.io/v1 writes also
 * need eventTime and a type of Normal or Warning and may not set the deprecated fields, and their updates may change
 * little more than metadata and the series (the rest is immutable). eventTime is a MicroTime.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { qualifiedNameErrors } from "../../../runtime/apimachinery/names.ts";
import { validatePathSegmentName } from "../object_rules.ts";
import type { ResourceStrategy, StorageConversion, StrategyContext } from "../strategy.ts";
import { fieldImmutable, fieldInvalid, fieldRequired } from "../validation/field_errors.ts";
import { deepEqual } from "../../../runtime/apimachinery/equality.ts";
import { microTimeError } from "../validation/micro_time.ts";

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

/** Stored core v1 Event → events.k8s.io/v1 Event (whose reporting fields are omitempty, unlike core's). */
export function coreToEventsV1(obj: KubeObject): KubeObject {
  const out = rename(obj, 1, 0, "events.k8s.io/v1");
  if (out.reportingController === "") delete out.reportingController;
  if (out.reportingInstance === "") delete out.reportingInstance;
  return out;
}

/** The stored core Event's fields Go serialises although unset: the times as null, reporting strings "", source {}. */
function encodeStoredEvent(ev: KubeObject): void {
  ev.eventTime ??= null;
  ev.firstTimestamp ??= null;
  ev.lastTimestamp ??= null;
  ev.reportingComponent ??= "";
  ev.reportingInstance ??= "";
  if (!ev.source || typeof ev.source !== "object") ev.source = {};
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

/** legacyValidateEvent: namespaces agree; an Event with eventTime names who reported what. */
function legacyCauses(ev: KubeObject, reportingField: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const namespace = ev.metadata.namespace ?? "";
  const involvedNs = ev.involvedObject?.namespace ?? "";
  const mismatch = () =>
    causes.push(fieldInvalid("involvedObject.namespace", involvedNs, "does not match event.namespace"));
  const text = (k: string): string => (typeof ev[k] === "string" ? ev[k] : "");
  if (!ev.eventTime) {
    if (!involvedNs ? namespace !== "" && namespace !== "default" : namespace !== involvedNs) mismatch();
    return causes;
  }
  if (!involvedNs && namespace !== "default" && namespace !== "kube-system") mismatch();
  const controller = text("reportingComponent");
  if (!controller) causes.push(fieldRequired(reportingField));
  for (const msg of qualifiedNameErrors(controller)) causes.push(fieldInvalid(reportingField, controller, msg));
  const limited = (k: string, max: number, label = k) => {
    if (!text(k)) causes.push(fieldRequired(label));
    if (text(k).length > max) causes.push(fieldInvalid(label, "", `can have at most ${max} characters`));
  };
  limited("reportingInstance", 128);
  limited("action", 128);
  limited("reason", 128);
  if (text("message").length > 1024) causes.push(fieldInvalid("message", "", "can have at most 1024 characters"));
  return causes;
}

/** validateV1EventSeries: a series counts at least 2 and has a lastObservedTime. */
function seriesCauses(ev: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!ev.series) return causes;
  if (!(ev.series.count >= 2)) causes.push(fieldInvalid("series.count", "", "should be at least 2"));
  if (!ev.series.lastObservedTime) causes.push(fieldRequired("series.lastObservedTime"));
  return causes;
}

/** The strict rules events.k8s.io/v1 adds on create (the stored core field names, the API's paths). */
function strictCauses(ev: KubeObject): StatusCause[] {
  const causes = seriesCauses(ev);
  if (!ev.eventTime) causes.push(fieldRequired("eventTime"));
  if (ev.type !== "Normal" && ev.type !== "Warning") {
    causes.push(fieldInvalid("type", "", `has invalid value: ${ev.type ?? ""}`));
  }
  if (ev.firstTimestamp) causes.push(fieldInvalid("firstTimestamp", "", "needs to be unset"));
  if (ev.lastTimestamp) causes.push(fieldInvalid("lastTimestamp", "", "needs to be unset"));
  if (ev.count) causes.push(fieldInvalid("count", "", "needs to be unset"));
  if (ev.source?.component || ev.source?.host) causes.push(fieldInvalid("source", "", "needs to be unset"));
  return causes;
}

/** Whether a field is its Go zero value (absent, null, "", 0, false, or a struct of zeros such as `source: {}`). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === 0 || v === false) return true;
  return typeof v === "object" && !Array.isArray(v) && Object.values(v as object).every(isZero);
}

/** The stored (core) fields an events.k8s.io/v1 update may not change, with the paths kube names them by. */
const IMMUTABLE: Array<[core: string, path: string]> = [
  ["involvedObject", "involvedObject"],
  ["reason", "reason"],
  ["message", "message"],
  ["source", "source"],
  ["firstTimestamp", "firstTimestamp"],
  ["lastTimestamp", "lastTimestamp"],
  ["count", "count"],
  ["reason", "reason"], // kube checks it twice
  ["type", "type"],
  ["eventTime", "eventTime"],
  ["action", "action"],
  ["related", "related"],
  ["reportingComponent", "reportingController"],
  ["reportingInstance", "reportingInstance"],
];

/** ValidateEventUpdate's strict part (events.k8s.io/v1): a changed series is validated, the rest is immutable. */
function strictUpdateCauses(ev: KubeObject, old: KubeObject): StatusCause[] {
  const causes = deepEqual(ev.series, old.series) ? [] : seriesCauses(ev);
  for (const [core, path] of IMMUTABLE) {
    const [now, was] = [ev[core], old[core]];
    if (!(isZero(now) && isZero(was)) && !deepEqual(now, was)) causes.push(fieldImmutable(path, now ?? null));
  }
  return causes;
}

const eventTimeError = (body: KubeObject) =>
  microTimeError(body.eventTime) ?? microTimeError(body.series?.lastObservedTime);

/** The strategy of core v1 events. */
export const CORE_EVENTS: ResourceStrategy = {
  // Legacy validation checks no DNS name: any path segment will do (`Bad_Name`); events.k8s.io/v1 checks a subdomain.
  validateName: validatePathSegmentName,
  allowCreateOnUpdate: true,
  decodeError: eventTimeError,
  encode: encodeStoredEvent,
  validate: (ev) => legacyCauses(ev, "reportingComponent"),
  validateUpdate: (ev) => legacyCauses(ev, "reportingComponent"),
};

/** The strategy of events.k8s.io/v1 events (stored with the core ones). */
export const EVENTS_V1: ResourceStrategy = {
  allowCreateOnUpdate: true,
  conversion: EVENTS_V1_CONVERSION,
  decodeError: eventTimeError,
  encode: encodeStoredEvent,
  validate: (
    ev: KubeObject,
    _ctx: StrategyContext,
  ) => [...legacyCauses(ev, "reportingController"), ...strictCauses(ev)],
  validateUpdate: (ev, old) => [...legacyCauses(ev, "reportingController"), ...strictUpdateCauses(ev, old)],
};
