/**
 * Label and field selectors as kube-apiserver parses them from `labelSelector=` / `fieldSelector=`: label
 * selectors as runtime/apimachinery/label_selector.ts parses them; field selectors as
 * runtime/apimachinery/field_selector.ts parses them, over `metadata.name` and `metadata.namespace`. A malformed selector is a 400.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { KubeObject } from "../runtime/types.ts";
import { parseLabelSelector as parseLabels, SelectorError } from "../runtime/apimachinery/label_selector.ts";
import { fieldSelectorMatcher } from "../runtime/apimachinery/field_selector.ts";

/** A compiled selector: true when the object matches. */
export type ObjectPredicate = (obj: KubeObject) => boolean;

function badRequest(message: string): ApiError {
  return new ApiError(failureStatus(400, "BadRequest", message), { verb: "list" });
}

/**
 * Compiles a label selector (runtime/apimachinery/label_selector.ts); throws a 400 ApiError when it does not parse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseLabelSelector } from "./selectors.ts";
 * const match = parseLabelSelector("farm=north,size in (s,m)");
 * assert.ok(match({ metadata: { labels: { farm: "north", size: "m" } } }));
 * ```
 */
export function parseLabelSelector(selector: string | null | undefined): ObjectPredicate {
  try {
    const matches = parseLabels(selector);
    return (o) => matches(o.metadata.labels);
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message);
    throw err;
  }
}

/** Compiles a field selector over metadata.name / metadata.namespace; throws a 400 ApiError otherwise. */
export function parseFieldSelector(selector: string | null | undefined): ObjectPredicate {
  try {
    return fieldSelectorMatcher<KubeObject>(selector, {
      "metadata.name": (o) => o.metadata.name,
      "metadata.namespace": (o) => o.metadata.namespace,
    });
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message);
    throw err;
  }
}
