/**
 * Answering ConversionReview v1 for a CRD with several served versions, hub-and-spoke as controller-runtime's
 * `conversion.Hub` / `Convertible`: one version is the hub, every other version (a spoke) converts to and from it, so
 * N versions need 2(N-1) functions rather than N². The answer keeps the objects' order (and so their uids), sets the
 * desired apiVersion, and refuses a converter that changes metadata other than labels and annotations, as
 * kube-apiserver would (it rejects such a response itself, with a less helpful message).
 * @module
 */
import { deepEqual, isPlainObject } from "../apimachinery/equality.ts";
import type { ReviewAnswer } from "./admission.ts";
import type { ConversionResponse, ConversionReview } from "./review_types.ts";
import { copyJson } from "../apimachinery/json_copy.ts";

/** A Kubernetes object as conversion sees it (any apiVersion and kind; metadata unchecked). */
export type ConvertibleObject = Record<string, unknown> & { apiVersion?: string; kind?: string; metadata?: unknown };

/** A spoke version: converts its objects to the hub version and back. */
export interface Spoke<
  Hub extends ConvertibleObject = ConvertibleObject,
  Obj extends ConvertibleObject = ConvertibleObject,
> {
  /** The spoke's apiVersion, e.g. `example.com/v1alpha1`. */
  readonly apiVersion: string;
  /** This version → hub (the result's apiVersion is set by the converter). */
  toHub(obj: Obj): Hub;
  /** Hub → this version (the result's apiVersion is set by the converter). */
  fromHub(hub: Hub): Obj;
}

/** The hub version and its spokes. */
export interface HubAndSpokes<Hub extends ConvertibleObject = ConvertibleObject> {
  /** The hub's apiVersion, e.g. `example.com/v1`. */
  readonly hub: string;
  /** Every other served version. */
  // deno-lint-ignore no-explicit-any
  readonly spokes: readonly Spoke<Hub, any>[];
}

/** Why an object could not be converted; answered as `result.status: Failure`. */
export class ConversionError extends Error {
  /** `message` names the object and the versions. */
  constructor(message: string) {
    super(message);
    this.name = "ConversionError";
  }
}

function objectName(obj: ConvertibleObject): string {
  const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
  return `${obj.kind ?? "object"} ${meta.namespace ? `${meta.namespace}/` : ""}${meta.name ?? "(unnamed)"}`;
}

function metadataOutsideLabels(obj: ConvertibleObject): Record<string, unknown> {
  const { labels: _l, annotations: _a, ...rest } = isPlainObject(obj.metadata) ? obj.metadata : {};
  return rest;
}

/**
 * Converts `obj` to `desiredAPIVersion` through the hub. Throws {@link ConversionError} for an unknown version or a
 * converter that changed metadata other than labels and annotations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { convertObject } from "./conversion.ts";
 * const versions = {
 *   hub: "example.com/v2",
 *   spokes: [{
 *     apiVersion: "example.com/v1",
 *     toHub: ({ spec, ...o }: Record<string, unknown>) => ({ ...o, spec: { sizes: [(spec as { size: number }).size] } }),
 *     fromHub: ({ spec, ...o }: Record<string, unknown>) => ({ ...o, spec: { size: (spec as { sizes: number[] }).sizes[0] } }),
 *   }],
 * };
 * const v2 = convertObject({ apiVersion: "example.com/v1", kind: "X", metadata: { name: "a" }, spec: { size: 3 } },
 *   "example.com/v2", versions);
 * assert.deepEqual(v2.spec, { sizes: [3] });
 * ```
 */
export function convertObject(
  obj: ConvertibleObject,
  desiredAPIVersion: string,
  versions: HubAndSpokes,
): ConvertibleObject {
  const from = obj.apiVersion;
  if (from === desiredAPIVersion) return obj;
  const spokeOf = (apiVersion: string | undefined) => versions.spokes.find((s) => s.apiVersion === apiVersion);
  const known = (v: string | undefined) => v === versions.hub || spokeOf(v) !== undefined;
  if (!known(from)) throw new ConversionError(`${objectName(obj)}: no converter from ${from}`);
  if (!known(desiredAPIVersion)) throw new ConversionError(`${objectName(obj)}: no converter to ${desiredAPIVersion}`);
  const input = copyJson(obj);
  const hub = from === versions.hub ? input : { ...spokeOf(from)!.toHub(input), apiVersion: versions.hub };
  const out = desiredAPIVersion === versions.hub ? hub : spokeOf(desiredAPIVersion)!.fromHub(copyJson(hub));
  const converted = { ...out, apiVersion: desiredAPIVersion, kind: obj.kind };
  if (!deepEqual(metadataOutsideLabels(obj), metadataOutsideLabels(converted))) {
    throw new ConversionError(
      `${objectName(obj)}: converting ${from} to ${desiredAPIVersion} changed metadata other than labels and ` +
        `annotations (a converter may change only those)`,
    );
  }
  return converted;
}

/** Parses a ConversionReview body; a string result is why it is malformed. */
export function parseConversionReview(body: unknown): ConversionReview | string {
  if (!isPlainObject(body)) return "the body is not a JSON object";
  if (body.apiVersion !== "apiextensions.k8s.io/v1" || body.kind !== "ConversionReview") {
    return `expected apiVersion apiextensions.k8s.io/v1 and kind ConversionReview, got ${
      JSON.stringify(body.apiVersion)
    } ${JSON.stringify(body.kind)}`;
  }
  const req = body.request;
  if (!isPlainObject(req)) return "the review has no request";
  if (typeof req.uid !== "string" || req.uid === "") return "request.uid is missing";
  if (typeof req.desiredAPIVersion !== "string" || !req.desiredAPIVersion.includes("/")) {
    return `request.desiredAPIVersion ${JSON.stringify(req.desiredAPIVersion)} is not group/version`;
  }
  if (!Array.isArray(req.objects) || !req.objects.every(isPlainObject)) {
    return "request.objects is not a list of objects";
  }
  return body as unknown as ConversionReview;
}

/**
 * Answers a ConversionReview: every object converted in order, or `result.status: Failure` with the first
 * object's error (kube-apiserver then fails the read or write). A malformed review is answered 400.
 *
 * `versionsFor(group, kind)` finds the converter for an object (one `/convert` path serves every kind).
 */
export function answerConversion(
  body: unknown,
  versionsFor: (group: string, kind: string) => HubAndSpokes | undefined,
): ReviewAnswer {
  const parsed = parseConversionReview(body);
  if (typeof parsed === "string") return { status: 400, body: parsed };
  const { uid, desiredAPIVersion, objects } = parsed.request!;
  const group = desiredAPIVersion.slice(0, desiredAPIVersion.lastIndexOf("/"));
  let response: ConversionResponse;
  try {
    const convertedObjects = objects.map((obj: ConvertibleObject) => {
      const versions = versionsFor(group, String(obj.kind));
      if (!versions) throw new ConversionError(`${objectName(obj)}: no conversion registered for group ${group}`);
      return convertObject(obj, desiredAPIVersion, versions);
    });
    response = { uid, convertedObjects, result: { status: "Success" } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    response = { uid, convertedObjects: [], result: { status: "Failure", message } };
  }
  return { status: 200, body: { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", response } };
}
