/**
 * Label and field selectors as kube-apiserver parses them: labels as runtime/apimachinery/label_selector.ts parses
 * them; fields support `=`, `==`, `!=` on metadata.name/namespace plus per-kind fields (pods, events, secrets, ...).
 * Parse errors are 400 BadRequest.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { parseLabelSelector as parseLabels, SelectorError } from "../../runtime/apimachinery/label_selector.ts";
import {
  type FieldGetter as Getter,
  fieldSelectorMatcher,
  pinnedName,
} from "../../runtime/apimachinery/field_selector.ts";

export { SelectorError };

/** A compiled selector: true when an object matches. */
export type Matcher = (obj: KubeObject) => boolean;

/**
 * Compiles a label selector string (runtime/apimachinery/label_selector.ts) into a matcher over objects' labels.
 * Throws a {@link SelectorError} when it does not parse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseLabelSelector } from "./selectors.ts";
 * const m = parseLabelSelector("app=web,tier in (a,b),!legacy");
 * assert.ok(m({ metadata: { labels: { app: "web", tier: "a" } } }));
 * ```
 */
export function parseLabelSelector(selector: string | null | undefined): Matcher {
  const matches = parseLabels(selector);
  return (obj) => matches(obj.metadata?.labels);
}

type FieldGetter = Getter<KubeObject>;

const str = (v: unknown): string | undefined => v === undefined || v === null ? undefined : String(v);

const INVOLVED = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"];

/** Per-kind selectable fields beyond metadata.name/metadata.namespace (core kinds only; keyed by `group/plural`). */
const KIND_FIELDS: Record<string, Record<string, FieldGetter>> = {
  "/pods": {
    "spec.nodeName": (o) => str(o.spec?.nodeName) ?? "",
    "spec.restartPolicy": (o) => str(o.spec?.restartPolicy) ?? "",
    "spec.schedulerName": (o) => str(o.spec?.schedulerName) ?? "",
    "spec.serviceAccountName": (o) => str(o.spec?.serviceAccountName) ?? "",
    "spec.hostNetwork": (o) => String(Boolean(o.spec?.hostNetwork)),
    "status.phase": (o) => str(o.status?.phase) ?? "",
    "status.podIP": (o) => str(o.status?.podIP) ?? "",
    "status.nominatedNodeName": (o) => str(o.status?.nominatedNodeName) ?? "",
  },
  "/events": {
    ...Object.fromEntries(
      INVOLVED.map((f) => [`involvedObject.${f}`, (o: KubeObject) => str(o.involvedObject?.[f]) ?? ""]),
    ),
    "reason": (o) => str(o.reason) ?? "",
    "reportingComponent": (o) => str(o.reportingComponent) ?? "",
    "source": (o) => str(o.source?.component) ?? "",
    "type": (o) => str(o.type) ?? "",
  },
  "/secrets": { "type": (o) => str(o.type) ?? "" },
  "batch/jobs": { "status.successful": (o) => String(o.status?.succeeded ?? 0) },
  "certificates.k8s.io/clustertrustbundles": { "spec.signerName": (o) => str(o.spec?.signerName) ?? "" },
  "certificates.k8s.io/podcertificaterequests": {
    "spec.signerName": (o) => str(o.spec?.signerName) ?? "",
    "spec.podName": (o) => str(o.spec?.podName) ?? "",
    "spec.nodeName": (o) => str(o.spec?.nodeName) ?? "",
  },
  "resource.k8s.io/resourceslices": {
    "spec.nodeName": (o) => str(o.spec?.nodeName) ?? "",
    "spec.driver": (o) => str(o.spec?.driver) ?? "",
  },
  "/namespaces": { "status.phase": (o) => str(o.status?.phase) ?? "" },
  "/nodes": { "spec.unschedulable": (o) => String(Boolean(o.spec?.unschedulable)) },
};

/**
 * Compiles a field selector (runtime/apimachinery/field_selector.ts) for objects stored under `storageKey`
 * (`group/plural`, see registry.ts): metadata.name/namespace, the kind's own selectable fields, a CRD's selectableFields.
 * Unknown fields are a {@link SelectorError} as on the real server: `field label not supported: x` for custom
 * resources (`custom`) and kinds with their own field labels, `"x" is not a known field selector: only
 * "metadata.name", "metadata.namespace"` for the others.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFieldSelector } from "./selectors.ts";
 * const m = parseFieldSelector("metadata.name=a,status.phase!=Failed", "/pods");
 * assert.ok(m({ metadata: { name: "a" }, status: { phase: "Running" } }));
 * ```
 */
export function parseFieldSelector(
  selector: string | null | undefined,
  storageKey: string,
  selectableFields: string[] = [],
  custom = false,
): Matcher {
  try {
    return compileFieldSelector(selector, storageKey, selectableFields);
  } catch (err) {
    // Kinds kube registers no field-label conversion for fall back to runtime.DefaultMetaV1FieldSelectorConversion.
    const unknown = err instanceof SelectorError && err.message.match(/^field label not supported: (.*)$/s);
    if (!unknown || custom) throw err;
    const refuse = LABEL_CONVERSIONS.get(storageKey);
    throw new SelectorError(
      refuse
        ? refuse(unknown[1])
        : `${JSON.stringify(unknown[1])} is not a known field selector: only "metadata.name", "metadata.namespace"`,
    );
  }
}

