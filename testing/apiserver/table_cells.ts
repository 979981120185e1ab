/**
 * Cell formatting shared by the table printers, after kube's `pkg/printers/internalversion/printers.go` helpers:
 * label maps and selectors (`labels.FormatLabels`, `metav1.FormatLabelSelector`), container names and images,
 * ages (`translateTimestampSince`) and capped lists (`a,b,c + 2 more...`).
 * @module
 */

import { ageOf } from "../../runtime/apimachinery/durations.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A row function of a printer: the cells of one object. */
export type RowCells = (obj: Any, nowMs: number) => unknown[];

/** `labels.FormatLabels`: `k=v` joined by commas in key order, `<none>` when empty. */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => compareStrings(a, b));
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${v}`).join(",");
}

/** `metav1.FormatLabelSelector`: the selector's string form (requirements by key), `<none>` when nil or empty. */
export function formatLabelSelector(selector: Any): string {
  if (!selector) return "<none>";
  const parts: [string, string][] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push([k, `${k}=${v}`]);
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort(compareStrings).join(",");
    const text = e.operator === "In"
      ? `${e.key} in (${values})`
      : e.operator === "NotIn"
      ? `${e.key} notin (${values})`
      : e.operator === "Exists"
      ? e.key
      : `!${e.key}`;
    parts.push([e.key, text]);
  }
  parts.sort(([a], [b]) => compareStrings(a, b));
  return parts.length === 0 ? "<none>" : parts.map(([, t]) => t).join(",");
}

/** Container names and images of a pod spec, each joined by commas. */
export function containersAndImages(podSpec: Any): [string, string] {
  const containers: Any[] = podSpec?.containers ?? [];
  return [containers.map((c) => c.name).join(","), containers.map((c) => c.image).join(",")];
}

/** `translateTimestampSince`: the age of a timestamp, `<unknown>` when unset. */
export function since(timestamp: string | undefined | null, nowMs: number): string {
  return ageOf(timestamp ?? undefined, nowMs);
}

/** The age of an object's creation. */
export function ageCell(obj: Any, nowMs: number): string {
  return ageOf(obj.metadata?.creationTimestamp, nowMs);
}

/** `listWithMoreString`: at most `max` entries, then ` + N more...`; `<unset>` when empty. */
export function listWithMore(all: string[], max = 3): string {
  const ret = all.slice(0, max).join(",");
  if (all.length > max) return `${ret} + ${all.length - max} more...`;
  return ret === "" ? "<unset>" : ret;
}
