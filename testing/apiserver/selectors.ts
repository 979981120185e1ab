/**
 * Label and field selectors as kube-apiserver parses them: labels as runtime/apimachinery/label_selector.ts parses
 * them; fields support `=`, `==`, `!=` on metadata.name/namespace plus per-kind fields (pods, events, secrets, ...).
 * Parse errors are 400 BadRequest.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { parseLabelSelector as parseLabels, SelectorError } from "../../runtime/apimachinery/label_selector.ts";

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

type FieldGetter = (obj: KubeObject) => string | undefined;

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
  "/namespaces": { "status.phase": (o) => str(o.status?.phase) ?? "" },
  "/nodes": { "spec.unschedulable": (o) => String(Boolean(o.spec?.unschedulable)) },
};

/** Splits a field selector term on its operator, honouring `\` escapes. */
function splitFieldTerm(term: string, selector: string): { field: string; op: "=" | "!="; value: string } {
  for (let i = 0; i < term.length; i++) {
    const ch = term[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "!" && term[i + 1] === "=") {
      return { field: term.slice(0, i), op: "!=", value: unescape(term.slice(i + 2)) };
    }
    if (ch === "=") {
      const skip = term[i + 1] === "=" ? 2 : 1;
      return { field: term.slice(0, i), op: "=", value: unescape(term.slice(i + skip)) };
    }
  }
  throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, "$1");
}

/** Splits on unescaped commas. */
function splitFieldTerms(selector: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (ch === "\\" && i + 1 < selector.length) {
      cur += ch + selector[i + 1];
      i++;
    } else if (ch === ",") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter(Boolean);
}

/**
 * Compiles a field selector for objects stored under `storageKey` (`group/plural`, see registry.ts).
 * Unknown fields are a {@link SelectorError} (`field label not supported: x`), as on the real server.
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
): Matcher {
  if (!selector || !selector.trim()) return () => true;
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
  const tests: Matcher[] = [];
  for (const term of splitFieldTerms(selector)) {
    const { field, op, value } = splitFieldTerm(term, selector);
    const name = field.trim();
    let getter: FieldGetter | undefined;
    if (name === "metadata.name") getter = (o) => o.metadata?.name ?? "";
    else if (name === "metadata.namespace") getter = (o) => o.metadata?.namespace ?? "";
    else getter = extra[name];
    if (!getter) throw new SelectorError(`field label not supported: ${name}`);
    const get = getter;
    tests.push(op === "=" ? (o) => get(o) === value : (o) => get(o) !== value);
  }
  return (obj) => tests.every((t) => t(obj));
}

/** The `metadata.name=<x>` value when the field selector pins one name (a fast path for lists and watches). */
export function pinnedName(selector: string | null | undefined): string | undefined {
  if (!selector) return undefined;
  const m = selector.match(/^metadata\.name==?([^,]+)$/);
  return m ? unescape(m[1]) : undefined;
}