/** The usual refusal of a field-label conversion (kube's per-kind conversion functions). */
const NOT_SUPPORTED = (label: string) => `field label not supported: ${label}`;

/**
 * The kinds whose served version registers a field-label conversion (kube v1.37), by storage key, and how it refuses
 * a label it does not know.
 */
const LABEL_CONVERSIONS: ReadonlyMap<string, (label: string) => string> = new Map([
  ["/pods", NOT_SUPPORTED],
  ["/nodes", NOT_SUPPORTED],
  ["/replicationcontrollers", NOT_SUPPORTED],
  ["/events", NOT_SUPPORTED],
  ["/namespaces", NOT_SUPPORTED],
  ["/secrets", NOT_SUPPORTED],
  ["/services", NOT_SUPPORTED],
  ["batch/jobs", (label: string) => `field label ${JSON.stringify(label)} not supported for Job`],
  ["certificates.k8s.io/certificatesigningrequests", NOT_SUPPORTED],
  ["certificates.k8s.io/clustertrustbundles", NOT_SUPPORTED],
  ["certificates.k8s.io/podcertificaterequests", NOT_SUPPORTED],
  [
    "resource.k8s.io/resourceslices",
    (label: string) => `field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: ${label}`,
  ],
]);

function compileFieldSelector(
  selector: string | null | undefined,
  storageKey: string,
  selectableFields: string[],
): Matcher {
  const extra: Record<string, FieldGetter> = { ...KIND_FIELDS[storageKey] };
  // A CRD's selectableFields (`.spec.color`): the value at that path, as text.
  for (const jsonPath of selectableFields) {
    const parts = jsonPath.replace(/^\./, "").split(".");
    extra[parts.join(".")] = (o) => {
      // deno-lint-ignore no-explicit-any
      const v = parts.reduce((cur: any, p) => cur?.[p], o);
      return v === undefined || v === null ? "" : String(v);
    };
  }
  return fieldSelectorMatcher<KubeObject>(selector, {
    "metadata.name": (o) => o.metadata?.name ?? "",
    "metadata.namespace": (o) => o.metadata?.namespace ?? "",
    ...extra,
  });
}

/**
 * The values of the selectable fields `storageKey`'s kind has beyond metadata.name/namespace (pods: spec.nodeName,
 * status.phase, ...), in a fixed order: what a stored record keeps so that {@link indexedFieldSelector} decides
 * without parsing the object. Undefined for kinds without such fields.
 */
export function kindFieldValues(storageKey: string, obj: KubeObject): string[] | undefined {
  const getters = KIND_FIELDS[storageKey];
  return getters && Object.values(getters).map((get) => get(obj) ?? "");
}

/** Whether `storageKey`'s kind has selectable fields beyond metadata.name/namespace ({@link kindFieldValues}). */
export function hasKindFields(storageKey: string): boolean {
  return Object.hasOwn(KIND_FIELDS, storageKey);
}

/** The first of `storageKey`'s kind fields (pods: `spec.nodeName`), which the store indexes. */
export function firstKindField(storageKey: string): string | undefined {
  return Object.keys(KIND_FIELDS[storageKey] ?? {})[0];
}

/** What {@link indexedFieldSelector} reads of a stored object. */
export interface IndexedFields {
  readonly name: string;
  readonly namespace: string;
  /** {@link kindFieldValues} of the object. */
  readonly fields?: readonly string[];
}

/**
 * A field selector over stored records' index ({@link IndexedFields}), or undefined when it names a field the index
 * lacks (a CRD's selectableFields) or does not parse (the caller compiles it with {@link parseFieldSelector} too,
 * for the error).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { indexedFieldSelector, kindFieldValues } from "./selectors.ts";
 * const pod = { metadata: { name: "p", namespace: "ns" }, spec: { nodeName: "node-7" } };
 * const m = indexedFieldSelector("spec.nodeName=node-7", "/pods")!;
 * assert.ok(m({ name: "p", namespace: "ns", fields: kindFieldValues("/pods", pod) }));
 * ```
 */
export function indexedFieldSelector(
  selector: string | null | undefined,
  storageKey: string,
): ((record: IndexedFields) => boolean) | undefined {
  const getters: Record<string, Getter<IndexedFields>> = {
    "metadata.name": (r) => r.name,
    "metadata.namespace": (r) => r.namespace,
  };
  Object.keys(KIND_FIELDS[storageKey] ?? {}).forEach((field, i) => getters[field] = (r) => r.fields?.[i] ?? "");
  try {
    return fieldSelectorMatcher<IndexedFields>(selector, getters);
  } catch (err) {
    if (err instanceof SelectorError) return undefined;
    throw err;
  }
}

export { pinnedName };
